//! Who of a room's seats is here: connections per seat, since when a seat has been away, each
//! seat's last announced round trip (`lag`), and the Khan-Tsin abandonment votes
//! (docs/protocol.md, "Abandonment").
//!
//! Pure bookkeeping, with no tokio and no I/O: time comes in as arguments (milliseconds of the
//! room's [`Clock`](crate::clock::Clock)), so the rules of grace and votes are tested with plain
//! numbers. The room task tells it every connection that arrives or leaves and asks it what a
//! claim may be made against.

use crate::rules::Seat;

/// The presence of one room's seats.
#[derive(Debug)]
pub(super) struct Presence {
    /// Per seat: how many connections it has (its bot's included).
    conns: Vec<u32>,
    /// Per seat: the clock reading (ms) when its last connection left, or when the room task
    /// started if it has had none since; `None` while it is connected.
    away_since: Vec<Option<u64>>,
    /// The seat the votes of `claim_victory` are against, and who voted (in memory only: a
    /// reload, the seat's return or a change of the claimable seat starts afresh).
    votes_against: Option<Seat>,
    votes: Vec<Seat>,
    /// Per seat: the round trip (ms) last announced for it (`lag`), for connections that come
    /// later; `None` before its first measurement.
    lag_ms: Vec<Option<u64>>,
}

impl Presence {
    /// `seats` seats, none connected, all away since `now_ms`.
    pub fn new(seats: usize, now_ms: u64) -> Self {
        Presence {
            conns: vec![0; seats],
            away_since: vec![Some(now_ms); seats],
            votes_against: None,
            votes: Vec::new(),
            lag_ms: vec![None; seats],
        }
    }

    /// Notes `seat`'s round trip as announced (`lag`).
    pub fn note_lag(&mut self, seat: Seat, lag_ms: u64) {
        if let Some(slot) = self.lag_ms.get_mut(usize::from(seat)) {
            *slot = Some(lag_ms);
        }
    }

    /// The seats whose round trip was announced, with the last one (ms), in seat order.
    pub fn lags(&self) -> Vec<(Seat, u64)> {
        (0..)
            .zip(&self.lag_ms)
            .filter_map(|(seat, lag)| Some((seat, (*lag)?)))
            .collect()
    }

    /// A connection of `seat` arrived. True when it is the seat's first (the others are told):
    /// the seat is back, and the votes against it are void.
    pub fn arrive(&mut self, seat: Seat) -> bool {
        let i = usize::from(seat);
        let Some(count) = self.conns.get_mut(i) else {
            return false;
        };
        *count += 1;
        if *count > 1 {
            return false;
        }
        if let Some(slot) = self.away_since.get_mut(i) {
            *slot = None;
        }
        if self.votes_against == Some(seat) {
            self.votes.clear();
            self.votes_against = None;
        }
        true
    }

    /// A connection of `seat` left at `now_ms`. True when it was the seat's last (the others are
    /// told): the seat is away from then on.
    pub fn leave(&mut self, seat: Seat, now_ms: u64) -> bool {
        let i = usize::from(seat);
        let Some(count) = self.conns.get_mut(i).filter(|count| **count > 0) else {
            return false;
        };
        *count -= 1;
        if *count > 0 {
            return false;
        }
        if let Some(slot) = self.away_since.get_mut(i) {
            *slot = Some(now_ms);
        }
        true
    }

    /// Per seat, whether it has a connection.
    pub fn connected(&self) -> Vec<bool> {
        self.conns.iter().map(|count| *count > 0).collect()
    }

    /// `on_move`, when it has been away for at least `grace_ms` at `now_ms`: the others may claim
    /// against it. `None` without a seat on move or a grace period (an untimed game).
    pub fn claimable(
        &self,
        on_move: Option<Seat>,
        grace_ms: Option<u64>,
        now_ms: u64,
    ) -> Option<Seat> {
        let (seat, grace) = (on_move?, grace_ms?);
        let since = (*self.away_since.get(usize::from(seat))?)?;
        (now_ms.saturating_sub(since) >= grace).then_some(seat)
    }

    /// When (ms) a waiting room whose `lone_player` is away expires, `ttl_ms` after it left;
    /// `None` while it is connected.
    pub fn lone_player_deadline(&self, lone_player: Seat, ttl_ms: u64) -> Option<u64> {
        let since = (*self.away_since.get(usize::from(lone_player))?)?;
        Some(since.saturating_add(ttl_ms))
    }

    /// The votes cast so far against `claimable`; none when nobody is claimable or the votes
    /// were against another seat (they do not carry over).
    pub fn votes_against(&self, claimable: Option<Seat>) -> &[Seat] {
        match claimable {
            Some(_) if claimable == self.votes_against => &self.votes,
            _ => &[],
        }
    }

    /// Keeps `voters` as the votes cast against `against`, in place of any earlier ones: the
    /// room state decided that a claim was a vote, not yet a decision.
    pub fn record_votes(&mut self, against: Seat, voters: Vec<Seat>) {
        self.votes_against = Some(against);
        self.votes = voters;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seat 0 is on move; the grace period is 60 s.
    const GRACE: Option<u64> = Some(60_000);

    #[test]
    fn the_last_announced_round_trip_of_each_measured_seat_is_kept() {
        let mut presence = Presence::new(3, 0);
        assert_eq!(presence.lags(), vec![]);
        presence.note_lag(2, 640);
        presence.note_lag(0, 40);
        presence.note_lag(2, 700);
        presence.note_lag(7, 1);
        assert_eq!(presence.lags(), vec![(0, 40), (2, 700)]);
    }

    #[test]
    fn the_seat_on_move_is_claimable_once_away_for_its_grace_period() {
        let mut presence = Presence::new(2, 1_000);
        presence.arrive(0);
        assert_eq!(presence.claimable(Some(0), GRACE, 500_000), None, "here");
        assert!(presence.leave(0, 10_000));
        assert_eq!(presence.claimable(Some(0), GRACE, 69_999), None);
        assert_eq!(presence.claimable(Some(0), GRACE, 70_000), Some(0));
        assert_eq!(
            presence.claimable(Some(1), GRACE, 70_000),
            Some(1),
            "seat 1 has been away since the task started"
        );
        assert_eq!(presence.claimable(Some(0), None, 70_000), None, "untimed");
        assert_eq!(
            presence.claimable(None, GRACE, 70_000),
            None,
            "nobody on move"
        );
    }

    #[test]
    fn only_a_seats_first_arrival_and_last_departure_are_announced() {
        let mut presence = Presence::new(2, 0);
        assert!(presence.arrive(1));
        assert!(!presence.arrive(1));
        assert_eq!(presence.connected(), [false, true]);
        assert!(!presence.leave(1, 5));
        assert!(presence.leave(1, 6));
        assert!(
            !presence.leave(1, 7),
            "a seat with no connection cannot leave"
        );
        assert_eq!(presence.connected(), [false, false]);
        assert!(!presence.arrive(9), "no such seat");
    }

    #[test]
    fn votes_are_void_when_the_seat_returns_or_another_seat_becomes_claimable() {
        let mut presence = Presence::new(3, 0);
        assert!(presence.votes_against(Some(0)).is_empty());
        presence.record_votes(0, vec![1]);
        assert_eq!(presence.votes_against(Some(0)), [1]);
        assert!(
            presence.votes_against(None).is_empty(),
            "nobody is claimable"
        );
        // The claimable seat changed (another seat is on move and away): the votes start afresh.
        assert!(presence.votes_against(Some(2)).is_empty());
        presence.record_votes(2, vec![1, 0]);
        assert_eq!(presence.votes_against(Some(2)), [1, 0]);
        assert!(
            presence.votes_against(Some(0)).is_empty(),
            "replaced by the votes against 2"
        );
        // The seat voted against comes back: its votes are forgotten.
        presence.arrive(2);
        assert!(presence.votes_against(Some(2)).is_empty());
    }

    #[test]
    fn a_waiting_rooms_lone_player_has_until_its_deadline_to_come_back() {
        let mut presence = Presence::new(2, 100);
        assert_eq!(
            presence.lone_player_deadline(0, 300_000),
            Some(300_100),
            "never connected: counted from the task's start"
        );
        presence.arrive(0);
        assert_eq!(presence.lone_player_deadline(0, 300_000), None);
        presence.leave(0, 2_000);
        assert_eq!(presence.lone_player_deadline(0, 300_000), Some(302_000));
    }
}
