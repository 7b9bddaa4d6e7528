//! Ratings: what a rated game changes in its players' ratings, as pure functions over the
//! `skillratings` crate's types (no I/O, no clock: the time of a game's end enters as an
//! argument). docs/ratings.md says the whole scheme with its numbers.
//!
//! A player has one rating per [`RatingPool`]: a game, its number of players and a [`Speed`].
//! Two-player pools use Glicko-2 (skillratings' `glicko2`); three-player Khan-Tsin uses Weng-Lin
//! with the Plackett-Luce model. Both are shown on one 1500-centred scale ([`PlayerRating`]).
//! The store applies a rated game's changes in the transaction that stores its end.

mod finish;
pub mod glicko;
pub mod plackett_luce;

pub use finish::Finish;

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use skillratings::Outcomes;
use skillratings::glicko2::Glicko2Rating;
use skillratings::weng_lin::{WengLinConfig, WengLinRating};

use crate::domain::{TimeControl, UnknownWord};
use crate::rules::{GameKind, Seat};

/// A rating pool's speed, from its clock: `blitz`, `rapid`, `classical` or `correspondence`
/// (lowercase on the wire and in the database).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Speed {
    /// A Fischer clock whose estimated game time is under 8 minutes.
    Blitz,
    /// Estimated game time 8 minutes or more, under 25.
    Rapid,
    /// Estimated game time 25 minutes or more.
    Classical,
    /// Days per move (`{"days_per_move": N}`).
    Correspondence,
}

impl Speed {
    /// Every speed, fastest first.
    pub const ALL: [Speed; 4] = [
        Speed::Blitz,
        Speed::Rapid,
        Speed::Classical,
        Speed::Correspondence,
    ];

    /// Below this estimated game time (seconds) a Fischer clock is blitz: 8 minutes.
    pub const BLITZ_UNDER_S: u64 = 8 * 60;
    /// Below this estimated game time (seconds) a Fischer clock is rapid: 25 minutes.
    pub const RAPID_UNDER_S: u64 = 25 * 60;

    /// The speed of a room's clock. A Fischer clock's estimated game time is
    /// `initial_s + 40 × increment_s` seconds (lichess's estimate: a game of 40 moves each):
    /// under [`Speed::BLITZ_UNDER_S`] (480) blitz, under [`Speed::RAPID_UNDER_S`] (1500) rapid,
    /// otherwise classical; 5+0 (300) and 3+2 (380) are blitz, 5+3 (420) too, 8+0 (480) and
    /// 10+0 rapid, 15+10 (1500) and 25+0 classical. Days per move are correspondence.
    pub fn of(clock: &TimeControl) -> Speed {
        match clock {
            TimeControl::Correspondence(_) => Speed::Correspondence,
            TimeControl::Fischer(settings) => {
                let estimate = u64::from(settings.initial_s) + 40 * u64::from(settings.increment_s);
                if estimate < Self::BLITZ_UNDER_S {
                    Speed::Blitz
                } else if estimate < Self::RAPID_UNDER_S {
                    Speed::Rapid
                } else {
                    Speed::Classical
                }
            }
        }
    }

    /// The word used on the wire and in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            Speed::Blitz => "blitz",
            Speed::Rapid => "rapid",
            Speed::Classical => "classical",
            Speed::Correspondence => "correspondence",
        }
    }
}

impl fmt::Display for Speed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Speed {
    type Err = UnknownWord;

    /// Parses the exact lowercase word of [`Speed::as_str`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Speed::ALL
            .into_iter()
            .find(|speed| speed.as_str() == s)
            .ok_or_else(|| UnknownWord {
                what: "speed",
                word: s.to_owned(),
            })
    }
}

/// Which rating a rated game changes: its game, its number of players (2, or 3 for three-player
/// Khan-Tsin) and its speed. Each account has one rating per pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RatingPool {
    /// The game.
    pub game: GameKind,
    /// The number of players: 2, or 3 (Khan-Tsin only).
    pub players: u8,
    /// The speed of the game's clock.
    pub speed: Speed,
}

impl RatingPool {
    /// Whether the pool is rated with Weng-Lin (three players) rather than Glicko-2 (two).
    pub fn is_multiplayer(&self) -> bool {
        self.players > 2
    }

    /// The pool's game key in a profile's `ratings` object: the game's word (`"khan"`), or for
    /// three-player Khan-Tsin `"khan-tsin-3"`.
    pub fn game_key(&self) -> String {
        if self.is_multiplayer() {
            format!("{}-{}", self.game.as_str(), self.players)
        } else {
            self.game.as_str().to_owned()
        }
    }
}

/// A rating's state in its algorithm's own terms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Skill {
    /// Glicko-2 (two-player pools): rating, rating deviation and volatility on Glicko's scale.
    Glicko2(Glicko2Rating),
    /// Weng-Lin (three-player pools): μ and σ on Weng-Lin's scale (25 and 25/3 to start).
    WengLin(WengLinRating),
}

impl Skill {
    /// A new player's rating in `pool`: Glicko-2 1500 / 350 / 0.06, or Weng-Lin μ 25, σ 25/3.
    pub fn initial(pool: RatingPool) -> Skill {
        if pool.is_multiplayer() {
            Skill::WengLin(WengLinRating::new())
        } else {
            Skill::Glicko2(Glicko2Rating::new())
        }
    }

    /// The rating on the 1500-centred display scale: Glicko-2's rating itself, or Weng-Lin's
    /// `1500 + 42 × (μ − 25)` (see [`WENG_LIN_SCALE`]).
    pub fn display_rating(&self) -> f64 {
        match self {
            Skill::Glicko2(g) => g.rating,
            Skill::WengLin(w) => 1500.0 + WENG_LIN_SCALE * (w.rating - WENG_LIN_MU),
        }
    }

    /// The deviation on the display scale: Glicko-2's RD, or Weng-Lin's `42 × σ`.
    pub fn display_deviation(&self) -> f64 {
        match self {
            Skill::Glicko2(g) => g.deviation,
            Skill::WengLin(w) => WENG_LIN_SCALE * w.uncertainty,
        }
    }
}

/// Weng-Lin's starting μ (skillratings' and openskill's default).
pub const WENG_LIN_MU: f64 = 25.0;

/// Display points per Weng-Lin skill point: 42, so that a new three-player rating (μ 25,
/// σ 25/3) shows as 1500 with deviation 350, exactly as a new Glicko-2 rating; β = 25/6 then
/// spans 175 points, about Glicko-2's own unit of 173.7, so a difference reads alike on both.
pub const WENG_LIN_SCALE: f64 = 42.0;

/// A rating is provisional (shown with "?") while its display deviation is over this: 110.
pub const PROVISIONAL_DEVIATION: f64 = 110.0;

/// A player's rating in one pool, as stored (or the default, for a player with none yet).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlayerRating {
    /// The rating on the 1500-centred display scale (see [`Skill::display_rating`]).
    pub rating: f64,
    /// The deviation on the same scale (Glicko-2's RD; Weng-Lin's 42σ).
    pub deviation: f64,
    /// Whether the deviation is over [`PROVISIONAL_DEVIATION`] (a new player's is).
    pub provisional: bool,
    /// Rated games played in the pool.
    pub games: i64,
    /// The algorithm's own state.
    pub skill: Skill,
    /// When the last rated game of the pool ended; `None` for a player with none.
    pub rated_at: Option<DateTime<Utc>>,
}

impl PlayerRating {
    /// The default rating of a player with no rated game in `pool`: 1500, deviation 350,
    /// provisional.
    pub fn new(pool: RatingPool) -> PlayerRating {
        PlayerRating::from_skill(Skill::initial(pool), 0, None)
    }

    /// The rating of `skill` after `games` games, the last ended at `rated_at`.
    pub fn from_skill(skill: Skill, games: i64, rated_at: Option<DateTime<Utc>>) -> PlayerRating {
        let deviation = skill.display_deviation();
        PlayerRating {
            rating: skill.display_rating(),
            deviation,
            provisional: deviation > PROVISIONAL_DEVIATION,
            games,
            skill,
            rated_at,
        }
    }
}

/// One seat's rating before and after a rated game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeatRating {
    /// The seat.
    pub seat: Seat,
    /// Its player's rating in the pool before the game, as stored.
    pub before: PlayerRating,
    /// After the game: one more game, `rated_at` the game's end.
    pub after: PlayerRating,
}

impl SeatRating {
    /// The change as shown to people: the display ratings before and after, each rounded to a
    /// whole point, and their difference (after − before, so the three always add up).
    pub fn shown(&self) -> (i64, i64, i64) {
        let before = self.before.rating.round() as i64;
        let after = self.after.rating.round() as i64;
        (before, after, after - before)
    }
}

/// The ratings in `pool` after a rated game that ended at `at` as `finish` says, of the players
/// whose ratings before it are `before` (by seat, one a seat of `finish`). Two players:
/// Glicko-2 ([`glicko`]), each player's deviation first grown by the time since their last rated
/// game; three: Weng-Lin with Plackett-Luce ([`plackett_luce`]) by the finish's places
/// ([`Finish::places`]), with skillratings' default configuration. A rating of the other system
/// than the pool's (never stored for it) counts as a new player's.
pub fn rate_game(
    pool: RatingPool,
    before: &[PlayerRating],
    finish: &Finish<'_>,
    at: DateTime<Utc>,
) -> Vec<SeatRating> {
    let skills: Vec<Skill> = if pool.is_multiplayer() {
        let places = finish.places();
        let players: Vec<(WengLinRating, u32)> = before
            .iter()
            .zip(places)
            .map(|(rating, place)| (weng_lin_of(rating), place))
            .collect();
        plackett_luce::rate(&players, &WengLinConfig::new())
            .into_iter()
            .map(Skill::WengLin)
            .collect()
    } else {
        let now: Vec<Glicko2Rating> = before
            .iter()
            .map(|rating| {
                let periods = glicko::periods_between(rating.rated_at, at);
                glicko::after_inactivity(&glicko_of(rating), periods)
            })
            .collect();
        let outcome = |seat: usize| match finish.winner.map(usize::from) {
            None => Outcomes::DRAW,
            Some(winner) if winner == seat => Outcomes::WIN,
            Some(_) => Outcomes::LOSS,
        };
        (0..now.len())
            .map(|seat| {
                let opponents: Vec<_> = (0..now.len())
                    .filter(|&other| other != seat)
                    .map(|other| (now[other], outcome(seat)))
                    .collect();
                Skill::Glicko2(glicko::rate_period(&now[seat], &opponents, glicko::TAU))
            })
            .collect()
    };
    before
        .iter()
        .zip(skills)
        .zip(0..)
        .map(|((before, skill), seat)| SeatRating {
            seat,
            before: *before,
            after: PlayerRating::from_skill(skill, before.games + 1, Some(at)),
        })
        .collect()
}

fn glicko_of(rating: &PlayerRating) -> Glicko2Rating {
    match rating.skill {
        Skill::Glicko2(g) => g,
        Skill::WengLin(_) => Glicko2Rating::new(),
    }
}

fn weng_lin_of(rating: &PlayerRating) -> WengLinRating {
    match rating.skill {
        Skill::WengLin(w) => w,
        Skill::Glicko2(_) => WengLinRating::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{ClockSettings, CorrespondenceSettings};

    fn fischer(initial_s: u32, increment_s: u32) -> Speed {
        Speed::of(&TimeControl::Fischer(ClockSettings {
            initial_s,
            increment_s,
        }))
    }

    #[test]
    fn speed_thresholds_sit_at_8_and_25_estimated_minutes() {
        // initial + 40 × increment: 479 s blitz, 480 s rapid; 1499 s rapid, 1500 s classical.
        assert_eq!(fischer(479, 0), Speed::Blitz);
        assert_eq!(fischer(480, 0), Speed::Rapid);
        assert_eq!(fischer(79, 10), Speed::Blitz);
        assert_eq!(fischer(80, 10), Speed::Rapid);
        assert_eq!(fischer(1499, 0), Speed::Rapid);
        assert_eq!(fischer(1500, 0), Speed::Classical);
        assert_eq!(fischer(899, 15), Speed::Rapid);
        assert_eq!(fischer(900, 15), Speed::Classical);
        assert_eq!(fischer(1, 0), Speed::Blitz);
        assert_eq!(fischer(180, 2), Speed::Blitz);
        assert_eq!(fischer(10_800, 180), Speed::Classical);
        for days_per_move in crate::domain::DAYS_PER_MOVE {
            let clock = TimeControl::Correspondence(CorrespondenceSettings { days_per_move });
            assert_eq!(Speed::of(&clock), Speed::Correspondence);
        }
    }

    #[test]
    fn speeds_read_back_their_words() {
        for speed in Speed::ALL {
            assert_eq!(speed.as_str().parse::<Speed>(), Ok(speed));
            assert_eq!(
                serde_json::to_value(speed).unwrap(),
                serde_json::Value::from(speed.as_str())
            );
        }
        assert!("Blitz".parse::<Speed>().is_err());
        assert!("bullet".parse::<Speed>().is_err());
    }

    #[test]
    fn a_new_rating_is_1500_350_and_provisional_on_both_scales() {
        for players in [2, 3] {
            let pool = RatingPool {
                game: GameKind::KhanTsin,
                players,
                speed: Speed::Rapid,
            };
            let rating = PlayerRating::new(pool);
            assert_eq!((rating.rating, rating.games), (1500.0, 0));
            assert!((rating.deviation - 350.0).abs() < 1e-9, "{rating:?}");
            assert!(rating.provisional);
        }
        let settled = Skill::Glicko2(Glicko2Rating {
            rating: 1700.0,
            deviation: 110.0,
            volatility: 0.06,
        });
        assert!(!PlayerRating::from_skill(settled, 20, None).provisional);
        let unsettled = Skill::WengLin(WengLinRating {
            rating: 30.0,
            uncertainty: 110.5 / 42.0,
        });
        let rating = PlayerRating::from_skill(unsettled, 9, None);
        assert_eq!(rating.rating, 1710.0);
        assert!(rating.provisional);
    }

    fn pool(players: u8) -> RatingPool {
        RatingPool {
            game: GameKind::KhanTsin,
            players,
            speed: Speed::Blitz,
        }
    }

    fn at() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-12-01T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn two_new_players_one_win() {
        let new = PlayerRating::new(pool(2));
        let finish = Finish {
            seats: 2,
            winner: Some(1),
            left: &[],
        };
        let rated = rate_game(pool(2), &[new, new], &finish, at());
        assert_eq!(rated[0].shown(), (1500, 1338, -162));
        assert_eq!(rated[1].shown(), (1500, 1662, 162));
        for (seat, rated) in rated.iter().enumerate() {
            assert_eq!(usize::from(rated.seat), seat);
            assert_eq!((rated.after.games, rated.after.rated_at), (1, Some(at())));
            assert_eq!(format!("{:.1}", rated.after.deviation), "290.3");
            assert!(rated.after.provisional);
        }
        let drawn = Finish {
            winner: None,
            ..finish
        };
        let rated = rate_game(pool(2), &[new, new], &drawn, at());
        assert_eq!(
            (rated[0].shown(), rated[1].shown()),
            ((1500, 1500, 0), (1500, 1500, 0))
        );
    }

    #[test]
    fn a_year_away_counts_as_new_uncertainty() {
        let year_ago = at() - chrono::Duration::days(365);
        let settled = PlayerRating::from_skill(
            Skill::Glicko2(Glicko2Rating {
                rating: 1500.0,
                deviation: 60.0,
                volatility: 0.06,
            }),
            40,
            Some(year_ago),
        );
        let new = PlayerRating::new(pool(2));
        let finish = Finish {
            seats: 2,
            winner: Some(0),
            left: &[],
        };
        let back = rate_game(pool(2), &[settled, new], &finish, at());
        let fresh = rate_game(pool(2), &[new, new], &finish, at());
        assert_eq!(back[0].after.skill, fresh[0].after.skill);
        assert_eq!(back[1].after.skill, fresh[1].after.skill);
        assert_eq!(back[0].after.games, 41);
        // A day away instead: φ = 62.66/173.7178 = 0.3607; with the game's own period
        // φ*² = 0.1301 + 0.0036; g(350) = 0.6691, E = 1/2, v = 1/(g²/4) = 8.936;
        // φ' = (1/φ*² + 1/v)^−½ = 0.3629, and r' − r = φ'²·g·(1 − 1/2)·173.7178 = +7.65.
        let yesterday = PlayerRating {
            rated_at: Some(at() - chrono::Duration::days(1)),
            ..settled
        };
        let rated = rate_game(pool(2), &[yesterday, new], &finish, at());
        assert_eq!(rated[0].shown(), (1500, 1508, 8));
        assert!(
            (rated[0].after.rating - 1507.65).abs() < 0.01,
            "{:?}",
            rated[0]
        );
    }

    #[test]
    fn three_players_are_rated_by_their_places() {
        let new = PlayerRating::new(pool(3));
        // Seat 0 left, seat 2 won, seat 1 played on: places 3, 2, 1.
        let finish = Finish {
            seats: 3,
            winner: Some(2),
            left: &[0],
        };
        let rated = rate_game(pool(3), &[new, new, new], &finish, at());
        let expected = plackett_luce::rate(
            &[
                (WengLinRating::new(), 3),
                (WengLinRating::new(), 2),
                (WengLinRating::new(), 1),
            ],
            &WengLinConfig::new(),
        );
        for (rated, expected) in rated.iter().zip(expected) {
            assert_eq!(rated.after.skill, Skill::WengLin(expected));
            assert_eq!(rated.after.rating, 1500.0 + 42.0 * (expected.rating - 25.0));
        }
        // 42 × 2.868876552746237 = 120.49; 42 × 0.717219138186557 = 30.12; 42 × −3.586 = −150.61.
        let shown: Vec<_> = rated.iter().map(SeatRating::shown).collect();
        assert_eq!(
            shown,
            [(1500, 1349, -151), (1500, 1530, 30), (1500, 1620, 120)]
        );
    }
}
