//! What the rules benchmarks share: a fixed-seed move picker and timing summaries. (The rules module
//! itself has no randomness; only the benchmarks pick moves at random.)

use std::hint::black_box;
use std::time::{Duration, Instant};

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
