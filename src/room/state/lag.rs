//! Lag compensation as lichess's `LagTracker` (scalachess) does it: each connection keeps a
//! decaying average of its measured round trips ([`LagEstimate`]), and each seat of a timed game
//! has a quota ([`LagQuota`]) that a move's compensation is taken from and that grows by a gain
//! per move up to a maximum. Steady latency is then given back in full, a spike only up to the
//! quota, and a client that fakes its lag gets a bounded amount over a game. Pure: the times are
//! passed in (docs/protocol.md "Clocks" gives the parameters and why).

use super::ClockSettings;

/// The most a single round-trip sample counts for in the estimate, in ms: a longer one is a
/// stall, not a latency, and must not drag the estimate (the quota bounds what a stall gets).
pub const MAX_LAG_SAMPLE_MS: u64 = 2_000;

/// Past its first samples, how much of the distance to a new sample the estimate moves: an
/// eighth (each sample's weight then decays by 7/8 per sample: with a probe every 2 s, the last
/// 16 s make about two thirds of it).
const DECAY_DIVISOR: u64 = 8;

/// A connection's lag estimate: a decaying average of its round-trip samples, in ms.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LagEstimate {
    mean_ms: u64,
    /// How many samples count in full so far (at most [`DECAY_DIVISOR`]).
    samples: u64,
}

impl LagEstimate {
    /// Records a round trip of `sample_ms` (counted as at most [`MAX_LAG_SAMPLE_MS`]). The first
    /// [`DECAY_DIVISOR`] samples make a running average (a new connection's estimate is good
    /// after a few probes); from then on each moves the estimate an eighth of the way (rounded).
    pub fn record(&mut self, sample_ms: u64) {
        let sample = sample_ms.min(MAX_LAG_SAMPLE_MS);
        self.samples = (self.samples + 1).min(DECAY_DIVISOR);
        let weight = self.samples;
        self.mean_ms = ((weight - 1) * self.mean_ms + sample + weight / 2) / weight;
    }

    /// The estimated round trip in ms, `None` before the first sample.
    pub fn ms(&self) -> Option<u64> {
        (self.samples > 0).then_some(self.mean_ms)
    }
}

/// A seat's lag quota, in ms: what its moves' compensation may still take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LagQuota {
    /// Added after each move (what the move's compensation did not use stays).
    pub gain_ms: u64,
    /// Available now.
    pub quota_ms: u64,
    /// The most the quota holds.
    pub max_ms: u64,
}

impl LagQuota {
    /// The quota of a seat at the start of a game of `settings` (lichess's
    /// `LagTracker.maxQuotaGainFor`): the gain grows with the estimated game length, initial time
    /// plus 40 increments, as `150 ms + 4 ms per second` up to 1 s a move; the quota starts at
    /// three gains and holds at most seven. 5+3: 1000 ms, quota 3000 to 7000; 1+0: 390 ms.
    pub fn for_clock(settings: &ClockSettings) -> Self {
        let estimated_s = u64::from(settings.initial_s) + 40 * u64::from(settings.increment_s);
        let gain_ms = (150 + 4 * estimated_s).min(1_000);
        LagQuota {
            gain_ms,
            quota_ms: 3 * gain_ms,
            max_ms: 7 * gain_ms,
        }
    }

    /// The compensation of a move that took `elapsed_ms` on the server's clock, over a
    /// connection whose estimated round trip is `lag_ms` (`None`: not measured yet, nothing is
    /// given back): the estimate, at most the quota and at most the time elapsed (a seat never
    /// gets back more than it spent). The quota then loses it and gains a gain, up to its
    /// maximum.
    pub fn on_move(&mut self, lag_ms: Option<u64>, elapsed_ms: u64) -> u64 {
        let compensation = lag_ms.unwrap_or(0).min(self.quota_ms).min(elapsed_ms);
        self.quota_ms = (self.quota_ms - compensation + self.gain_ms).min(self.max_ms);
        compensation
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn five_plus_three() -> LagQuota {
        LagQuota::for_clock(&ClockSettings {
            initial_s: 300,
            increment_s: 3,
        })
    }

    #[test]
    fn the_estimate_is_a_decaying_average_of_capped_samples() {
        let mut lag = LagEstimate::default();
        assert_eq!(lag.ms(), None);
        lag.record(600);
        assert_eq!(lag.ms(), Some(600));
        lag.record(200);
        assert_eq!(lag.ms(), Some(400));
        // The first eight make a running average (rounded at each step): 433, 450, 460, 467,
        // 472, 476.
        for _ in 0..6 {
            lag.record(500);
        }
        assert_eq!(lag.ms(), Some(476));
        // Then each moves it an eighth of the way: (7 * 476 + 540) / 8 = 483.5, rounded.
        lag.record(540);
        assert_eq!(lag.ms(), Some(484));
        // A 5 s stall counts as 2 s: (7 * 484 + 2000) / 8 = 673.5, rounded.
        lag.record(5_000);
        assert_eq!(lag.ms(), Some(674));
    }

    #[test]
    fn the_gain_grows_with_the_game_length_up_to_a_second() {
        let quota = |initial_s, increment_s| {
            LagQuota::for_clock(&ClockSettings {
                initial_s,
                increment_s,
            })
        };
        assert_eq!(
            five_plus_three(),
            LagQuota {
                gain_ms: 1_000,
                quota_ms: 3_000,
                max_ms: 7_000
            }
        );
        assert_eq!(quota(60, 0).gain_ms, 390);
        assert_eq!(quota(180, 0).gain_ms, 870);
        assert_eq!(quota(15, 0).gain_ms, 210);
        assert_eq!(quota(10_800, 180).gain_ms, 1_000);
    }

    #[test]
    fn steady_lag_within_the_gain_is_given_back_in_full_on_every_move() {
        let mut quota = five_plus_three();
        for _ in 0..40 {
            assert_eq!(quota.on_move(Some(600), 1_600), 600);
        }
        // 600 taken, 1000 gained each move: full.
        assert_eq!(quota.quota_ms, 7_000);
    }

    #[test]
    fn lag_beyond_the_gain_uses_up_the_quota_then_gets_the_gain_only() {
        let mut quota = five_plus_three();
        let given: Vec<u64> = (0..6).map(|_| quota.on_move(Some(2_000), 5_000)).collect();
        // 3000 -> 2000 -> 1000 (each move takes 2000 and gains 1000), then the gain only.
        assert_eq!(given, vec![2_000, 2_000, 1_000, 1_000, 1_000, 1_000]);
        assert_eq!(quota.quota_ms, 1_000);
    }

    #[test]
    fn a_move_gets_back_at_most_its_time_and_nothing_before_a_measurement() {
        let mut quota = five_plus_three();
        assert_eq!(quota.on_move(Some(600), 250), 250);
        assert_eq!(quota.quota_ms, 3_000 - 250 + 1_000);
        assert_eq!(quota.on_move(None, 5_000), 0);
        assert_eq!(quota.quota_ms, 4_750);
    }
}
