//! The time source of rooms: the system's clocks, or a manual one a test moves.
//!
//! Rooms never read the time themselves: they ask their [`Clock`] for "now" (milliseconds since the
//! clock's own origin, or [`Clock::now_utc`] for a wall-clock reading) and wait on
//! [`Clock::sleep_until`] for every deadline (a seat's flag, a waiting room's expiry, leaving memory
//! when idle), so a test can run a whole timed game, flags included, or let a room expire, without
//! sleeping: [`Clock::advance`] moves a manual clock and wakes every room waiting on it. (`tokio::time::pause` would not do: paused time jumps ahead
//! whenever the runtime waits on the database's socket.) A manual clock is shared by every room of
//! a server and survives the server, so a test can stop a server, advance the clock, and start
//! another over the same database.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Timelike, Utc};
use tokio::sync::watch;

/// Where rooms read the time. Cheap to clone; clones share one time.
#[derive(Clone, Debug)]
pub enum Clock {
    /// The system's monotonic clock, counted from when this value was made, and its wall clock.
    System(tokio::time::Instant),
    /// A clock that moves only by [`Clock::advance`] (tests): its milliseconds, and the wall-clock
    /// time its 0 ms stands for (when it was made).
    Manual(Arc<watch::Sender<u64>>, DateTime<Utc>),
}

impl Default for Clock {
    fn default() -> Self {
        Clock::system()
    }
}

impl Clock {
    /// The system clock, from now.
    pub fn system() -> Self {
        Clock::System(tokio::time::Instant::now())
    }

    /// A manual clock at 0 ms.
    pub fn manual() -> Self {
        Clock::Manual(Arc::new(watch::Sender::new(0)), micros(Utc::now()))
    }

    /// Milliseconds since the clock's origin.
    pub fn now_ms(&self) -> u64 {
        match self {
            Clock::System(origin) => millis(origin.elapsed()),
            Clock::Manual(now, _) => *now.borrow(),
        }
    }

    /// The wall-clock time now (UTC, whole microseconds: what the store keeps). A manual clock
    /// gives the time it was made plus its milliseconds, so its dates move only with it.
    pub fn now_utc(&self) -> DateTime<Utc> {
        match self {
            Clock::System(_) => micros(Utc::now()),
            Clock::Manual(now, origin) => {
                let ms = i64::try_from(*now.borrow()).unwrap_or(i64::MAX);
                *origin + chrono::Duration::milliseconds(ms)
            }
        }
    }

    /// Moves a manual clock forward by `by`, waking every waiter whose deadline has come. Does
    /// nothing to the system clock.
    pub fn advance(&self, by: Duration) {
        if let Clock::Manual(now, _) = self {
            let by = millis(by);
            now.send_modify(|ms| *ms = ms.saturating_add(by));
        }
    }

    /// Waits until [`Clock::now_ms`] reaches `deadline_ms` (a deadline timer: nothing polls).
    pub async fn sleep_until(&self, deadline_ms: u64) {
        match self {
            Clock::System(origin) => {
                tokio::time::sleep_until(*origin + Duration::from_millis(deadline_ms)).await;
            }
            Clock::Manual(now, _) => {
                let mut watching = now.subscribe();
                // The sender lives as long as this clock, so this ends only at the deadline.
                let _ = watching.wait_for(|ms| *ms >= deadline_ms).await;
            }
        }
    }
}

/// `d` in whole milliseconds, as clocks count (at most `u64::MAX`).
pub fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// `t` without its sub-microsecond part.
fn micros(t: DateTime<Utc>) -> DateTime<Utc> {
    t.with_nanosecond(t.nanosecond() / 1_000 * 1_000)
        .unwrap_or(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_manual_clock_wakes_its_waiters_only_at_their_deadline() {
        let clock = Clock::manual();
        let waiter = tokio::spawn({
            let clock = clock.clone();
            async move { clock.sleep_until(1_500).await }
        });
        clock.advance(Duration::from_millis(1_000));
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished());
        clock.advance(Duration::from_millis(500));
        waiter.await.unwrap();
        assert_eq!(clock.now_ms(), 1_500);
    }

    #[test]
    fn a_manual_clocks_wall_time_moves_only_with_it() {
        let clock = Clock::manual();
        let start = clock.now_utc();
        assert_eq!(clock.now_utc(), start);
        clock.advance(Duration::from_millis(2_500));
        assert_eq!(
            clock.now_utc() - start,
            chrono::Duration::milliseconds(2_500)
        );
    }
}
