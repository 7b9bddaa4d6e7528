//! The correspondence sweep: a correspondence game may leave memory between moves (it waits
//! days), so its flag cannot rest on its room task's deadline alone. Its deadline is in the
//! database (`rooms.flag_at`); once every [`EVERY`] on the rooms' clock this process loads the
//! rooms whose deadline has passed ([`Registry::load_due_correspondence`]), and each one's task
//! flags as it starts, with nobody connected. The wait is on the rooms' [`Clock`], so a test's
//! manual clock drives it too.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tracing::{info, warn};

use super::registry::Registry;
use crate::clock::{Clock, millis};

/// How often the sweep looks: a correspondence flag falls at most this late (a game of days).
pub const EVERY: Duration = Duration::from_secs(60);

/// Sweeps every [`EVERY`] on `clock` until `shutdown` turns true.
pub async fn run(registry: Arc<Registry>, clock: Clock, mut shutdown: watch::Receiver<bool>) {
    let mut unreadable = std::collections::HashSet::new();
    let mut looked_at = clock.now_ms();
    loop {
        // Counted from the clock's reading before the last look, not after it: time that
        // passed during the look (a manual clock moved on) brings the next look sooner.
        let next = looked_at.saturating_add(millis(EVERY));
        tokio::select! {
            () = clock.sleep_until(next) => {}
            _ = shutdown.wait_for(|stop| *stop) => return,
        }
        looked_at = clock.now_ms();
        match registry.load_due_correspondence(&mut unreadable).await {
            Ok(0) => {}
            Ok(rooms) => info!(rooms, "loaded correspondence games whose time ran out"),
            Err(e) => warn!(error = %e, "could not look for correspondence games out of time"),
        }
    }
}
