//! Ratings: what a rated game changes in its players' ratings, as pure functions over the
//! `skillratings` crate's types (no I/O, no clock: the time of a game's end enters as an
//! argument). docs/ratings.md says the whole scheme with its numbers.
//!
//! A player has one rating per [`RatingPool`]: a game, its number of players and a [`Speed`].
//! Two-player pools use Glicko-2 (skillratings' `glicko2`); three-player Khan-Tsin uses Weng-Lin
//! with the Plackett-Luce model. Both are shown on one 1500-centred scale ([`PlayerRating`]).
//! The store applies a rated game's changes in the transaction that stores its end.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use skillratings::glicko2::Glicko2Rating;
use skillratings::weng_lin::WengLinRating;

use crate::domain::UnknownWord;
use crate::room::state::TimeControl;
use crate::rules::GameKind;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::room::state::{ClockSettings, CorrespondenceSettings};

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
        for days_per_move in crate::room::state::DAYS_PER_MOVE {
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
}
