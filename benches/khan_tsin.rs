//! Speed of the Khan-Tsin rules: listing the legal moves (the server does it after every move) over
//! positions from fixed-seed random games of 2 and 3 players, and perft from the start positions
//! and the rules file's positions. One thread. Run: `cargo bench --bench khan_tsin`.
//!
//! `cargo test --all-targets` runs this binary too, without `--bench`: it then only checks the
//! rules file's depth-2 counts and lists the moves of a few games.

mod common;

use std::hint::black_box;
use std::time::Instant;

use common::{Xorshift, playout_positions, report_listing};
use khanate::rules::GameOptions;
use khanate::rules::khan_tsin::{Game, perft};

const THREE: &str = "w/w/w/g/g/w/w/b/g/g/g/w/w/B/w/b/b/b/g/W/g/b/G/b/g/w/g/w/b/b/b/g/g/b/w/b 231231231231231231231231231231231231 wgb w";
const TWO: &str = "g/b/b/w/b/b/w/G/b/w/w/g/g/w/w/b/b/b/w/W/w/b/b/g/b/g/g/g/w/g/g/g/w/b/g/w 231231231231231231231231231231231231 wg w";

fn new_game(players: u8) -> Game {
    let setup = GameOptions {
        players: Some(players),
        ..GameOptions::default()
    };
    Game::from_options(&setup).unwrap_or_else(|e| panic!("{players} players: {e}"))
}

fn main() {
    let benchmarking = std::env::args().any(|arg| arg == "--bench");
    let mut ok = true;
    let positions = [
        ("2 players, start", new_game(2), None, None),
        ("3 players, start", new_game(3), Some(528), None),
        (
            "rules file, 3 players",
            Game::from_text(THREE).ok().unwrap_or_else(|| new_game(3)),
            Some(409),
            Some(7389),
        ),
        (
            "rules file, 2 players",
            Game::from_text(TWO).ok().unwrap_or_else(|| new_game(2)),
            Some(490),
            Some(10725),
        ),
    ];
    println!(
        "{:<24} {:>5} {:>12} {:>9} {:>14}",
        "position", "depth", "nodes", "seconds", "nodes/second"
    );
    for (name, game, depth_2, depth_3) in &positions {
        let depths: &[u32] = if benchmarking { &[2, 3, 5] } else { &[2] };
        for &depth in depths {
            let started = Instant::now();
            let nodes = perft(black_box(game), depth);
            let seconds = started.elapsed().as_secs_f64();
            let want = match depth {
                2 => *depth_2,
                3 => *depth_3,
                _ => None,
            };
            let verdict = match want {
                Some(want) if want != nodes => {
                    ok = false;
                    format!("  WRONG: expected {want}")
                }
                Some(_) => "  ok".to_owned(),
                None => String::new(),
            };
            println!(
                "{name:<24} {depth:>5} {nodes:>12} {seconds:>9.3} {:>14.0}{verdict}",
                nodes as f64 / seconds
            );
        }
    }

    let (games, rounds) = if benchmarking { (200, 3) } else { (2, 1) };
    let mut rng = Xorshift(0x9E37_79B9_7F4A_7C15);
    // Placement takes the first 36 plies; only the movement phase is kept.
    let mut all = playout_positions(|| new_game(2), games, 600, 36, &mut rng);
    all.extend(playout_positions(|| new_game(3), games, 600, 36, &mut rng));
    let all: Vec<Game> = all.into_iter().map(|(_, game)| game).collect();
    println!();
    report_listing(
        &format!("movement-phase positions from {games} random games of 2 and of 3 players"),
        &all,
        rounds,
    );
    if !ok {
        std::process::exit(1);
    }
}
