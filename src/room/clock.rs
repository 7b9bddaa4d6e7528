//! The time source of game clocks: the system's monotonic clock, or a manual one a test moves.
//!
//! Rooms never read the time themselves: they ask their [`Clock`] for "now" (milliseconds since the
//! clock's own origin) and wait on [`Clock::sleep_until`] for a seat's deadline, so a test can run
//! a whole timed game, flags included, without sleeping: [`Clock::advance`] moves a manual clock
//! and wakes every room waiting on it. (`tokio::time::pause` would not do: paused time jumps ahead
//! whenever the runtime waits on the database's socket.) A manual clock is shared by every room of
//! a server and survives the server, so a test can stop a server, advance the clock, and start
//! another over the same database.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

/// Where rooms read the time for game clocks. Cheap to clone; clones share one time.
#[derive(Clone, Debug)]
pub enum Clock {
    /// The system's monotonic clock, counted from when this value was made.
    System(tokio::time::Instant),
    /// A clock that moves only by [`Clock::advance`] (tests).
    Manual(Arc<watch::Sender<u64>>),
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
        Clock::Manual(Arc::new(watch::Sender::new(0)))
    }

    /// Milliseconds since the clock's origin.
    pub fn now_ms(&self) -> u64 {
        match self {
            Clock::System(origin) => {
                u64::try_from(origin.elapsed().as_millis()).unwrap_or(u64::MAX)
            }
            Clock::Manual(now) => *now.borrow(),
        }
    }

    /// Moves a manual clock forward by `by`, waking every waiter whose deadline has come. Does
    /// nothing to the system clock.
    pub fn advance(&self, by: Duration) {
        if let Clock::Manual(now) = self {
            let by = u64::try_from(by.as_millis()).unwrap_or(u64::MAX);
            now.send_modify(|ms| *ms = ms.saturating_add(by));
        }
    }

    /// Waits until [`Clock::now_ms`] reaches `deadline_ms` (a deadline timer: nothing polls).
    pub async fn sleep_until(&self, deadline_ms: u64) {
        match self {
            Clock::System(origin) => {
                tokio::time::sleep_until(*origin + Duration::from_millis(deadline_ms)).await;
            }
            Clock::Manual(now) => {
                let mut watching = now.subscribe();
                // The sender lives as long as this clock, so this ends only at the deadline.
                let _ = watching.wait_for(|ms| *ms >= deadline_ms).await;
            }
        }
    }
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
}
