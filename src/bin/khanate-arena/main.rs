//! `khanate-arena`: measures the bot levels' strength by playing them against each other (or Ouk
//! Chatrang against an external UCI engine such as Fairy-Stockfish) directly through the library,
//! without a server.
//!
//! Games come in groups that share one random opening (`--opening-plies` seeded random legal
//! moves), one game per seat assignment: with two players side A holds seat `i % 2` in game `i`;
//! with three (Khan-Tsin), side B (the higher level) holds seat `i % 3` and side A the two
//! others. Every move is the level's `choose_move` with a deadline of its budget, timed. The
//! report (a Markdown table, and the same numbers with every game as JSON with `--json`) gives
//! B's wins, draws and losses, its score with a 95% Wilson interval, games capped at
//! `--max-plies`, and think times.

mod arena;
mod report;
mod uci;

use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::{Parser, ValueEnum};
use khanate::bot::Level;
use khanate::rules::GameKind;

use arena::{MatchSpec, Side};
use report::{MatchReport, Summary};

#[derive(Parser, Debug)]
#[command(
    name = "khanate-arena",
    version,
    about = "Plays bot levels against each other (or an external UCI engine) and reports their \
             strength",
    after_help = "Each move gets its level's full time budget, which assumes a free CPU core per \
                  game: keep --threads at 1 (the default) or below the number of idle cores, or \
                  the higher levels search less than they would in play."
)]
struct Args {
    /// The game played.
    #[arg(long, value_enum)]
    game: Game,
    /// Side A's bot level, 1 to 5 (the lower one; default 4). Not with --uci, which replaces it.
    #[arg(long)]
    a: Option<u8>,
    /// Side B's bot level, 1 to 5 (the higher one).
    #[arg(long, default_value_t = 5)]
    b: u8,
    /// Games per match; a multiple of the number of seats keeps the colours balanced.
    #[arg(long, default_value_t = 50)]
    games: usize,
    /// Seats: 2, or 3 for khan-tsin (one seat B, two seats A, B's seat rotating).
    #[arg(long, default_value_t = 2)]
    players: u8,
    /// Games played at once, each on its own thread. The levels' time budgets assume a free core
    /// per game, so more threads than idle cores weakens the higher levels.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Random legal moves that open each group of games (the same for every seat assignment).
    #[arg(long, default_value_t = 4)]
    opening_plies: usize,
    /// Plies after which a game stops as a draw, counted as capped (default: 600 for
    /// ouk-chatrang and khan, 400 for khan-tsin).
    #[arg(long)]
    max_plies: Option<usize>,
    /// Seeds the openings and every bot move: the same seed replays the same games when no
    /// search reaches its deadline (level 1 always).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Plays 1 v 2, 2 v 3, 3 v 4 and 4 v 5, --games each, into one table.
    #[arg(long, conflicts_with_all = ["a", "b", "uci"])]
    ladder: bool,
    /// An external UCI engine (e.g. /usr/games/fairy-stockfish) as side A; ouk-chatrang only,
    /// played as the engine's `cambodian` variant.
    #[arg(long)]
    uci: Option<PathBuf>,
    /// The depth the UCI engine searches each move to (`go depth D`).
    #[arg(long, default_value_t = 1, requires = "uci")]
    uci_depth: u32,
    /// When the rules refuse a move of the UCI engine (Fairy-Stockfish 11.1's `cambodian`
    /// differs from our rules in a few details), list it in the report and search again among
    /// the rules' legal moves (`go ... searchmoves`), instead of stopping with an error.
    #[arg(long, requires = "uci")]
    uci_retry_refused: bool,
    /// Also write the report, with every game's moves and seats, as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Game {
    OukChatrang,
    Khan,
    KhanTsin,
}

impl Game {
    fn kind(self) -> GameKind {
        match self {
            Game::OukChatrang => GameKind::OukChatrang,
            Game::Khan => GameKind::Khan,
            Game::KhanTsin => GameKind::KhanTsin,
        }
    }

    /// Long enough that a game between engines rarely reaches it: Ouk Chatrang's counting rules
    /// end most endgames well before, Khan-Tsin races are shorter.
    fn default_max_plies(self) -> usize {
        match self {
            Game::OukChatrang | Game::Khan => 600,
            Game::KhanTsin => 400,
        }
    }
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let specs = specs(&args)?;
    let mut reports = Vec::new();
    for spec in specs {
        eprintln!(
            "playing {} v {}: {} games of {}",
            spec.a.label(),
            spec.b.label(),
            spec.games,
            spec.game
        );
        let records = spec.play()?;
        let summary = Summary::of(&records, spec.players);
        reports.push(MatchReport {
            spec,
            summary,
            records,
        });
    }
    print!("{}", report::markdown(&reports));
    if let Some(path) = &args.json {
        let json = serde_json::json!({ "matches": reports });
        std::fs::write(path, serde_json::to_string_pretty(&json)? + "\n")
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// The matches the arguments ask for, after checking them.
fn specs(args: &Args) -> anyhow::Result<Vec<MatchSpec>> {
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    if args.threads == 0 {
        bail!("--threads must be at least 1");
    }
    let three = matches!(args.game, Game::KhanTsin) && args.players == 3;
    if args.players != 2 && !three {
        bail!("--players is 2, or 3 for khan-tsin");
    }
    let max_plies = args
        .max_plies
        .unwrap_or_else(|| args.game.default_max_plies());
    let spec = |a: Side, b: Side| MatchSpec {
        game: args.game.kind(),
        players: args.players,
        a,
        b,
        games: args.games,
        opening_plies: args.opening_plies,
        max_plies,
        seed: args.seed,
        threads: args.threads,
        uci_retry_refused: args.uci_retry_refused,
    };
    let level = |n: u8| -> anyhow::Result<Side> {
        Level::new(n).with_context(|| format!("a level is 1 to 5, not {n}"))?;
        Ok(Side::Level { level: n })
    };
    if args.ladder {
        return (1..5).map(|n| Ok(spec(level(n)?, level(n + 1)?))).collect();
    }
    let b = level(args.b)?;
    let a = match &args.uci {
        Some(path) => {
            if !matches!(args.game, Game::OukChatrang) {
                bail!("--uci plays ouk-chatrang only");
            }
            if args.a.is_some() {
                bail!("--uci replaces side A; leave out --a");
            }
            Side::Uci {
                path: path.clone(),
                depth: args.uci_depth,
            }
        }
        None => level(args.a.unwrap_or(4))?,
    };
    Ok(vec![spec(a, b)])
}
