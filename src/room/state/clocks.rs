//! Time control: a timed room's settings and clocks, each seat's lag quota (the compensation
//! itself is `lag.rs`), the deadline of the seat on move, the flag when it passes, and the `clock`
//! every clock-setting event carries.
//! The state holds no time of its own: the room task passes the milliseconds elapsed since the
//! last clock event.

use chrono::{DateTime, Utc};

use super::lag::LagQuota;
use super::{RoomState, game_over};
use crate::domain::{ClockSettings, RoomStatus};
use crate::protocol::{ClockInfo, ClockView, Event};
use crate::rules::{EndReason, Outcome, Rules, Seat};

/// A timed room's clocks as of the last event that set them (`clock` in `game_started`, `moved`,
/// `left`, `taken_back`, `game_over`). The room task knows when that was; the state holds no time of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clocks {
    /// The room's settings.
    pub settings: ClockSettings,
    /// Each seat's remaining time in milliseconds at the last clock event.
    pub remaining_ms: Vec<u64>,
    /// The seat whose clock runs, if any.
    pub running: Option<Seat>,
    /// Each seat's lag quota (in memory only: a room loaded afresh starts every quota anew);
    /// none in a correspondence game.
    pub lag: Vec<LagQuota>,
}

impl Clocks {
    /// The clocks of a game of `settings` for `seats` seats before it starts: every seat has its
    /// initial time and a fresh lag quota, and none runs.
    pub fn new(settings: ClockSettings, seats: usize) -> Self {
        Clocks {
            settings,
            remaining_ms: vec![settings.initial_ms(); seats],
            running: None,
            lag: vec![LagQuota::for_clock(&settings); seats],
        }
    }

    /// As [`Clocks::new`] without lag quotas (a correspondence game: its moves are days apart,
    /// and its quota, sized for a multi-day starting time, would be meaningless): no move gets
    /// any compensation.
    pub fn uncompensated(settings: ClockSettings, seats: usize) -> Self {
        Clocks {
            lag: Vec::new(),
            ..Clocks::new(settings, seats)
        }
    }
}

impl RoomState {
    /// The lag compensation of a move by `seat` that took `elapsed_ms` since its clock started,
    /// over a connection whose estimated round trip is `lag_ms`, taken from the seat's quota
    /// ([`LagQuota::on_move`]); 0 in an untimed room.
    pub fn lag_compensation(&mut self, seat: Seat, lag_ms: Option<u64>, elapsed_ms: u64) -> u64 {
        self.clock
            .as_mut()
            .and_then(|clocks| clocks.lag.get_mut(usize::from(seat)))
            .map_or(0, |quota| quota.on_move(lag_ms, elapsed_ms))
    }

    /// When the running seat's time runs out, in the room task's clock milliseconds, given that the
    /// last clock event was at `mark_ms`; `None` when no clock runs.
    pub fn clock_deadline(&self, mark_ms: u64) -> Option<u64> {
        if self.status != RoomStatus::Playing {
            return None;
        }
        let clocks = self.clock.as_ref()?;
        let seat = clocks.running?;
        let left = clocks.remaining_ms.get(usize::from(seat)).copied()?;
        Some(mark_ms.saturating_add(left))
    }

    /// The clocks `elapsed_ms` after the last clock event, as a snapshot shows them.
    pub fn clock_view(&self, elapsed_ms: u64, at: DateTime<Utc>) -> Option<ClockView> {
        let clocks = self.clock.as_ref()?;
        let running = clocks
            .running
            .filter(|_| self.status == RoomStatus::Playing);
        let mut remaining_ms = clocks.remaining_ms.clone();
        if let Some(left) = running.and_then(|s| remaining_ms.get_mut(usize::from(s))) {
            *left = left.saturating_sub(elapsed_ms);
        }
        Some(ClockView {
            initial_s: clocks.settings.initial_s,
            increment_s: clocks.settings.increment_s,
            remaining_ms,
            running,
            at,
            days_per_move: self.days_per_move(),
        })
    }

    /// The events of a flag, when the running seat's time is used up `elapsed_ms` after the last
    /// clock event; `None` while it has time left (or no clock runs). Two players: the other seat
    /// wins by `timeout`, or the game is drawn (`timeout`, no winner) when the rules say that seat
    /// could not win (Ouk Chatrang: no mating material, O-17). Three players (Khan-Tsin): the seat
    /// leaves as in a resignation, with reason `timeout`, and the game goes on. The events carry
    /// their clocks.
    pub fn decide_flag(&self, elapsed_ms: u64, at: DateTime<Utc>) -> Option<Vec<Event>> {
        let clocks = self.clock.as_ref()?;
        let deadline = self.clock_deadline(0)?;
        if elapsed_ms < deadline {
            return None;
        }
        let seat = clocks.running?;
        let mut events = if self.game.players() == 2 {
            let other = 1 - seat.min(1);
            let outcome = if self.game.can_win_on_time(other) {
                Outcome::win(other, EndReason::Timeout)
            } else {
                Outcome::draw(EndReason::Timeout)
            };
            vec![game_over(outcome)]
        } else {
            // The running seat is in play, so it can always leave; should the rules still refuse,
            // the game ends drawn rather than the deadline firing again and again.
            self.decide_leave(seat, EndReason::Timeout)
                .unwrap_or_else(|_| vec![game_over(Outcome::draw(EndReason::Timeout))])
        };
        self.stamp_clocks(&mut events, elapsed_ms, 0, at);
        Some(events)
    }

    /// Fills in the `clock` of the events that carry one (`game_started`, `moved`, `left`,
    /// `taken_back`, and `game_over` of a game that started) for a timed room, `elapsed_ms` after
    /// the last clock event, stamped `at`. The running seat is charged the time elapsed, less
    /// `compensation_ms` for a move (lag compensation, capped at the time elapsed, so a seat never
    /// gets back more than it spent); a move then adds the increment to its mover (correspondence:
    /// resets its days); the seat now on move runs. A takeback charges nobody and sets every seat's time back to what it was before
    /// the first move taken back. Does nothing for an untimed room.
    pub fn stamp_clocks(
        &self,
        events: &mut [Event],
        elapsed_ms: u64,
        compensation_ms: u64,
        at: DateTime<Utc>,
    ) {
        let Some(clocks) = &self.clock else { return };
        let settings = clocks.settings;
        let mut remaining = clocks.remaining_ms.clone();
        let mut running = clocks.running;
        // A game that never started has no clocks to report at its end.
        let mut started = self.status != RoomStatus::Waiting;
        // The time elapsed is charged once, to the seat running before the first of the events.
        let mut charged = false;
        let mut charge = |remaining: &mut Vec<u64>, running: Option<Seat>, compensation: u64| {
            if std::mem::replace(&mut charged, true) {
                return;
            }
            let spent = elapsed_ms - compensation.min(elapsed_ms);
            if let Some(left) = running.and_then(|s| remaining.get_mut(usize::from(s))) {
                *left = left.saturating_sub(spent);
            }
        };
        for event in events {
            let slot = match event {
                Event::GameStarted { to_move, clock, .. } => {
                    charge(&mut remaining, None, 0);
                    started = true;
                    remaining = vec![settings.initial_ms(); remaining.len()];
                    running = *to_move;
                    clock
                }
                Event::Moved {
                    seat,
                    to_move,
                    clock,
                    ..
                } => {
                    charge(&mut remaining, running, compensation_ms);
                    if let Some(left) = remaining.get_mut(usize::from(*seat)) {
                        *left = self.after_move_ms(*left, settings.increment_ms());
                    }
                    running = *to_move;
                    clock
                }
                Event::Left { to_move, clock, .. } => {
                    charge(&mut remaining, running, 0);
                    running = *to_move;
                    clock
                }
                Event::GameOver { clock, .. } if started => {
                    charge(&mut remaining, running, 0);
                    running = None;
                    clock
                }
                // A takeback charges nobody: the clocks go back to what they were before the
                // first move taken back.
                Event::TakenBack {
                    plies,
                    to_move,
                    clock,
                    ..
                } => {
                    charge(&mut remaining, None, 0);
                    let first = self.moves.len().saturating_sub(*plies as usize);
                    if let Some(before) = self.moves.get(first).and_then(|m| m.clock_before.clone())
                    {
                        remaining = before;
                    }
                    running = *to_move;
                    clock
                }
                _ => continue,
            };
            *slot = Some(ClockInfo {
                remaining_ms: remaining.clone(),
                running,
                at,
            });
        }
    }

    /// Sets the clocks from an event's `clock` (stored or live: the same path).
    pub(super) fn apply_clock(&mut self, info: Option<&ClockInfo>) {
        if let (Some(clocks), Some(info)) = (&mut self.clock, info) {
            clocks.remaining_ms.clone_from(&info.remaining_ms);
            clocks.running = info.running;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{apply_all, stamped_move, three_player_room, timed_room};
    use super::*;
    use crate::rules::GameKind;

    fn timed_move(room: &mut RoomState, elapsed_ms: u64, compensation_ms: u64) -> ClockInfo {
        stamped_move(room, elapsed_ms, compensation_ms, Utc::now())
    }

    /// The outcome and final clocks of a single `game_over` (none runs any more).
    fn final_clock(events: &[Event]) -> (Outcome, Vec<u64>) {
        match events {
            [
                Event::GameOver {
                    result,
                    clock: Some(clock),
                    ratings: None,
                },
            ] if clock.running.is_none() => (Outcome::from(*result), clock.remaining_ms.clone()),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn clocks_start_with_the_game_and_a_move_adds_the_increment_after_the_time_spent() {
        let mut room = timed_room(GameKind::Khan, None, 60, 2);
        assert_eq!(room.clock_deadline(1_000), Some(61_000));
        let clock = timed_move(&mut room, 12_345, 0);
        assert_eq!(
            (clock.remaining_ms, clock.running),
            (vec![49_655, 60_000], Some(1))
        );
        let clock = timed_move(&mut room, 1_000, 0);
        assert_eq!(
            (clock.remaining_ms, clock.running),
            (vec![49_655, 61_000], Some(0))
        );
        assert_eq!(room.clock_deadline(0), Some(49_655));
        let view = room.clock_view(655, Utc::now()).unwrap();
        assert_eq!(view.remaining_ms, vec![49_000, 61_000]);
        assert_eq!((view.initial_s, view.increment_s), (60, 2));
    }

    #[test]
    fn compensation_comes_from_the_movers_quota_and_never_exceeds_the_time_spent() {
        let mut room = timed_room(GameKind::Khan, None, 60, 0);
        // 1+0: a gain of 390 ms, the quota starts at 1170.
        let compensation = room.lag_compensation(0, Some(300), 1_000);
        assert_eq!(compensation, 300);
        let clock = timed_move(&mut room, 1_000, compensation);
        assert_eq!(clock.remaining_ms, vec![59_300, 60_000]);
        // 200 ms spent, 300 ms of lag: the seat keeps what it had, no more.
        let compensation = room.lag_compensation(1, Some(300), 200);
        assert_eq!(compensation, 200);
        let clock = timed_move(&mut room, 200, compensation);
        assert_eq!(clock.remaining_ms, vec![59_300, 60_000]);
        let quotas: Vec<u64> = room
            .clock
            .as_ref()
            .unwrap()
            .lag
            .iter()
            .map(|q| q.quota_ms)
            .collect();
        assert_eq!(quotas, vec![1_170 - 300 + 390, 1_170 - 200 + 390]);
        // A spike beyond the quota: only the quota.
        assert_eq!(room.lag_compensation(0, Some(2_000), 5_000), 1_260);
    }

    #[test]
    fn a_flag_comes_exactly_at_the_deadline_and_the_other_seat_wins() {
        let mut room = timed_room(GameKind::Khan, None, 10, 0);
        timed_move(&mut room, 4_000, 0);
        assert_eq!(room.decide_flag(9_999, Utc::now()), None);
        let events = room.decide_flag(10_000, Utc::now()).unwrap();
        assert_eq!(
            final_clock(&events),
            (Outcome::win(0, EndReason::Timeout), vec![6_000, 0])
        );
        apply_all(&mut room, &events);
        let view = room.clock_view(0, Utc::now()).unwrap();
        assert_eq!((view.remaining_ms, view.running), (vec![6_000, 0], None));
        assert_eq!(room.clock_deadline(0), None);
    }

    #[test]
    fn a_flag_against_a_side_without_mating_material_is_a_draw() {
        // White flags; Black's lone King could never mate (O-17).
        let room = timed_room(
            GameKind::OukChatrang,
            Some("4k3/8/8/8/8/8/8/R2K4 w - - 0 1"),
            5,
            0,
        );
        let events = room.decide_flag(5_000, Utc::now()).unwrap();
        assert_eq!(
            final_clock(&events),
            (Outcome::draw(EndReason::Timeout), vec![0, 5_000])
        );
        // Black flags instead: White has a Rook and wins.
        let room = timed_room(
            GameKind::OukChatrang,
            Some("4k3/8/8/8/8/8/8/R2K4 b - - 0 1"),
            5,
            0,
        );
        let events = room.decide_flag(5_000, Utc::now()).unwrap();
        assert_eq!(
            final_clock(&events),
            (Outcome::win(0, EndReason::Timeout), vec![5_000, 0])
        );
    }

    #[test]
    fn a_flagged_player_of_three_leaves_with_its_clock_at_zero_and_the_game_goes_on() {
        let mut room = three_player_room();
        let mut clocks = Clocks::new(
            ClockSettings {
                initial_s: 30,
                increment_s: 0,
            },
            3,
        );
        clocks.running = Some(0);
        room.clock = Some(clocks);
        let events = room.decide_flag(30_000, Utc::now()).unwrap();
        let Event::Left {
            seat,
            reason,
            to_move,
            clock: Some(clock),
            ..
        } = &events[0]
        else {
            panic!("{events:?}");
        };
        assert_eq!((*seat, *reason, *to_move), (0, EndReason::Timeout, Some(1)));
        assert_eq!(clock.remaining_ms, vec![0, 30_000, 30_000]);
        apply_all(&mut room, &events);
        assert_eq!(room.status, RoomStatus::Playing);
        assert_eq!(room.game.in_play(), vec![1, 2]);
    }

    #[test]
    fn clock_settings_are_bounded() {
        let ok = |initial_s, increment_s| {
            ClockSettings {
                initial_s,
                increment_s,
            }
            .validate()
            .is_ok()
        };
        assert!(ok(1, 0) && ok(10_800, 180));
        assert!(!ok(0, 0) && !ok(10_801, 0) && !ok(60, 181));
    }
}
