//! Playing the games of a match: seats, shared openings, the moves of each side, the threads.

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail};
use khanate::bot::{self, Level, Limits};
use khanate::rules::{AnyGame, GameKind, GameOptions, Rules, Seat};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;

use crate::uci::Engine;

/// Which side of a match a seat belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The lower level, or the UCI engine.
    A,
    /// The higher level.
    B,
}

/// Who plays one side of a match.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Side {
    /// A Khanate bot level.
    Level { level: u8 },
    /// An external UCI engine searching to a fixed depth.
    Uci { path: PathBuf, depth: u32 },
}

impl Side {
    /// How the report names the side, e.g. `L4` or `fairy-stockfish d2`.
    pub fn label(&self) -> String {
        match self {
            Side::Level { level } => format!("L{level}"),
            Side::Uci { path, depth } => format!(
                "{} d{depth}",
                path.file_name().unwrap_or_default().to_string_lossy()
            ),
        }
    }
}

/// Everything that decides a match's games.
#[derive(Clone, Debug, Serialize)]
pub struct MatchSpec {
    /// The game played.
    pub game: GameKind,
    /// Seats per game: 2, or 3 for Khan-Tsin.
    pub players: u8,
    /// The side on the seats B does not hold.
    pub a: Side,
    /// The side whose score the report gives.
    pub b: Side,
    /// Games in the match.
    pub games: usize,
    /// Random plies opening each group of games.
    pub opening_plies: usize,
    /// Plies after which a game stops as a capped draw.
    pub max_plies: usize,
    /// The seed of the openings and of every bot move.
    pub seed: u64,
    /// Games played at once.
    pub threads: usize,
    /// When the rules refuse a UCI engine's move: record it and search again among the rules'
    /// legal moves, instead of stopping with an error.
    pub uci_retry_refused: bool,
}

/// An engine move the rules refused.
#[derive(Serialize)]
pub struct Refusal {
    /// Plies played before it.
    pub ply: usize,
    /// The position, in the rules' notation.
    pub position: String,
    /// The move the engine chose.
    pub engine_move: String,
    /// Why the rules refused it.
    pub error: String,
}

/// One game as played.
#[derive(Serialize)]
pub struct GameRecord {
    /// The game's number in the match, from 0.
    pub index: usize,
    /// The side holding each seat, seat 0 first.
    pub seats: Vec<Role>,
    /// The games sharing this game's opening have the same group.
    pub opening_group: usize,
    /// How many of `moves` were the random opening.
    pub opening_plies: usize,
    /// Every move from the start, in the game's notation.
    pub moves: Vec<String>,
    /// The winning seat; `None` for a draw.
    pub winner_seat: Option<Seat>,
    /// The side holding the winning seat; `None` for a draw.
    pub winner: Option<Role>,
    /// The rules' end reason, or `max_plies` for a capped game.
    pub reason: String,
    /// The game reached `max_plies` undecided (and counts as a draw).
    pub capped: bool,
    /// With a UCI engine: how many of its moves it searched from our FEN instead of the start
    /// and the moves, because its special-move rights (FEN field 3) came out different.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub engine_rights_differ: Option<usize>,
    /// With `uci_retry_refused`: the engine moves the rules refused, each followed by a search
    /// limited to the rules' legal moves.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<Refusal>,
    /// The think time of every move after the opening, with the side that made it.
    #[serde(skip)]
    pub think: Vec<(Role, Duration)>,
}

impl MatchSpec {
    /// The seat assignments that follow one another: with two players A holds seat `i % 2`;
    /// with three, B holds seat `i % 3` and A the two others. The games of one cycle share
    /// their opening, so each side meets the same opening from every seat.
    fn cycle(&self) -> usize {
        usize::from(self.players)
    }

    fn b_seat(&self, index: usize) -> Seat {
        let seat = if self.players == 2 {
            1 - index % 2
        } else {
            index % 3
        };
        seat as Seat
    }

    /// Plays every game, `threads` at a time; the records come back in game order. The first
    /// error stops the match.
    pub fn play(&self) -> anyhow::Result<Vec<GameRecord>> {
        let next = AtomicUsize::new(0);
        let failed = AtomicBool::new(false);
        let records = Mutex::new(Vec::with_capacity(self.games));
        let errors = Mutex::new(Vec::new());
        std::thread::scope(|scope| {
            for _ in 0..self.threads.min(self.games).max(1) {
                scope.spawn(|| {
                    // Each thread has its own engine process, started at its first game.
                    let mut engine = None;
                    while !failed.load(Ordering::Relaxed) {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        if index >= self.games {
                            break;
                        }
                        match self.play_game(index, &mut engine) {
                            Ok(record) => {
                                // Progress on standard error: a match of the higher levels
                                // takes many minutes.
                                eprintln!(
                                    "game {}/{}: {}, {} plies",
                                    index + 1,
                                    self.games,
                                    match record.winner {
                                        Some(Role::A) => "A won",
                                        Some(Role::B) => "B won",
                                        None => "drawn",
                                    },
                                    record.moves.len()
                                );
                                records.lock().expect("records").push(record);
                            }
                            Err(error) => {
                                failed.store(true, Ordering::Relaxed);
                                errors.lock().expect("errors").push(error);
                            }
                        }
                    }
                });
            }
        });
        if let Some(error) = errors.into_inner().expect("errors").into_iter().next() {
            return Err(error);
        }
        let mut records = records.into_inner().expect("records");
        records.sort_by_key(|r| r.index);
        Ok(records)
    }

    fn play_game(&self, index: usize, engine: &mut Option<Engine>) -> anyhow::Result<GameRecord> {
        let options = GameOptions {
            players: Some(self.players),
            ..GameOptions::default()
        };
        let mut game = AnyGame::new(self.game, &options)?;
        let start = game.position();
        let b_seat = self.b_seat(index);
        let seats: Vec<Role> = (0..self.players)
            .map(|s| if s == b_seat { Role::B } else { Role::A })
            .collect();
        let group = index / self.cycle();

        let mut moves = Vec::new();
        let mut rng = StdRng::seed_from_u64(mix(self.seed, group as u64, u64::MAX));
        while moves.len() < self.opening_plies && game.to_move().is_some() {
            let legal = game.legal_moves();
            if legal.is_empty() {
                break;
            }
            let mv = &legal[rng.random_range(0..legal.len())];
            let applied = game
                .play(mv)
                .map_err(|e| anyhow!("opening move {mv} refused in {}: {e}", game.position()))?;
            moves.push(applied.notation);
        }
        let opening_plies = moves.len();

        let mut think = Vec::new();
        let mut capped = false;
        let mut new_game = true;
        let mut refused = Vec::new();
        let mut engine_rights_differ = matches!(
            (&self.a, &self.b),
            (Side::Uci { .. }, _) | (_, Side::Uci { .. })
        )
        .then_some(0);
        while let Some(seat) = game.to_move() {
            if moves.len() >= self.max_plies {
                capped = true;
                break;
            }
            let role = seats[usize::from(seat)];
            let side = if role == Role::A { &self.a } else { &self.b };
            let position = game.position();
            let seed = mix(self.seed, index as u64, moves.len() as u64);
            let (mv, took) = match side {
                Side::Level { level } => {
                    let level = Level::new(*level).context("a level is 1 to 5")?;
                    let started = Instant::now();
                    let limits = Limits::from_now(level, level.budget(), seed);
                    (bot::choose_move(&game, &limits), started.elapsed())
                }
                Side::Uci { path, depth } => {
                    // Starting the engine and the new-game handshake are not thinking.
                    if engine.is_none() {
                        *engine = Some(Engine::start(path, "cambodian")?);
                    }
                    let engine = engine.as_mut().context("the engine was started above")?;
                    if new_game {
                        engine.new_game()?;
                        new_game = false;
                    }
                    let started = Instant::now();
                    let held = engine.set_position(&start, &moves)?;
                    if rights_differ(&held, &position, &moves)? {
                        // The engine's own rules kept a right ours removed (see
                        // `rights_differ`): give it our position, rights included, so that it
                        // only considers moves our rules allow (losing the history it would use
                        // for repetitions).
                        let held = engine.set_position(&position, &[])?;
                        if rights_differ(&held, &position, &moves)? {
                            bail!("the engine holds {held:?} when given the FEN {position:?}");
                        }
                        if let Some(count) = &mut engine_rights_differ {
                            *count += 1;
                        }
                    }
                    let mut best = engine.best_move(*depth, None)?;
                    if self.uci_retry_refused
                        && let Some(mv) = &best
                        && let Err(error) = game.clone().play(mv)
                    {
                        refused.push(Refusal {
                            ply: moves.len(),
                            position: position.clone(),
                            engine_move: mv.clone(),
                            error: error.to_string(),
                        });
                        best = engine.best_move(*depth, Some(&game.legal_moves()))?;
                    }
                    (best, started.elapsed())
                }
            };
            think.push((role, took));
            let Some(mv) = mv else {
                bail!(
                    "{} (seat {seat}) gave no move in game {index} at ply {}, position {position} \
                     (moves from the start: {})",
                    side.label(),
                    moves.len(),
                    listed(&moves)
                );
            };
            let applied = game.play(&mv).map_err(|e| {
                anyhow!(
                    "{} (seat {seat}) played {mv:?}, refused by the rules ({e}), in game {index} \
                     at ply {}, position {position} (moves from the start: {})",
                    side.label(),
                    moves.len(),
                    listed(&moves)
                )
            })?;
            moves.push(applied.notation);
        }
        let outcome = game.outcome();
        let winner_seat = outcome.and_then(|o| o.winner);
        Ok(GameRecord {
            index,
            seats: seats.clone(),
            opening_group: group,
            opening_plies,
            moves,
            winner_seat,
            winner: winner_seat.map(|s| seats[usize::from(s)]),
            reason: match outcome {
                Some(o) => o.reason.as_str().to_string(),
                None if capped => "max_plies".to_string(),
                None => bail!("game {index} stopped without an outcome"),
            },
            capped,
            engine_rights_differ,
            refused,
            think,
        })
    }
}

/// Fails unless the engine's FEN has the same placement and side to move as ours: a mismatch
/// means the engine did not read all the moves it was sent. Returns whether the special-move
/// rights (the third field) differ, which is no error: Fairy-Stockfish 11.1 keeps a King's leap
/// right that O-14 (c) removes when an enemy rook moves onto the King's rank or file.
fn rights_differ(engine_fen: &str, ours: &str, moves: &[String]) -> anyhow::Result<bool> {
    let fields = |fen: &str| {
        fen.split_whitespace()
            .take(3)
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let (theirs, mine) = (fields(engine_fen), fields(ours));
    if theirs.get(..2) != mine.get(..2) {
        bail!(
            "the engine reads the position as {engine_fen:?} but the rules have {ours:?} after \
             the moves {}",
            listed(moves)
        );
    }
    Ok(theirs.get(2) != mine.get(2))
}

/// `moves` for an error message.
fn listed(moves: &[String]) -> String {
    if moves.is_empty() {
        "none".to_string()
    } else {
        moves.join(" ")
    }
}

/// A well-spread seed from the match seed and two numbers (SplitMix64 steps), so that games,
/// plies and openings each draw their own randomness.
fn mix(seed: u64, x: u64, y: u64) -> u64 {
    let step = |mut z: u64| {
        z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    step(step(step(seed) ^ x) ^ y)
}
