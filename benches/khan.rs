//! Speed of the Khan rules: listing the legal moves (the server does it after every move), the
//! size of the move tree against the flat list, and perft from the start position. One thread.
//! Run: `cargo bench --bench khan`.
//!
//! The positions come from random playouts driven by a small xorshift generator with a fixed seed
//! (here only: the rules module itself has no randomness), so every run measures the same
//! positions.
//!
//! `cargo test --all-targets` runs this binary too, without `--bench`: it then only checks a few
//! counts and a few playouts, so the test suite keeps the benchmark working.

use std::hint::black_box;
use std::time::Instant;

mod common;

use common::{Xorshift, playout_positions, report_listing, summary, time_each};
use khanate::rules::Rules;
use khanate::rules::khan::{Game, MAX_LISTED, Position, perft, turn_perft};

fn sizes(name: &str, game: &Game) {
    let list = serde_json::to_string(&game.legal_moves()).unwrap_or_default();
    let tree = serde_json::to_string(&game.legal_moves_json()).unwrap_or_default();
    println!(
        "{name}: {} moves; flat list {} bytes, tree {} bytes ({:.0}%)\n  {}",
        game.legal_moves().len(),
        list.len(),
        tree.len(),
        100.0 * tree.len() as f64 / list.len().max(1) as f64,
        game.position()
    );
}

fn check(name: &str, got: u64, want: Option<u64>, seconds: f64) -> bool {
    let verdict = match want {
        Some(want) if want != got => format!("  WRONG: expected {want}"),
        Some(_) => "  ok".to_owned(),
        None => String::new(),
    };
    println!("{name:<22} {got:>12} {seconds:>9.3} s{verdict}");
    want.is_none_or(|want| want == got)
}

fn main() {
    let benchmarking = std::env::args().any(|arg| arg == "--bench");
    let start = Position::start();
    let mut ok = true;

    println!("{:<22} {:>12} {:>11}", "count", "nodes", "time");
    let mut rows: Vec<(&str, u32, Option<u64>, bool)> = vec![
        ("perft", 1, Some(204), false),
        ("perft", 2, Some(41_616), false),
        ("turn perft", 1, Some(130), true),
        ("turn perft", 2, Some(16_900), true),
    ];
    if benchmarking {
        rows.push(("perft", 3, None, false));
        rows.push(("turn perft", 3, Some(2_307_760), true));
    }
    for (name, depth, want, turns) in rows {
        let started = Instant::now();
        let nodes = if turns {
            turn_perft(black_box(&start), depth)
        } else {
            perft(black_box(&start), depth)
        };
        ok &= check(
            &format!("{name} {depth}"),
            nodes,
            want,
            started.elapsed().as_secs_f64(),
        );
    }

    let (games, plies, rounds) = if benchmarking {
        (200, 300, 3)
    } else {
        (2, 40, 1)
    };
    let mut rng = Xorshift(0x9E37_79B9_7F4A_7C15);
    let positions = playout_positions(Game::new, games, plies, 0, &mut rng);
    let truncated = positions
        .iter()
        .filter(|(_, g)| g.listing().max_landings().is_some())
        .count();
    let games_only: Vec<Game> = positions.iter().map(|(_, g)| g.clone()).collect();
    println!();
    report_listing(
        &format!(
            "positions from {games} random playouts of at most {plies} turns, {truncated} over the {MAX_LISTED}-move limit"
        ),
        &games_only,
        rounds,
    );
    let walk = time_each(&positions, rounds, |(_, g)| g.listing().len());
    println!("listing walk only, µs: {}", summary(walk));
    let tree = time_each(&positions, rounds, |(_, g)| {
        g.legal_moves_json().as_object().map_or(0, |m| m.len())
    });
    println!("legal_moves_json (tree), µs: {}", summary(tree));
    let counts: Vec<usize> = positions.iter().map(|(_, g)| g.listing().len()).collect();
    let mut sorted = counts.clone();
    sorted.sort_unstable();
    if let (Some(median), Some(max)) = (sorted.get(sorted.len() / 2), sorted.last()) {
        println!("moves listed per position: median {median}, max {max}");
    }

    println!();
    sizes("start", &Game::new());
    // The crowded mid-game position: the one with the most listed moves between turns 20 and 60
    // among positions with at least 40 pieces and a complete list.
    let crowded = positions
        .iter()
        .filter(|(ply, g)| {
            (20..=60).contains(ply)
                && g.current().board().occupied().count_ones() >= 40
                && g.listing().max_landings().is_none()
        })
        .max_by_key(|(_, g)| g.listing().len());
    if let Some((ply, game)) = crowded {
        sizes(&format!("crowded (turn {ply})"), game);
    }

    // The worst case the limit is there for: a lattice position with about a million chains.
    let lattice = "10/10/10/1S1s1S4/sSsSsSs3/1S1s1S4/sSsSsSs3/1S1s1S4/sSsSsSs3/KS1S1S4 w";
    if let Ok(game) = Game::from_text(lattice) {
        let started = Instant::now();
        let listed = black_box(game.legal_moves_json());
        println!(
            "\nlattice position ({} moves listed, chains up to {:?} landings): tree in {:.0} µs",
            khanate::rules::khan::flatten_move_tree(&listed).len(),
            game.listing().max_landings(),
            started.elapsed().as_secs_f64() * 1e6
        );
    }

    if !ok {
        std::process::exit(1);
    }
}
