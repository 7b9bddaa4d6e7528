//! Limits on logging in: per account, failed logins in the database (so every node of a cluster
//! counts the same ones; the 11th failure in 15 minutes is refused by default), and per client
//! address, every login and registration attempt in memory (`governor`'s GCRA).
//!
//! Failures are counted by the name tried, whether or not an account has it, so the limit
//! answers alike for both and says nothing about which names exist.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::time::Duration;

use chrono::{DateTime, Utc};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::store::{Store, StoreError};

/// The window in which failed logins of one account are counted.
pub const FAILURE_WINDOW: Duration = Duration::from_secs(15 * 60);

/// Past this many tracked addresses, those whose limit has fully recovered are forgotten.
const TRACKED_ADDRESSES: usize = 10_000;

/// The login limits of one server.
pub struct LoginLimits {
    per_address: DefaultKeyedRateLimiter<IpAddr>,
    failures_per_account: u32,
}

impl LoginLimits {
    /// At most `per_minute` attempts a minute from one address (a burst of as many) and
    /// `failures_per_account` failed logins of one account in [`FAILURE_WINDOW`] (0 counts as 1).
    pub fn new(per_minute: u32, failures_per_account: u32) -> Self {
        let per_minute = NonZeroU32::new(per_minute).unwrap_or(NonZeroU32::MIN);
        LoginLimits {
            per_address: RateLimiter::keyed(Quota::per_minute(per_minute)),
            failures_per_account: failures_per_account.max(1),
        }
    }

    /// Counts an attempt of `ip`; `Err(retry_after)` when it is over its budget.
    pub fn allow_address(&self, ip: IpAddr) -> Result<(), Duration> {
        if self.per_address.len() > TRACKED_ADDRESSES {
            self.per_address.retain_recent();
        }
        self.per_address
            .check_key(&ip)
            .map_err(|not_until| not_until.wait_time_from(DefaultClock::default().now()))
    }

    /// `Err(retry_after)` when the name `name_key` has had its maximum of failed logins in the
    /// window before `now`: until the oldest of them leaves the window.
    pub async fn allow_account(
        &self,
        store: &Store,
        name_key: &str,
        now: DateTime<Utc>,
    ) -> Result<Result<(), Duration>, StoreError> {
        let window = chrono::Duration::from_std(FAILURE_WINDOW).unwrap_or(chrono::Duration::MAX);
        let (count, oldest) = store.login_failures_since(name_key, now - window).await?;
        if count < i64::from(self.failures_per_account) {
            return Ok(Ok(()));
        }
        let free_at = oldest.unwrap_or(now) + window;
        Ok(Err((free_at - now)
            .to_std()
            .unwrap_or(Duration::from_secs(1))))
    }

    /// Counts a failed login of `name_key` at `now` (and forgets its failures older than the
    /// window).
    pub async fn failed(
        &self,
        store: &Store,
        name_key: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let window = chrono::Duration::from_std(FAILURE_WINDOW).unwrap_or(chrono::Duration::MAX);
        store
            .record_login_failure(name_key, now, now - window)
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attempts_are_counted_per_address() {
        let limits = LoginLimits::new(3, 10);
        let (a, b): (IpAddr, IpAddr) = ("192.0.2.1".parse().unwrap(), "192.0.2.2".parse().unwrap());
        for _ in 0..3 {
            assert!(limits.allow_address(a).is_ok());
        }
        let wait = limits.allow_address(a).expect_err("the fourth in a minute");
        assert!(
            wait > Duration::ZERO && wait <= Duration::from_secs(20),
            "{wait:?}"
        );
        assert!(limits.allow_address(b).is_ok(), "another address");
    }

    #[tokio::test]
    async fn the_eleventh_failure_in_the_window_is_refused_until_the_first_leaves_it() {
        let store = Store::connect("sqlite::memory:").await.unwrap();
        let limits = LoginLimits::new(100, 10);
        let start = crate::store::now();
        for i in 0..10 {
            let at = start + chrono::Duration::seconds(i);
            assert_eq!(
                limits.allow_account(&store, "dara", at).await.unwrap(),
                Ok(())
            );
            limits.failed(&store, "dara", at).await.unwrap();
        }
        let now = start + chrono::Duration::seconds(60);
        let wait = limits.allow_account(&store, "dara", now).await.unwrap();
        assert_eq!(wait, Err(FAILURE_WINDOW - Duration::from_secs(60)));
        assert_eq!(
            limits.allow_account(&store, "sok", now).await.unwrap(),
            Ok(())
        );
        let later = start + chrono::Duration::seconds(15 * 60 + 1);
        assert_eq!(
            limits.allow_account(&store, "dara", later).await.unwrap(),
            Ok(()),
            "the first failure has left the window"
        );
    }
}
