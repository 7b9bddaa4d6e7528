//! The numbers of a match (scores, the interval, think times) and the Markdown table.

use std::fmt::Write as _;
use std::time::Duration;

use serde::Serialize;

use crate::arena::{GameRecord, MatchSpec, Role};

/// The normal quantile of a two-sided 95% interval.
const Z95: f64 = 1.959_964;

/// One match: its set-up, the summary and every game.
#[derive(Serialize)]
pub struct MatchReport {
    /// What was played.
    #[serde(flatten)]
    pub spec: MatchSpec,
    /// The figures.
    pub summary: Summary,
    /// Every game, in order.
    pub records: Vec<GameRecord>,
}

/// A match's figures, from side B's point of view (the higher level in a ladder).
#[derive(Serialize)]
pub struct Summary {
    /// Games played.
    pub games: usize,
    /// Games B won.
    pub b_wins: usize,
    /// Games drawn, capped games included.
    pub b_draws: usize,
    /// Games B lost (with three players: another seat won).
    pub b_losses: usize,
    /// Two players: B's points (win 1, draw ½) over the games, in percent. Three players: B's
    /// share of wins, in percent, to compare with `expected_pct`.
    pub b_score_pct: f64,
    /// The 95% Wilson score interval of `b_score_pct`, in percent.
    pub b_score_interval_pct: [f64; 2],
    /// What a player as strong as its opponents would score: 50, or 33.3 with three players.
    pub expected_pct: f64,
    /// Games stopped at `max_plies`, counted as draws.
    pub capped: usize,
    /// Plies per game, openings included.
    pub mean_plies: f64,
    /// With a UCI engine: the games in which its special-move rights came out different from
    /// ours after the moves and it was given our FEN instead (see `engine_rights_differ` in the
    /// games).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub engine_rights_differ_games: Option<usize>,
    /// With a UCI engine: its moves the rules refused (and it searched again, see `refused` in
    /// the games).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub engine_refused_moves: Option<usize>,
    /// Side A's think time per move.
    pub think_ms_a: Think,
    /// Side B's think time per move.
    pub think_ms_b: Think,
}

/// Think times per move, milliseconds (a UCI engine's from `position` to `bestmove`, its `d`
/// checks included).
#[derive(Serialize, Default)]
pub struct Think {
    /// Moves timed (the random opening is not).
    pub moves: usize,
    /// The mean.
    pub mean: f64,
    /// The 95th percentile (nearest rank).
    pub p95: f64,
    /// The longest.
    pub max: f64,
}

impl Think {
    fn of(times: &mut [Duration]) -> Think {
        if times.is_empty() {
            return Think::default();
        }
        times.sort();
        let ms = |d: Duration| round(d.as_secs_f64() * 1000.0, 2);
        let total: Duration = times.iter().sum();
        // Nearest rank: the smallest time at or above which 5% of the moves lie.
        let rank = (0.95 * times.len() as f64).ceil() as usize;
        Think {
            moves: times.len(),
            mean: ms(total / times.len() as u32),
            p95: ms(times[rank.clamp(1, times.len()) - 1]),
            max: ms(times[times.len() - 1]),
        }
    }
}

impl Summary {
    /// The figures of `records`, played by `players` seats.
    pub fn of(records: &[GameRecord], players: u8) -> Summary {
        let games = records.len();
        let count = |winner: Option<Role>| records.iter().filter(|r| r.winner == winner).count();
        let b_wins = count(Some(Role::B));
        let b_draws = count(None);
        let b_losses = games - b_wins - b_draws;
        let points = if players == 2 {
            b_wins as f64 + 0.5 * b_draws as f64
        } else {
            b_wins as f64
        };
        let (low, high) = wilson(points, games as f64);
        let times = |role: Role| {
            let mut all: Vec<Duration> = records
                .iter()
                .flat_map(|r| r.think.iter().filter(|t| t.0 == role).map(|t| t.1))
                .collect();
            Think::of(&mut all)
        };
        Summary {
            games,
            b_wins,
            b_draws,
            b_losses,
            b_score_pct: round(percent(points, games as f64), 1),
            b_score_interval_pct: [round(100.0 * low, 1), round(100.0 * high, 1)],
            expected_pct: round(100.0 / f64::from(players), 1),
            capped: records.iter().filter(|r| r.capped).count(),
            mean_plies: round(
                records.iter().map(|r| r.moves.len() as f64).sum::<f64>() / games.max(1) as f64,
                1,
            ),
            engine_rights_differ_games: records
                .iter()
                .map(|r| r.engine_rights_differ.map(|n| usize::from(n > 0)))
                .sum(),
            engine_refused_moves: records
                .iter()
                .map(|r| r.engine_rights_differ.map(|_| r.refused.len()))
                .sum(),
            think_ms_a: times(Role::A),
            think_ms_b: times(Role::B),
        }
    }
}

/// The 95% Wilson score interval of `successes` out of `n` (as fractions). Draws enter as half a
/// success, which treats a game as a single trial: an approximation that is slightly wide when
/// there are many draws. `(0, 1)` when `n` is 0.
fn wilson(successes: f64, n: f64) -> (f64, f64) {
    if n <= 0.0 {
        return (0.0, 1.0);
    }
    let p = successes / n;
    let z2 = Z95 * Z95;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z95 / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

fn percent(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        100.0 * part / whole
    } else {
        0.0
    }
}

/// `x` rounded to `digits` decimals, for reports people read.
fn round(x: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (x * scale).round() / scale
}

/// The Markdown report of `matches`: one table, a row per match.
pub fn markdown(matches: &[MatchReport]) -> String {
    let mut out = String::new();
    let Some(first) = matches.first() else {
        return out;
    };
    let spec = &first.spec;
    let _ = write!(
        out,
        "## khanate-arena: {}, {} players\n\n\
         Seed {}, {} random opening plies shared by each group of games, games capped at {} \
         plies (a capped game is a draw). Scores are side B's (the higher level): ",
        spec.game, spec.players, spec.seed, spec.opening_plies, spec.max_plies
    );
    if spec.players == 2 {
        out.push_str(
            "points in % (win 1, draw ½), with a 95% Wilson score interval (draws as half a win).\n\n",
        );
    } else {
        out.push_str(
            "its share of wins in % against the two A seats (an equal player wins 33.3%), with a \
             95% Wilson score interval.\n\n",
        );
    }
    out.push_str(
        "| A v B | games | B wins | draws | B losses | B score % | 95% interval | expected % \
         | capped | mean plies | A think ms mean / p95 / max | B think ms mean / p95 / max |\n\
         |---|---:|---:|---:|---:|---:|---|---:|---:|---:|---|---|\n",
    );
    for m in matches {
        let s = &m.summary;
        let _ = writeln!(
            out,
            "| {} v {} | {} | {} | {} | {} | {:.1} | {:.1}–{:.1} | {:.1} | {} | {:.1} | {} | {} |",
            m.spec.a.label(),
            m.spec.b.label(),
            s.games,
            s.b_wins,
            s.b_draws,
            s.b_losses,
            s.b_score_pct,
            s.b_score_interval_pct[0],
            s.b_score_interval_pct[1],
            s.expected_pct,
            s.capped,
            s.mean_plies,
            think(&s.think_ms_a),
            think(&s.think_ms_b),
        );
    }
    for m in matches {
        if let Some(n) = m.summary.engine_rights_differ_games {
            let _ = writeln!(
                out,
                "\n{} v {}: in {n} of {} games the engine's special-move rights (FEN field 3) \
                 came out different from the rules' after the moves, and it was given the rules' \
                 FEN for those moves instead.",
                m.spec.a.label(),
                m.spec.b.label(),
                m.summary.games
            );
        }
        if let Some(n) = m.summary.engine_refused_moves.filter(|&n| n > 0) {
            let _ = writeln!(
                out,
                "\n{}: the rules refused {n} of its moves; it searched again among the rules' \
                 legal moves each time (listed under `refused` in the JSON):",
                m.spec.a.label(),
            );
            for r in m
                .records
                .iter()
                .flat_map(|r| r.refused.iter().map(move |f| (r.index, f)))
            {
                let _ = writeln!(
                    out,
                    "- game {}, ply {}: `{}` in `{}`: {}",
                    r.0, r.1.ply, r.1.engine_move, r.1.position, r.1.error
                );
            }
        }
    }
    out
}

fn think(t: &Think) -> String {
    format!("{:.1} / {:.1} / {:.1}", t.mean, t.p95, t.max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_interval_matches_known_values() {
        // 8 of 10: the textbook Wilson interval is 0.4902 to 0.9433.
        let (low, high) = wilson(8.0, 10.0);
        assert!((low - 0.4902).abs() < 1e-3, "{low}");
        assert!((high - 0.9433).abs() < 1e-3, "{high}");
        // Symmetric around one half for an even score.
        let (low, high) = wilson(25.0, 50.0);
        assert!((low + high - 1.0).abs() < 1e-12);
        assert!((low - 0.3664).abs() < 1e-3, "{low}");
        // A clean sweep still has a lower bound below 1, and nothing is out of [0, 1].
        let (low, high) = wilson(20.0, 20.0);
        assert!(low > 0.83 && low < 0.84 && high == 1.0, "{low} {high}");
        assert_eq!(wilson(0.0, 0.0), (0.0, 1.0));
    }

    #[test]
    fn think_time_percentiles() {
        let mut times: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
        let t = Think::of(&mut times);
        assert_eq!((t.moves, t.mean, t.p95, t.max), (100, 50.5, 95.0, 100.0));
        let t = Think::of(&mut []);
        assert_eq!(t.moves, 0);
    }
}
