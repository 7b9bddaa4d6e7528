//! The node's lease: renewed on the database clock every `renew` interval, and watched on this
//! process's monotonic clock, so that the node stops serving its rooms before the lease can run
//! out in the database, however late its renewals are (a slow database, a paused process).
//!
//! A renewal sent at monotonic time `t` that succeeds sets the lease to expire at the database's
//! `now() + ttl`, which is no earlier than `t + ttl`: so counting from the *sending* of the last
//! successful renewal, the node knows a lower bound of its lease's expiry without reading the
//! database's clock. It self-fences `margin` before that bound.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::{Instant, MissedTickBehavior, sleep_until};
use tracing::{info, warn};
use uuid::Uuid;

use super::Lease;
use crate::store::postgres::PgStore;
use crate::telemetry;

/// When a node whose last successful renewal was sent at `renewed_at` must stop serving: `margin`
/// before the earliest moment its lease can expire in the database (`renewed_at + ttl`).
pub fn fence_at(renewed_at: Instant, ttl: Duration, margin: Duration) -> Instant {
    renewed_at + ttl.saturating_sub(margin)
}

/// Whether a node whose last successful renewal was sent at `renewed_at` must have stopped
/// serving by monotonic time `now` (see [`fence_at`]).
pub fn must_fence(renewed_at: Instant, now: Instant, ttl: Duration, margin: Duration) -> bool {
    now >= fence_at(renewed_at, ttl, margin)
}

/// When this node must have stopped serving (see [`fence_at`]), readable by every room task at
/// any moment without waiting for the lease task to run: a process resumed after a pause may run
/// a room task before its lease task, and that room must not serve anything first.
#[derive(Debug)]
pub struct FenceClock {
    base: Instant,
    /// [`fence_at`] of the last successful renewal, in ms after `base`.
    at_ms: AtomicU64,
}

impl FenceClock {
    /// A clock fencing at `at`.
    pub fn new(at: Instant) -> FenceClock {
        let base = Instant::now();
        let clock = FenceClock {
            base,
            at_ms: AtomicU64::new(0),
        };
        clock.set(at);
        clock
    }

    fn set(&self, at: Instant) {
        let ms =
            u64::try_from(at.saturating_duration_since(self.base).as_millis()).unwrap_or(u64::MAX);
        self.at_ms.store(ms, Ordering::Release);
    }

    /// Whether the fence time has passed: the lease may be about to run out in the database.
    pub fn passed(&self) -> bool {
        Instant::now() >= self.base + Duration::from_millis(self.at_ms.load(Ordering::Acquire))
    }
}

/// Renews `node`'s lease every `renew` until the process ends, the first renewal `renew` after
/// `registered_at` (when the registration was sent). Publishes on `lease`: a self-fence (serving
/// off, a new generation, so every room task of the old one stops) when the last success is
/// older than `ttl - renew`, and serving on again after the next successful renewal; `fence`
/// follows every successful renewal.
pub(super) async fn renew(
    store: PgStore,
    node: Uuid,
    ttl: Duration,
    renew: Duration,
    registered_at: Instant,
    lease: watch::Sender<Lease>,
    fence: std::sync::Arc<FenceClock>,
) {
    let margin = renew;
    let mut renewed_at = registered_at;
    let mut ticker = tokio::time::interval_at(registered_at + renew, renew);
    ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        let serving = lease.borrow().serving;
        let renewal = async {
            ticker.tick().await;
            let sent = Instant::now();
            match tokio::time::timeout(renew, store.renew_lease(node, ttl)).await {
                Ok(Ok(())) => Ok(sent),
                Ok(Err(e)) => Err(e.to_string()),
                Err(_) => Err(format!("no answer within {renew:?}")),
            }
        };
        tokio::select! {
            // First, so that a process resumed after a pause fences before anything else.
            biased;
            () = sleep_until(fence_at(renewed_at, ttl, margin)), if serving => {
                warn!(node = %node, "lease not renewed in time: this node stops serving its rooms");
                telemetry::self_fence();
                lease.send_modify(|l| {
                    l.serving = false;
                    l.generation += 1;
                });
            }
            result = renewal => match result {
                Ok(sent) => {
                    renewed_at = sent;
                    fence.set(fence_at(renewed_at, ttl, margin));
                    if !serving && !must_fence(renewed_at, Instant::now(), ttl, margin) {
                        info!(node = %node, "lease renewed again: this node serves rooms again");
                        lease.send_modify(|l| l.serving = true);
                    }
                }
                Err(e) => warn!(node = %node, error = %e, "lease renewal failed"),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TTL: Duration = Duration::from_millis(3000);
    const MARGIN: Duration = Duration::from_millis(1000);

    #[test]
    fn a_node_fences_one_margin_before_its_lease_can_expire() {
        let renewed = Instant::now();
        let at = |ms| renewed + Duration::from_millis(ms);
        assert!(!must_fence(renewed, renewed, TTL, MARGIN));
        assert!(!must_fence(renewed, at(1999), TTL, MARGIN));
        assert!(must_fence(renewed, at(2000), TTL, MARGIN));
        // Long past (a process paused for a minute): fenced, never wrapped around.
        assert!(must_fence(renewed, at(60_000), TTL, MARGIN));
        assert_eq!(fence_at(renewed, TTL, MARGIN), at(2000));
    }

    #[test]
    fn a_renewal_counts_from_when_it_was_sent_and_a_margin_above_the_ttl_fences_at_once() {
        let sent = Instant::now();
        // An answer that took 1.5 s: the lease may run out 3 s after the sending, not the answer.
        let answered = sent + Duration::from_millis(1500);
        assert!(must_fence(
            sent,
            answered + Duration::from_millis(500),
            TTL,
            MARGIN
        ));
        assert!(must_fence(sent, sent, MARGIN, TTL));
    }
}
