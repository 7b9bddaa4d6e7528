//! What the rules benchmarks share: a fixed-seed move picker and timing summaries. (The rules module
//! itself has no randomness; only the benchmarks pick moves at random.)

use std::hint::black_box;
use std::time::{Duration, Instant};

use khanate::rules::Rules;

/// xorshift64: enough to pick moves, the same ones on every run.
pub struct Xorshift(pub u64);

impl Xorshift {
    /// The next number.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Mean, median, 99th percentile and maximum of `samples`, in microseconds.
pub fn summary(mut samples: Vec<Duration>) -> String {
    samples.sort();
    let n = samples.len().max(1);
    let micros = |d: Duration| d.as_secs_f64() * 1e6;
    let mean = samples.iter().map(|d| micros(*d)).sum::<f64>() / n as f64;
    let at = |q: f64| {
        samples
            .get(((n - 1) as f64 * q) as usize)
            .map_or(0.0, |d| micros(*d))
    };
    format!(
        "mean {mean:8.1}  p50 {:8.1}  p99 {:8.1}  max {:8.1}",
        at(0.5),
        at(0.99),
        at(1.0)
    )
}

/// Times `f` on each item, best of `rounds` runs per item.
pub fn time_each<T>(items: &[T], rounds: u32, f: impl Fn(&T) -> usize) -> Vec<Duration> {
    items
        .iter()
        .map(|item| {
            (0..rounds)
                .map(|_| {
                    let started = Instant::now();
                    black_box(f(black_box(item)));
                    started.elapsed()
                })
                .min()
                .unwrap_or_default()
        })
        .collect()
}

/// The positions met in `games` random games, each with its ply: every game started by `new` and
/// played until it ends or for `plies` plies, keeping the positions from ply `keep_from` on. Exits
/// on a listed move that does not play (a rules bug).
pub fn playout_positions<G: Rules + Clone>(
    new: impl Fn() -> G,
    games: usize,
    plies: usize,
    keep_from: usize,
    rng: &mut Xorshift,
) -> Vec<(usize, G)> {
    let mut out = Vec::new();
    for _ in 0..games {
        let mut game = new();
        for ply in 0..plies {
            let moves = game.legal_moves();
            if moves.is_empty() {
                break;
            }
            if ply >= keep_from {
                out.push((ply, game.clone()));
            }
            let mv = &moves[rng.below(moves.len())];
            if let Err(err) = game.play(mv) {
                eprintln!("{mv}: {err}");
                std::process::exit(1);
            }
        }
    }
    out
}

/// Prints how many `positions` there are (described by `what`), their mean number of legal moves,
/// and the time `Rules::legal_moves` takes on each (best of `rounds`).
pub fn report_listing<G: Rules>(what: &str, positions: &[G], rounds: u32) {
    let moves: usize = positions.iter().map(|g| g.legal_moves().len()).sum();
    println!(
        "{} {what} ({:.1} legal moves on average)",
        positions.len(),
        moves as f64 / positions.len().max(1) as f64
    );
    println!(
        "legal_moves (sorted strings), µs: {}",
        summary(time_each(positions, rounds, |g| g.legal_moves().len()))
    );
}
