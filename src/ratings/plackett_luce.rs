//! Weng-Lin's Bayesian rating with the Plackett-Luce model, for three-player Khan-Tsin: Weng &
//! Lin, "A Bayesian Approximation Method for Online Ranking", JMLR 12 (2011), Algorithm 4
//! (<https://jmlr.org/papers/v12/weng11a.html>), over skillratings' `WengLinRating` and
//! `WengLinConfig` (μ 25, σ 25/3, β 25/6, κ = its `uncertainty_tolerance`, 10⁻⁶).
//!
//! Written here because skillratings' `weng_lin` (0.29) implements only the Bradley-Terry model.
//! It follows openskill's `PlackettLuce` (openskill.py 6.2, `models/weng_lin/plackett_luce.py`)
//! for one player a team, without its additive dynamics (τ = 0, as skillratings has none), and
//! gives its numbers (the tests hold vectors openskill computed). Ties are as there: players
//! sharing a rank count each other in `A_q`, the number of players at rank `q` (openskill 6.2's
//! averaging of the μ changes of tied teams compares each updated rating with itself, so it
//! changes nothing, and neither does this).

use skillratings::weng_lin::{WengLinConfig, WengLinRating};

/// The players of one game, each with its rank (1 first; equal ranks share a place), after the
/// game: Algorithm 4 with one player a team. For every player `i`, with
/// `c² = Σ (σ_q² + β²)` and `S_q = Σ_{s: r(s) ≥ r(q)} e^{μ_s/c}`:
///
/// - `Ω_i = σ_i²/c · Σ_{q: r(q) ≤ r(i)} ([q = i] − e^{μ_i/c}/S_q) / A_q`, `μ_i' = μ_i + Ω_i`;
/// - `Δ_i = γ_i · σ_i²/c² · Σ_{q: r(q) ≤ r(i)} (e^{μ_i/c}/S_q)(1 − e^{μ_i/c}/S_q) / A_q`, with
///   `γ_i = σ_i/c`, and `σ_i' = σ_i · √max(1 − Δ_i, κ)`.
///
/// `players` in any order; the answer is in the same order.
pub fn rate(players: &[(WengLinRating, u32)], config: &WengLinConfig) -> Vec<WengLinRating> {
    let c = players
        .iter()
        .map(|(p, _)| p.uncertainty.powi(2) + config.beta.powi(2))
        .sum::<f64>()
        .sqrt();
    let strength: Vec<f64> = players.iter().map(|(p, _)| (p.rating / c).exp()).collect();
    // S_q and A_q of every player q.
    let sums: Vec<f64> = players
        .iter()
        .map(|(_, rank_q)| {
            players
                .iter()
                .zip(&strength)
                .filter(|((_, rank_s), _)| rank_s >= rank_q)
                .map(|(_, e)| e)
                .sum()
        })
        .collect();
    let sharing: Vec<f64> = players
        .iter()
        .map(|(_, rank_q)| players.iter().filter(|(_, r)| r == rank_q).count() as f64)
        .collect();
    players
        .iter()
        .enumerate()
        .map(|(i, (player, rank_i))| {
            let (mut omega, mut delta) = (0.0, 0.0);
            for (q, (_, rank_q)) in players.iter().enumerate() {
                if rank_q > rank_i {
                    continue;
                }
                let p = strength[i] / sums[q];
                delta += p * (1.0 - p) / sharing[q];
                omega += (if q == i { 1.0 - p } else { -p }) / sharing[q];
            }
            let variance = player.uncertainty.powi(2);
            let gamma = player.uncertainty / c;
            omega *= variance / c;
            delta *= gamma * variance / c.powi(2);
            WengLinRating {
                rating: player.rating + omega,
                uncertainty: player.uncertainty
                    * (1.0 - delta).max(config.uncertainty_tolerance).sqrt(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wl(rating: f64, uncertainty: f64) -> WengLinRating {
        WengLinRating {
            rating,
            uncertainty,
        }
    }

    /// Vectors from openskill.py 6.2.0 (`pip install openskill==6.2.0`, Python 3.11):
    ///
    /// ```python
    /// from openskill.models import PlackettLuce
    /// m = PlackettLuce(mu=25.0, sigma=25.0/3.0, beta=25.0/6.0, kappa=0.000001, tau=0.0)
    /// out = m.rate([[m.rating(mu=mu, sigma=sigma)] for mu, sigma in players], ranks=ranks)
    /// print([(repr(t[0].mu), repr(t[0].sigma)) for t in out])
    /// ```
    ///
    /// Each case: the players (μ, σ), their ranks, and openskill's (μ', σ').
    #[allow(clippy::type_complexity)]
    const OPENSKILL: [(&[(f64, f64)], &[u32], &[(f64, f64)]); 5] = [
        (
            &[(25.0, 25.0 / 3.0), (25.0, 25.0 / 3.0), (25.0, 25.0 / 3.0)],
            &[1, 2, 3],
            &[
                (27.868876552746237, 8.204837030780652),
                (25.717219138186557, 8.057829747583874),
                (21.413904309067206, 8.057829747583874),
            ],
        ),
        (
            &[(30.0, 4.0), (25.0, 6.0), (20.0, 7.0)],
            &[2, 1, 3],
            &[
                (29.786696673723224, 3.968619741850919),
                (26.990477293802595, 5.925603191257281),
                (17.94398067571354, 6.755082398932077),
            ],
        ),
        (
            &[(28.0, 3.0), (24.0, 5.0), (26.0, 2.0)],
            &[1, 2, 2],
            &[
                (28.563732677275524, 2.9885591186566596),
                (23.437476538658302, 4.8355594848368755),
                (25.839455897247774, 1.9956179688999225),
            ],
        ),
        (
            &[(25.0, 25.0 / 3.0), (25.0, 25.0 / 3.0), (25.0, 25.0 / 3.0)],
            &[1, 2, 2],
            &[
                (27.868876552746237, 8.204837030780652),
                (23.56556172362688, 8.057829747583874),
                (23.56556172362688, 8.057829747583874),
            ],
        ),
        (
            &[(22.0, 1.5), (31.0, 8.0), (25.0, 0.8)],
            &[3, 2, 1],
            &[
                (21.892295189715888, 1.499254669153777),
                (29.875903305931867, 7.234520226817918),
                (25.04187700186594, 0.7999677526336599),
            ],
        ),
    ];

    #[test]
    fn plackett_luce_gives_openskills_numbers() {
        for (players, ranks, expected) in OPENSKILL {
            let input: Vec<_> = players
                .iter()
                .zip(ranks)
                .map(|(&(mu, sigma), &rank)| (wl(mu, sigma), rank))
                .collect();
            let after = rate(&input, &WengLinConfig::new());
            for (got, &(mu, sigma)) in after.iter().zip(expected) {
                assert!(
                    (got.rating - mu).abs() < 1e-12 && (got.uncertainty - sigma).abs() < 1e-12,
                    "{players:?} ranked {ranks:?}: {got:?}, openskill ({mu}, {sigma})"
                );
            }
        }
    }

    #[test]
    fn three_new_players_by_hand() {
        // c² = 3(σ² + β²); every e^{μ/c} is the same, so S_q is that times the players at rank q
        // or below: 3, 2, 1. First: Ω = σ²/c · (1 − 1/3), Δ = γσ²/c² · (1/3)(2/3).
        // Second: Ω = σ²/c · (−1/3 + 1 − 1/2), Δ = γσ²/c² · ((1/3)(2/3) + (1/2)(1/2)).
        // Third: Ω = σ²/c · (−1/3 − 1/2 + 0), Δ as the second's plus (1)(0).
        let (mu, sigma, beta) = (25.0_f64, 25.0_f64 / 3.0, 25.0_f64 / 6.0);
        let c = (3.0 * (sigma * sigma + beta * beta)).sqrt();
        let (k_mu, k_sigma) = (sigma * sigma / c, (sigma / c) * sigma * sigma / (c * c));
        let expected = [
            (mu + k_mu * 2.0 / 3.0, 2.0 / 9.0),
            (mu + k_mu / 6.0, 2.0 / 9.0 + 0.25),
            (mu - k_mu * 5.0 / 6.0, 2.0 / 9.0 + 0.25),
        ];
        let input = [(wl(mu, sigma), 1), (wl(mu, sigma), 2), (wl(mu, sigma), 3)];
        let after = rate(&input, &WengLinConfig::new());
        for (got, (mu, sum)) in after.iter().zip(expected) {
            let sigma = sigma * (1.0 - k_sigma * sum).sqrt();
            assert!((got.rating - mu).abs() < 1e-12, "{got:?} μ {mu}");
            assert!((got.uncertainty - sigma).abs() < 1e-12, "{got:?} σ {sigma}");
        }
        // And by number: the winner gains 2.87, the last loses 3.59.
        assert_eq!(format!("{:.4}", after[0].rating), "27.8689");
        assert_eq!(format!("{:.4}", after[2].rating), "21.4139");
    }

    #[test]
    fn players_sharing_a_place_from_equal_ratings_move_alike() {
        let new = wl(25.0, 25.0 / 3.0);
        let after = rate(&[(new, 1), (new, 2), (new, 2)], &WengLinConfig::new());
        assert_eq!(after[1], after[2]);
        assert!(after[0].rating > 25.0 && after[1].rating < 25.0);
        // The order of the input does not matter.
        let shuffled = rate(&[(new, 2), (new, 1), (new, 2)], &WengLinConfig::new());
        assert_eq!((shuffled[1], shuffled[0]), (after[0], after[1]));
    }
}
