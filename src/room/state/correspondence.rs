//! Correspondence: games that last days. A room created with `clock {"days_per_move": N}` gives
//! the seat on move N days for each move; a move resets its mover's time to the full N days (as
//! lichess's correspondence games do), and running out loses on time like any flag.
//!
//! Such a room runs on the ordinary clocks (see `clocks.rs`), with two differences this module
//! holds: its deadline is wall-clock time (the time the server was down is charged, since days are
//! days), so the state remembers when its clocks were last set ([`Correspondence::clock_set_at`])
//! and the database keeps the deadline (`rooms.flag_at`, [`RoomState::flag_at`]), for a sweep to
//! find a room that has left memory; and nobody is ever claimable for being away (being away
//! for hours is how correspondence is played).

use chrono::{DateTime, Utc};

use super::{Clocks, RoomState};
use crate::domain::{ClockSettings, CorrespondenceSettings, TimeControl};
use crate::protocol::{ClockInfo, Event};

/// What a correspondence room's state knows beyond its clocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Correspondence {
    /// The room's setting.
    pub settings: CorrespondenceSettings,
    /// When the last event that set the clocks was made (its `clock.at`); `None` before the game
    /// started. The seat on move's time counts down from then, in wall-clock time.
    pub clock_set_at: Option<DateTime<Utc>>,
}

/// The clocks and the correspondence part of a room created with `options`: a Fischer room has
/// clocks only, a correspondence room both (each seat starting with the days of one move), an
/// untimed room neither. Options stored by this server always read; anything else is untimed.
pub(super) fn time_control(
    options: &serde_json::Value,
    seats: usize,
) -> (Option<Clocks>, Option<Correspondence>) {
    let Some(control) = options
        .get("clock")
        .and_then(|c| TimeControl::parse(c).ok())
    else {
        return (None, None);
    };
    let (settings, correspondence) = match control {
        TimeControl::Fischer(settings) => (settings, None),
        TimeControl::Correspondence(settings) => {
            let seconds = u32::try_from(settings.move_ms() / 1000).unwrap_or(u32::MAX);
            let clock = ClockSettings {
                initial_s: seconds,
                increment_s: 0,
            };
            let correspondence = Correspondence {
                settings,
                clock_set_at: None,
            };
            (clock, Some(correspondence))
        }
    };
    let clocks = match correspondence {
        // Moves days apart have no round trip worth giving back: no lag quotas.
        Some(_) => Clocks::uncompensated(settings, seats),
        None => Clocks::new(settings, seats),
    };
    (Some(clocks), correspondence)
}

/// The `clock` an event carries, if any.
fn clock_of(event: &Event) -> Option<&ClockInfo> {
    match event {
        Event::GameStarted { clock, .. }
        | Event::Moved { clock, .. }
        | Event::Left { clock, .. }
        | Event::GameOver { clock, .. }
        | Event::TakenBack { clock, .. } => clock.as_ref(),
        _ => None,
    }
}

impl RoomState {
    /// Whether the room is a correspondence game.
    pub fn is_correspondence(&self) -> bool {
        self.correspondence.is_some()
    }

    /// A correspondence room's days per move; `None` for any other room.
    pub fn days_per_move(&self) -> Option<u32> {
        self.correspondence.map(|c| c.settings.days_per_move)
    }

    /// When the seat on move of a correspondence game in play runs out of time (UTC), as the
    /// database keeps it (`rooms.flag_at`); `None` for any other room, or when no clock runs.
    pub fn flag_at(&self) -> Option<DateTime<Utc>> {
        let set_at = self.correspondence?.clock_set_at?;
        let left = self.clock_deadline(0)?;
        Some(set_at + chrono::Duration::milliseconds(i64::try_from(left).ok()?))
    }

    /// How long ago (ms, at `now`) a correspondence room's clocks were last set: what its room
    /// task charges the seat on move when it loads the room, so the days go on while the room
    /// is out of memory or the server is down. 0 for any other room.
    pub fn elapsed_since_clock_set(&self, now: DateTime<Utc>) -> u64 {
        self.correspondence
            .and_then(|c| c.clock_set_at)
            .and_then(|at| (now - at).to_std().ok())
            .map_or(0, crate::clock::millis)
    }

    /// The mover's time after its move: a correspondence move resets it to the full days of a
    /// move; a Fischer move adds the increment.
    pub(super) fn after_move_ms(&self, left: u64, increment_ms: u64) -> u64 {
        match self.correspondence {
            Some(c) => c.settings.move_ms(),
            None => left.saturating_add(increment_ms),
        }
    }

    /// Notes when an event set a correspondence room's clocks.
    pub(super) fn note_clock_set(&mut self, event: &Event) {
        if let (Some(correspondence), Some(info)) = (&mut self.correspondence, clock_of(event)) {
            correspondence.clock_set_at = Some(info.at);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::testing::{apply_all, stamped_move, timed_room, two_player_room};
    use super::*;
    use crate::domain::{DAY_MS, DAYS_PER_MOVE, RoomStatus};
    use crate::rules::{EndReason, GameKind};

    const HOUR_MS: u64 = 3_600_000;

    fn correspondence_room(days: u32) -> RoomState {
        let options = json!({"clock": {"days_per_move": days}});
        two_player_room(GameKind::OukChatrang, None, options)
    }

    #[test]
    fn only_the_listed_days_read_and_fischer_clocks_still_do() {
        for days in DAYS_PER_MOVE {
            assert_eq!(
                TimeControl::parse(&json!({"days_per_move": days})),
                Ok(TimeControl::Correspondence(CorrespondenceSettings {
                    days_per_move: days
                }))
            );
        }
        for bad in [
            json!({"days_per_move": 0}),
            json!({"days_per_move": 4}),
            json!({"days_per_move": 30}),
            json!({"days_per_move": "3"}),
            json!({"days_per_move": 3, "initial_s": 60}),
        ] {
            assert!(TimeControl::parse(&bad).is_err(), "{bad}");
        }
        assert!(matches!(
            TimeControl::parse(&json!({"initial_s": 60, "increment_s": 1})),
            Ok(TimeControl::Fischer(_))
        ));
        assert!(TimeControl::parse(&json!({"initial_s": 0, "increment_s": 1})).is_err());
    }

    #[test]
    fn a_move_resets_its_movers_days_and_the_deadline_is_wall_clock_time() {
        let mut room = correspondence_room(3);
        let start = room.correspondence.unwrap().clock_set_at.unwrap();
        assert_eq!(room.days_per_move(), Some(3));
        assert_eq!(room.flag_at(), Some(start + chrono::Duration::days(3)));
        let two_hours = start + chrono::Duration::hours(2);
        let clock = stamped_move(&mut room, 2 * HOUR_MS, 0, two_hours);
        assert_eq!(clock.remaining_ms, vec![3 * DAY_MS, 3 * DAY_MS]);
        assert_eq!(clock.running, Some(1));
        assert_eq!(room.flag_at(), Some(two_hours + chrono::Duration::days(3)));
        // Black answers a day later; its own days are full again, White's run.
        let later = two_hours + chrono::Duration::days(1);
        assert_eq!(room.elapsed_since_clock_set(later), DAY_MS);
        let clock = stamped_move(&mut room, DAY_MS, 0, later);
        assert_eq!(clock.remaining_ms, vec![3 * DAY_MS, 3 * DAY_MS]);
        assert_eq!(room.flag_at(), Some(later + chrono::Duration::days(3)));
        // The snapshot a day and five hours on shows White's days and hours left.
        let view = room.clock_view(DAY_MS + 5 * HOUR_MS, later).unwrap();
        assert_eq!(
            view.remaining_ms,
            vec![2 * DAY_MS - 5 * HOUR_MS, 3 * DAY_MS]
        );
        assert_eq!(view.days_per_move, Some(3));
    }

    #[test]
    fn a_correspondence_move_gets_no_lag_compensation() {
        let mut room = correspondence_room(3);
        assert_eq!(room.clock.as_ref().map(|c| c.lag.len()), Some(0));
        assert_eq!(room.lag_compensation(0, Some(600), 2 * HOUR_MS), 0);
        // A Fischer room's seats each have a quota.
        let mut fischer = timed_room(GameKind::Khan, None, 300, 3);
        assert_eq!(fischer.lag_compensation(0, Some(600), 2_000), 600);
    }

    #[test]
    fn running_out_of_days_loses_on_time_and_leaves_no_deadline() {
        let mut room = correspondence_room(1);
        stamped_move(&mut room, 0, 0, Utc::now());
        assert_eq!(room.decide_flag(DAY_MS - 1, Utc::now()), None);
        let events = room.decide_flag(DAY_MS, Utc::now()).unwrap();
        apply_all(&mut room, &events);
        assert_eq!(room.status, RoomStatus::Finished);
        assert_eq!(
            room.result.map(|o| (o.winner, o.reason)),
            Some((Some(0), EndReason::Timeout))
        );
        assert_eq!(room.flag_at(), None);
    }

    #[test]
    fn a_fischer_room_has_no_wall_clock_deadline() {
        let mut room = timed_room(GameKind::Khan, None, 60, 2);
        assert!(!room.is_correspondence());
        assert_eq!(room.flag_at(), None);
        stamped_move(&mut room, 1_000, 0, Utc::now());
        assert_eq!(room.flag_at(), None);
        assert_eq!(room.elapsed_since_clock_set(Utc::now()), 0);
    }
}
