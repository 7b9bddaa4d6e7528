//! What a run measures: latency samples, counters, and the summaries the report prints.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;

/// Samples and counters shared by every connection of a run. Only what happens while
/// [`Recorder::measuring`] is on counts; the warm-up before it does not.
#[derive(Default)]
pub struct Recorder {
    measuring: AtomicBool,
    /// When measuring started, for the per-second timeline.
    started: Mutex<Option<Instant>>,
    ack: Mutex<Vec<Duration>>,
    /// Per second of the window, the slowest ack.
    slowest: Mutex<Vec<Duration>>,
    broadcast: Mutex<Vec<Duration>>,
    rejects: Mutex<BTreeMap<String, u64>>,
    errors: Mutex<BTreeMap<String, u64>>,
    games_finished: AtomicU64,
    reconnects: AtomicU64,
    frames_to_spectators: AtomicU64,
    open: AtomicU64,
    open_peak: AtomicU64,
}

impl Recorder {
    pub fn start_measuring(&self) {
        *self.started.lock().expect("start") = Some(Instant::now());
        self.measuring.store(true, Ordering::SeqCst);
    }

    pub fn stop_measuring(&self) {
        self.measuring.store(false, Ordering::SeqCst);
    }

    pub fn measuring(&self) -> bool {
        self.measuring.load(Ordering::SeqCst)
    }

    /// A command's round trip: from sending it to its `ack` (for the echo server: to its echo).
    pub fn ack(&self, latency: Duration) {
        if self.measuring() {
            self.ack.lock().expect("ack samples").push(latency);
            let Some(started) = *self.started.lock().expect("start") else {
                return;
            };
            let second = started.elapsed().as_secs() as usize;
            let mut slowest = self.slowest.lock().expect("timeline");
            if slowest.len() <= second {
                slowest.resize(second + 1, Duration::ZERO);
            }
            slowest[second] = slowest[second].max(latency);
        }
    }

    /// From sending a move to another seat receiving its `moved` event.
    pub fn broadcast(&self, latency: Duration) {
        if self.measuring() {
            self.broadcast
                .lock()
                .expect("broadcast samples")
                .push(latency);
        }
    }

    /// A `reject` frame, by its code; counted during the warm-up too, since none is expected.
    pub fn reject(&self, code: &str) {
        *self
            .rejects
            .lock()
            .expect("rejects")
            .entry(code.to_owned())
            .or_default() += 1;
    }

    /// Anything that went wrong outside the protocol: a refused connection, a closed socket, an
    /// HTTP error. Counted during the warm-up too.
    pub fn error(&self, what: impl Into<String>) {
        *self
            .errors
            .lock()
            .expect("errors")
            .entry(what.into())
            .or_default() += 1;
    }

    pub fn game_finished(&self) {
        if self.measuring() {
            self.games_finished.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// A connection the server closed with 1012 (reconnect: the room moved to another node, or
    /// the server restarts) that the tool reopened with `last_v`.
    pub fn reconnect(&self) {
        if self.measuring() {
            self.reconnects.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn spectator_frame(&self) {
        if self.measuring() {
            self.frames_to_spectators.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// A WebSocket opened (`true`) or closed (`false`); keeps the peak.
    pub fn connection(&self, opened: bool) {
        if opened {
            let now = self.open.fetch_add(1, Ordering::SeqCst) + 1;
            self.open_peak.fetch_max(now, Ordering::SeqCst);
        } else {
            self.open.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// The figures of a measured window `seconds` long.
    pub fn summary(&self, seconds: f64) -> Summary {
        let ack = Latency::of(&mut self.ack.lock().expect("ack samples"));
        let broadcast = Latency::of(&mut self.broadcast.lock().expect("broadcast samples"));
        Summary {
            moves: ack.count,
            moves_per_s: round(ack.count as f64 / seconds, 1),
            ack_ms: ack,
            broadcast_ms: broadcast,
            rejects: self.rejects.lock().expect("rejects").clone(),
            errors: self.errors.lock().expect("errors").clone(),
            games_finished: self.games_finished.load(Ordering::Relaxed),
            reconnects: self.reconnects.load(Ordering::Relaxed),
            frames_to_spectators: self.frames_to_spectators.load(Ordering::Relaxed),
            connections_peak: self.open_peak.load(Ordering::SeqCst),
            slowest_ack_per_second_ms: self
                .slowest
                .lock()
                .expect("timeline")
                .iter()
                .map(|d| millis(*d))
                .collect(),
        }
    }
}

/// The client-side figures of one run.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// Moves (echo: frames) acknowledged in the measured window.
    pub moves: u64,
    pub moves_per_s: f64,
    pub ack_ms: Latency,
    pub broadcast_ms: Latency,
    pub rejects: BTreeMap<String, u64>,
    pub errors: BTreeMap<String, u64>,
    pub games_finished: u64,
    /// Connections closed by the server with 1012 and reopened with `last_v`, in the window.
    pub reconnects: u64,
    pub frames_to_spectators: u64,
    /// The most WebSockets the tool held open at once.
    pub connections_peak: u64,
    /// The slowest ack of each second of the window, in ms: where the tail comes from.
    pub slowest_ack_per_second_ms: Vec<f64>,
}

/// Percentiles of a set of latencies, in milliseconds (nearest-rank).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Latency {
    pub count: u64,
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

impl Latency {
    fn of(samples: &mut [Duration]) -> Latency {
        if samples.is_empty() {
            return Latency::default();
        }
        samples.sort_unstable();
        let at = |q: f64| {
            let rank = ((q * samples.len() as f64).ceil() as usize).clamp(1, samples.len());
            millis(samples[rank - 1])
        };
        Latency {
            count: samples.len() as u64,
            p50: at(0.50),
            p95: at(0.95),
            p99: at(0.99),
            max: millis(samples[samples.len() - 1]),
        }
    }
}

fn millis(d: Duration) -> f64 {
    round(d.as_secs_f64() * 1000.0, 3)
}

pub fn round(x: f64, places: i32) -> f64 {
    let scale = 10f64.powi(places);
    (x * scale).round() / scale
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let mut samples: Vec<Duration> = (1..=200).rev().map(Duration::from_millis).collect();
        let l = Latency::of(&mut samples);
        assert_eq!(
            (l.count, l.p50, l.p95, l.p99, l.max),
            (200, 100.0, 190.0, 198.0, 200.0)
        );
    }
}
