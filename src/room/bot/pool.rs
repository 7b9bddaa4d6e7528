//! The bounded pool bots think on.
//!
//! A search is CPU work of up to a level's budget (`Level::budget`, at most 500 ms): run on the
//! tokio workers it would stall every room and socket they serve. So each search runs on tokio's
//! blocking threads (`spawn_blocking`), and a semaphore lets at most `threads` run at once; the
//! others wait their turn in its queue. On this project's 2-core machines one search thread
//! (the default is half the cores) leaves a core to the rooms.
//!
//! Many bot games at once degrade gracefully: a search that starts while others wait gets its
//! level's budget shared with them, `budget × threads / (threads + waiting)`, but never less than
//! [`MIN_BUDGET`], so each bot thinks less and the queue drains at the same pace as bots ask.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;

use crate::bot::{Level, Limits, choose_move};
use crate::rules::AnyGame;
use crate::telemetry;

/// The least time a search is given however long the queue: enough for the engines' first
/// iteration on this project's machines.
pub const MIN_BUDGET: Duration = Duration::from_millis(10);

/// A handle on the pool (cheap to clone; every clone shares the same threads and queue).
#[derive(Clone)]
pub struct BotPool {
    inner: Arc<Inner>,
}

struct Inner {
    threads: usize,
    permits: Arc<Semaphore>,
    waiting: AtomicUsize,
}

impl fmt::Debug for BotPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BotPool")
            .field("threads", &self.inner.threads)
            .field("waiting", &self.waiting())
            .finish()
    }
}

impl BotPool {
    /// A pool running at most `threads` searches at once (at least 1).
    pub fn new(threads: usize) -> Self {
        let threads = threads.max(1);
        BotPool {
            inner: Arc::new(Inner {
                threads,
                permits: Arc::new(Semaphore::new(threads)),
                waiting: AtomicUsize::new(0),
            }),
        }
    }

    /// How many searches wait for a thread now.
    pub fn waiting(&self) -> usize {
        self.inner.waiting.load(Ordering::Relaxed)
    }

    /// The budget of a search at `level` that starts now, with `waiting` searches queued behind it.
    fn budget(&self, level: Level, waiting: usize) -> Duration {
        let threads = u32::try_from(self.inner.threads).unwrap_or(u32::MAX);
        let waiting = u32::try_from(waiting).unwrap_or(u32::MAX);
        let shared = level.budget() * threads / threads.saturating_add(waiting);
        shared.max(MIN_BUDGET)
    }

    /// The move a bot at `level` plays in `game`, searched on the pool once a thread is free; the
    /// deadline counts from the search's start. `None` when nobody is on move, or when the pool's
    /// thread failed (a panic in the engine, logged by tokio). Dropping the future while it waits
    /// leaves the queue; a search already running finishes within its budget and is discarded.
    pub async fn think(&self, game: AnyGame, level: Level, seed: u64) -> Option<String> {
        let queued = Instant::now();
        self.inner.waiting.fetch_add(1, Ordering::Relaxed);
        let permit = self.inner.permits.clone().acquire_owned().await;
        self.inner.waiting.fetch_sub(1, Ordering::Relaxed);
        let permit = permit.ok()?;
        let budget = self.budget(level, self.waiting());
        let search = tokio::task::spawn_blocking(move || {
            // The permit travels with the search: a thread is counted busy until it is done.
            let _permit = permit;
            let started = Instant::now();
            let chosen = choose_move(&game, &Limits::from_now(level, budget, seed));
            telemetry::bot_search(level.get(), started - queued, started.elapsed());
            chosen
        });
        search.await.ok().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_is_shared_with_the_searches_that_wait() {
        let pool = BotPool::new(2);
        let level = Level::MAX;
        assert_eq!(pool.budget(level, 0), Duration::from_millis(500));
        assert_eq!(pool.budget(level, 2), Duration::from_millis(250));
        assert_eq!(pool.budget(level, 18), Duration::from_millis(50));
        assert_eq!(pool.budget(level, 1000), MIN_BUDGET);
    }

    #[tokio::test]
    async fn a_search_on_the_pool_returns_a_legal_move() {
        let pool = BotPool::new(1);
        let game = AnyGame::new(crate::rules::GameKind::OukChatrang, &Default::default())
            .expect("the standard start");
        let mv = pool
            .think(game.clone(), Level::MIN, 7)
            .await
            .expect("a move");
        assert!(crate::rules::Rules::legal_moves(&game).contains(&mv));
    }
}
