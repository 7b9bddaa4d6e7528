//! Computer opponents: choosing a move for the seat on move, at a level from 1 to 5.
//!
//! The engines here are synchronous and have no I/O: they read a game from the rules module and
//! return a move in the game's notation. Levels (see [`Level`]):
//!
//! - 1: a random legal move, every game;
//! - 2 to 5, Ouk Chatrang and Khan: alpha-beta search with iterative deepening and a transposition
//!   table (`search`), deeper at each level, level 5 as deep as its time budget allows;
//! - 2 to 5, Khan-Tsin: Monte Carlo tree search where each player maximises its own result, more
//!   playouts at each level.
//!
//! The only inputs besides the game are [`Limits`]: a deadline (the caller's clock: the server's
//! worker pool gives each search its level's budget, less when many bots wait) and a seed for
//! every random choice, so that a search with a far deadline is repeatable. The server side — the
//! worker pool and the bot seats that play through rooms — is in `crate::room::bot`.

mod khan;
mod khan_tsin;
mod ouk_chatrang;
mod search;

use std::fmt;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::rules::{AnyGame, Rules};

/// A bot's strength: 1 (a random legal move) to 5 (the strongest the engine plays within
/// [`Level::budget`]). On the wire a number, `"level": 3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct Level(u8);

impl Level {
    /// The weakest level: a random legal move.
    pub const MIN: Level = Level(1);
    /// The strongest level.
    pub const MAX: Level = Level(5);

    /// Level `n`; `None` unless 1 <= n <= 5.
    pub fn new(n: u8) -> Option<Level> {
        (Self::MIN.0..=Self::MAX.0).contains(&n).then_some(Level(n))
    }

    /// The level's number, 1 to 5.
    pub fn get(self) -> u8 {
        self.0
    }

    /// Every level, weakest first.
    pub fn all() -> impl Iterator<Item = Level> {
        (Self::MIN.0..=Self::MAX.0).map(Level)
    }

    /// The most one move may take at this level, when the server is not busy. Levels 2 to 4 are
    /// bounded by depth or playouts first and usually answer well within it.
    pub fn budget(self) -> Duration {
        Duration::from_millis(match self.0 {
            1 => 0,
            2 => 60,
            3 => 120,
            4 => 250,
            _ => 500,
        })
    }
}

impl TryFrom<u8> for Level {
    type Error = String;

    fn try_from(n: u8) -> Result<Self, Self::Error> {
        Level::new(n).ok_or_else(|| format!("a bot level is 1 to 5, not {n}"))
    }
}

impl From<Level> for u8 {
    fn from(level: Level) -> u8 {
        level.0
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// What one search may spend, and where its randomness comes from.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The level played.
    pub level: Level,
    /// The search returns its best move so far by this instant (it checks the clock every few
    /// thousand nodes or playouts, so it may overrun by about a millisecond). It always finishes
    /// at least its first iteration, so a past deadline still gives a legal move.
    pub deadline: Instant,
    /// Seeds every random choice (level 1's move, the order of equal moves, playouts): the same
    /// game, level and seed with a deadline that is not reached give the same move.
    pub seed: u64,
}

impl Limits {
    /// Limits for `level` whose deadline is `budget` from now.
    pub fn from_now(level: Level, budget: Duration, seed: u64) -> Self {
        Limits {
            level,
            deadline: Instant::now() + budget,
            seed,
        }
    }
}

/// The move a bot at `limits.level` plays in `game`, in the game's canonical notation (what
/// [`Rules::play`] accepts); `None` when the game is over or nobody is on move.
pub fn choose_move(game: &AnyGame, limits: &Limits) -> Option<String> {
    game.to_move()?;
    match game {
        AnyGame::OukChatrang(game) => ouk_chatrang::choose_move(game, limits),
        AnyGame::Khan(game) => khan::choose_move(game, limits),
        AnyGame::KhanTsin(game) => khan_tsin::choose_move(game, limits),
    }
}

/// A random legal move (level 1, and the fallback of every engine), chosen by `seed`.
fn random_move(game: &impl Rules, seed: u64) -> Option<String> {
    use rand::{Rng, SeedableRng};
    let moves = game.legal_moves();
    if moves.is_empty() {
        return None;
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    Some(moves[rng.random_range(0..moves.len())].clone())
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::rules::{GameKind, GameOptions};

    /// How far past its deadline the speed measurements let a search finish: the clock is read
    /// every few thousand nodes or playouts (about a millisecond apart in a release build, more in
    /// a debug one), and a busy machine may hold the thread a little longer.
    pub(in crate::bot) const DEADLINE_SLACK: Duration = Duration::from_millis(100);

    /// Limits of `level` (1 to 5) with a deadline 30 s away: the engines' depth and playout
    /// limits end their searches, which the seed makes repeatable.
    pub(in crate::bot) fn limits(level: u8, seed: u64) -> Limits {
        Limits::from_now(
            Level::new(level).expect("a level"),
            Duration::from_secs(30),
            seed,
        )
    }

    fn start(kind: GameKind) -> AnyGame {
        AnyGame::new(kind, &GameOptions::default()).expect("the standard start")
    }

    #[test]
    fn the_same_seed_gives_the_same_move_when_the_deadline_is_far() {
        for kind in GameKind::ALL {
            let limits =
                Limits::from_now(Level::new(4).expect("level 4"), Duration::from_secs(60), 42);
            let first = choose_move(&start(kind), &limits);
            assert!(first.is_some(), "{kind}");
            assert_eq!(first, choose_move(&start(kind), &limits), "{kind}");
        }
    }

    #[test]
    fn a_deadline_already_past_still_gives_a_legal_move_at_level_5() {
        for kind in GameKind::ALL {
            let past = Limits {
                level: Level::MAX,
                deadline: Instant::now(),
                seed: 9,
            };
            let mv = choose_move(&start(kind), &past).expect("a move");
            assert!(start(kind).play(&mv).is_ok(), "{kind}: {mv}");
        }
    }

    #[test]
    fn levels_are_1_to_5_on_the_wire() {
        assert_eq!(serde_json::from_str::<Level>("3").ok(), Level::new(3));
        let refused = serde_json::from_str::<Level>("6").unwrap_err().to_string();
        assert!(
            refused.contains("a bot level is 1 to 5, not 6"),
            "{refused}"
        );
        assert!(serde_json::from_str::<Level>("0").is_err());
        assert_eq!(
            Level::all().map(Level::get).collect::<Vec<_>>(),
            [1, 2, 3, 4, 5]
        );
    }
}
