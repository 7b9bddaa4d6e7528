//! Speed of the Ouk Chatrang rules, one thread: perft of the move generator, bulk counting (as
//! Fairy-Stockfish's `go perft` counts), and listing the legal moves the way the server does after
//! every move (`Rules::legal_moves` of a `Game`: sorted UCI strings) over the positions of
//! fixed-seed random games. Run: `cargo bench --bench perft`. Prints nodes, seconds and nodes per
//! second for each row; rows whose count the rules file gives are checked too.
//!
//! `cargo test --all-targets` runs this binary too, without `--bench`: it then only checks the
//! depth-4 rows and lists the moves of a few games, so the test suite keeps the benchmark working
//! without paying for perft 6 in a debug build.

mod common;

use std::hint::black_box;
use std::time::Instant;

use common::{Xorshift, playout_positions, report_listing};
use khanate::rules::ouk_chatrang::{Game, Position, perft};

/// (name, FEN, depth, expected nodes if the rules file gives them)
const ROWS: &[(&str, &str, u32, Option<u64>)] = &[
    ("start", START, 5, Some(8_597_966)),
    ("start", START, 6, Some(204_583_970)),
    (
        "in check",
        "r1s1ks1r/3nm3/pppNpppp/3n4/5P2/PPPPPNPP/8/R1SKMS1R b DEe - 0 5",
        4,
        Some(65_858),
    ),
    (
        "in check",
        "r1s1ks1r/3nm3/pppNpppp/3n4/5P2/PPPPPNPP/8/R1SKMS1R b DEe - 0 5",
        5,
        None,
    ),
    (
        "only e8d7",
        "rnsmks1r/4n3/pppNpppp/3p4/8/PPPPPPPP/8/R1SKMSNR b DEde - 1 3",
        4,
        Some(20_997),
    ),
    (
        "only e8d7",
        "rnsmks1r/4n3/pppNpppp/3p4/8/PPPPPPPP/8/R1SKMSNR b DEde - 1 3",
        5,
        None,
    ),
    (
        "e4 d5",
        "rnsmksnr/8/ppp1pppp/3p4/4P3/PPPP1PPP/8/RNSKMSNR w DEde - 0 2",
        4,
        Some(501_927),
    ),
    (
        "e4 d5",
        "rnsmksnr/8/ppp1pppp/3p4/4P3/PPPP1PPP/8/RNSKMSNR w DEde - 0 2",
        5,
        None,
    ),
    (
        "rook e2",
        "rnsmk1nr/4s3/pppppppp/8/8/PPPPPPPP/4R3/1NSKMSNR b DEd - 3 2",
        4,
        Some(270_993),
    ),
    (
        "rook e2",
        "rnsmk1nr/4s3/pppppppp/8/8/PPPPPPPP/4R3/1NSKMSNR b DEd - 3 2",
        5,
        None,
    ),
    (
        "rook d7",
        "1nsmksnr/3r4/pppppppp/8/8/PPPPPPPP/2SN4/R2KMSNR w Ede - 4 3",
        4,
        Some(392_200),
    ),
    (
        "rook d7",
        "1nsmksnr/3r4/pppppppp/8/8/PPPPPPPP/2SN4/R2KMSNR w Ede - 4 3",
        5,
        None,
    ),
    (
        "rook a8",
        "Rnsmksnr/8/1ppppppp/8/8/1PPPPPPP/8/1NSKMSNR b DEd - 0 1",
        4,
        Some(463_348),
    ),
    (
        "rook a8",
        "Rnsmksnr/8/1ppppppp/8/8/1PPPPPPP/8/1NSKMSNR b DEd - 0 1",
        5,
        None,
    ),
];

const START: &str = "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1";

fn main() {
    println!(
        "{:<10} {:>5} {:>12} {:>9} {:>14}",
        "position", "depth", "nodes", "seconds", "nodes/second"
    );
    let benchmarking = std::env::args().any(|arg| arg == "--bench");
    let mut failed = false;
    for &(name, fen, depth, expected) in ROWS.iter().filter(|row| benchmarking || row.2 <= 4) {
        let pos = match Position::from_fen(fen) {
            Ok(pos) => pos,
            Err(err) => {
                eprintln!("{name}: {err}");
                std::process::exit(1);
            }
        };
        let started = Instant::now();
        let nodes = perft(black_box(&pos), black_box(depth));
        let seconds = started.elapsed().as_secs_f64();
        let check = match expected {
            Some(want) if want != nodes => {
                failed = true;
                format!("  WRONG: expected {want}")
            }
            Some(_) => "  ok".to_string(),
            None => String::new(),
        };
        println!(
            "{name:<10} {depth:>5} {nodes:>12} {seconds:>9.3} {:>14.0}{check}",
            nodes as f64 / seconds
        );
    }
    let (games, rounds) = if benchmarking { (200, 3) } else { (5, 1) };
    let positions: Vec<Game> =
        playout_positions(Game::new, games, 400, 0, &mut Xorshift(0x5eed_0c7a))
            .into_iter()
            .map(|(_, game)| game)
            .collect();
    report_listing(
        &format!("positions from {games} random games"),
        &positions,
        rounds,
    );
    if failed {
        std::process::exit(1);
    }
}
