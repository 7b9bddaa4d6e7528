//! Glicko-2 for the two-player pools, through skillratings' `glicko2` (Glickman, "Example of the
//! Glicko-2 system", 2013: <http://www.glicko.net/glicko/glicko2.pdf>), with τ = 0.75.
//!
//! Each rated game is its own rating period. Time without games enters as a fractional number of
//! periods, as lichess does (lila's `RatingCalculator` takes `ratingPeriodsPerDay`): before a
//! game, a player's deviation grows by Glickman's step 6 stretched over the periods since their
//! last game, `φ*² = φ² + t·σ²`, at most 350. [`RATING_PERIODS_PER_DAY`] says how fast; the
//! numbers are in docs/ratings.md.

use chrono::{DateTime, Utc};
use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, decay_deviation, glicko2_rating_period};

/// The system constant τ, which limits how fast the volatility changes: 0.75 (lichess's).
pub const TAU: f64 = 0.75;

/// Rating periods per day of inactivity: 3, so that a settled deviation (about 60, where a player
/// who plays often settles; see docs/ratings.md) grows back to 350 in about a year (365 days).
pub const RATING_PERIODS_PER_DAY: f64 = 3.0;

/// The largest deviation: a new player's, 350.
pub const MAX_DEVIATION: f64 = 350.0;

/// Glicko-2's configuration with τ = `tau` (skillratings' convergence tolerance, 10⁻⁶).
pub fn config(tau: f64) -> Glicko2Config {
    Glicko2Config {
        tau,
        ..Glicko2Config::new()
    }
}

/// The rating periods from `since` (the end of a player's last rated game; `None`: none) to
/// `at`: [`RATING_PERIODS_PER_DAY`] per day, fractional; 0 without a last game or when `at` is
/// not later.
pub fn periods_between(since: Option<DateTime<Utc>>, at: DateTime<Utc>) -> f64 {
    let Some(since) = since else {
        return 0.0;
    };
    let seconds = (at - since).num_milliseconds() as f64 / 1000.0;
    (seconds / 86_400.0 * RATING_PERIODS_PER_DAY).max(0.0)
}

/// `player` after `periods` rating periods without a game: `φ² + periods·σ²` on Glicko-2's
/// scale, at most [`MAX_DEVIATION`]; the rating and volatility are unchanged. This is
/// skillratings' `decay_deviation` (one period: `φ² + σ²`) with σ stretched to `σ·√periods`.
pub fn after_inactivity(player: &Glicko2Rating, periods: f64) -> Glicko2Rating {
    if periods <= 0.0 {
        return *player;
    }
    let stretched = Glicko2Rating {
        volatility: player.volatility * periods.sqrt(),
        ..*player
    };
    Glicko2Rating {
        volatility: player.volatility,
        ..decay_deviation(&stretched)
    }
}

/// `player` after one rating period with `results` (each opponent as rated before the period,
/// and the outcome for `player`): skillratings' `glicko2_rating_period`, Glickman's steps 2 to 8.
/// A rated game is a period with one result.
pub fn rate_period(
    player: &Glicko2Rating,
    results: &[(Glicko2Rating, Outcomes)],
    tau: f64,
) -> Glicko2Rating {
    glicko2_rating_period(player, results, &config(tau))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rating(rating: f64, deviation: f64) -> Glicko2Rating {
        Glicko2Rating {
            rating,
            deviation,
            volatility: 0.06,
        }
    }

    #[test]
    fn glickmans_example_gives_his_numbers() {
        // Glickman's paper, section "Example calculation": τ = 0.5; a 1500 / 200 player beats
        // 1400 / 30 and loses to 1550 / 100 and 1700 / 300: r' = 1464.06, RD' = 151.52,
        // σ' = 0.05999.
        let results = [
            (rating(1400.0, 30.0), Outcomes::WIN),
            (rating(1550.0, 100.0), Outcomes::LOSS),
            (rating(1700.0, 300.0), Outcomes::LOSS),
        ];
        // The paper rounds its steps (μ' = −0.2069 gives 1464.06; unrounded it is 1464.0506):
        // equal to its last digit.
        let after = rate_period(&rating(1500.0, 200.0), &results, 0.5);
        assert!((after.rating - 1464.06).abs() < 0.01, "{after:?}");
        assert!((after.deviation - 151.52).abs() < 0.01, "{after:?}");
        assert!((after.volatility - 0.05999).abs() < 0.00001, "{after:?}");
    }

    #[test]
    fn the_deviation_grows_back_to_350_in_about_a_year() {
        let at = DateTime::parse_from_rfc3339("2026-12-01T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let days = |n: i64| periods_between(Some(at - chrono::Duration::days(n)), at);
        assert_eq!(days(1), 3.0);
        assert_eq!(periods_between(None, at), 0.0);
        assert_eq!(
            periods_between(Some(at + chrono::Duration::days(1)), at),
            0.0
        );
        let settled = rating(1800.0, 60.0);
        let deviation = |n: i64| after_inactivity(&settled, days(n)).deviation;
        // √((60/173.7178)² + 3·n·0.06²) × 173.7178, at most 350.
        assert_eq!(format!("{:.2}", deviation(1)), "62.66");
        assert_eq!(format!("{:.2}", deviation(30)), "115.66");
        assert_eq!(format!("{:.2}", deviation(180)), "249.53");
        assert_eq!(format!("{:.2}", deviation(364)), "349.62");
        assert_eq!(deviation(365), 350.0);
        assert_eq!(deviation(1000), 350.0);
        let year = after_inactivity(&settled, days(365));
        assert_eq!((year.rating, year.volatility), (1800.0, 0.06));
        assert_eq!(after_inactivity(&settled, 0.0), settled);
    }
}
