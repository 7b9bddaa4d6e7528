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
    /// The most search threads a pool takes, whatever it is asked for.
    pub const MAX_THREADS: usize = 1024;

    /// A pool running at most `threads` searches at once (1 to [`BotPool::MAX_THREADS`]).
    pub fn new(threads: usize) -> Self {
        let threads = threads.clamp(1, Self::MAX_THREADS);
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
    /// deadline counts from the search's start, and is at most `cap` away when one is given (a
    /// bot's share of its remaining clock time). `None` when nobody is on move, or when the
    /// pool's thread failed (a panic in the engine, logged by tokio). Dropping the future while
    /// it waits leaves the queue; a search already running finishes within its budget and is
    /// discarded.
    pub async fn think(
        &self,
        game: AnyGame,
        level: Level,
        seed: u64,
        cap: Option<Duration>,
    ) -> Option<String> {
        let queued = Instant::now();
        let permit = {
            let _waiting = Waiting::new(&self.inner.waiting);
            self.inner.permits.clone().acquire_owned().await
        };
        let permit = permit.ok()?;
        let shared = self.budget(level, self.waiting());
        let budget = cap.map_or(shared, |cap| shared.min(cap));
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

/// One search in the queue, counted in `waiting` for as long as this lives: also when the future
/// waiting for a thread is dropped.
struct Waiting<'a>(&'a AtomicUsize);

impl<'a> Waiting<'a> {
    fn new(waiting: &'a AtomicUsize) -> Self {
        waiting.fetch_add(1, Ordering::Relaxed);
        Waiting(waiting)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
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
            .think(game.clone(), Level::MIN, 7, None)
            .await
            .expect("a move");
        assert!(crate::rules::Rules::legal_moves(&game).contains(&mv));
    }

    #[tokio::test]
    async fn a_search_given_up_while_it_waits_leaves_the_queue() {
        let pool = BotPool::new(1);
        let game = AnyGame::new(crate::rules::GameKind::Khan, &Default::default())
            .expect("the standard start");
        let running = tokio::spawn({
            let pool = pool.clone();
            let game = game.clone();
            async move { pool.think(game, Level::MAX, 1, None).await }
        });
        while pool.inner.permits.available_permits() > 0 {
            tokio::task::yield_now().await;
        }
        let queued = tokio::spawn({
            let pool = pool.clone();
            async move { pool.think(game, Level::MAX, 2, None).await }
        });
        while pool.waiting() == 0 {
            tokio::task::yield_now().await;
        }
        queued.abort();
        assert!(queued.await.is_err(), "the queued search was given up");
        assert_eq!(pool.waiting(), 0);
        assert!(running.await.expect("the search ran").is_some());
    }
}
