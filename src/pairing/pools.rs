//! The pools a server pairs in: a game, its number of players and a time control, configured by
//! the host (`--pairing-pools`); each pool has a casual and a rated side.
//!
//! A pool is written `GAME[:PLAYERS]@CLOCK`, the clock as `MIN+INC` (minutes and increment
//! seconds) or `Nd` (days a move): `khan@3+2`, `khan-tsin:3@5+3`, `ouk-chatrang@1d`. The
//! default list ([`DEFAULT_POOLS`]) is every two-player game at 3+2, 5+3, 10+5, 15+10 and one
//! day a move, and three-player Khan-Tsin at 5+3 and one day a move.

use std::fmt;
use std::str::FromStr;

use serde_json::{Value, json};

use crate::ratings::{RatingPool, Speed};
use crate::room::state::{ClockSettings, CorrespondenceSettings, TimeControl};
use crate::rules::GameKind;

/// The pools of a server that is given none.
pub const DEFAULT_POOLS: &str = "ouk-chatrang@3+2,ouk-chatrang@5+3,ouk-chatrang@10+5,\
ouk-chatrang@15+10,ouk-chatrang@1d,khan@3+2,khan@5+3,khan@10+5,khan@15+10,khan@1d,\
khan-tsin@3+2,khan-tsin@5+3,khan-tsin@10+5,khan-tsin@15+10,khan-tsin@1d,\
khan-tsin:3@5+3,khan-tsin:3@1d";

/// One pool: who is paired together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pool {
    /// The game.
    pub game: GameKind,
    /// Its number of players: 2, or 3 for Khan-Tsin.
    pub players: u8,
    /// The time control every game of the pool is played at.
    pub clock: TimeControl,
}

impl Pool {
    /// The pool's key among the waiting rows of the database: its text and its side
    /// (`khan@3+2/rated`).
    pub fn key(&self, rated: bool) -> String {
        format!("{self}/{}", if rated { "rated" } else { "casual" })
    }

    /// The clock as a create request's `clock` (and the pairing request's).
    pub fn clock_json(&self) -> Value {
        json!(self.clock)
    }

    /// The rating pool its players are paired by, and its rated side's games change.
    pub fn rating_pool(&self) -> RatingPool {
        RatingPool {
            game: self.game,
            players: self.players,
            speed: Speed::of(&self.clock),
        }
    }
}

impl fmt::Display for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.game)?;
        if self.players != 2 {
            write!(f, ":{}", self.players)?;
        }
        match self.clock {
            TimeControl::Fischer(c) => {
                write!(f, "@{}+{}", c.initial_s / 60, c.increment_s)
            }
            TimeControl::Correspondence(c) => write!(f, "@{}d", c.days_per_move),
        }
    }
}

impl FromStr for Pool {
    type Err = String;

    /// Reads `GAME[:PLAYERS]@CLOCK` (see the module's doc); the error is a sentence for people.
    fn from_str(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let (game_part, clock_part) = text
            .split_once('@')
            .ok_or_else(|| format!("pool {text:?}: GAME[:PLAYERS]@CLOCK, e.g. khan@3+2"))?;
        let (game, players) = match game_part.split_once(':') {
            Some((game, players)) => (
                game,
                players
                    .parse::<u8>()
                    .map_err(|_| format!("pool {text:?}: players is 2 or 3"))?,
            ),
            None => (game_part, 2),
        };
        let game: GameKind = game
            .parse()
            .map_err(|e: crate::rules::RuleError| format!("pool {text:?}: {}", e.message))?;
        let most = if game == GameKind::KhanTsin { 3 } else { 2 };
        if !(2..=most).contains(&players) {
            let by = if most == 2 {
                "2 players only".to_owned()
            } else {
                format!("2 to {most} players")
            };
            return Err(format!("pool {text:?}: {game} is played by {by}"));
        }
        let clock = if let Some(days) = clock_part.strip_suffix('d') {
            let days_per_move = days
                .parse()
                .map_err(|_| format!("pool {text:?}: days a move is a number, e.g. 1d"))?;
            TimeControl::parse(&json!(CorrespondenceSettings { days_per_move }))
        } else {
            let (minutes, increment) = clock_part
                .split_once('+')
                .ok_or_else(|| format!("pool {text:?}: the clock is MIN+INC or Nd"))?;
            let parse = |n: &str| {
                n.parse::<u32>()
                    .map_err(|_| format!("pool {text:?}: the clock is MIN+INC or Nd"))
            };
            let settings = ClockSettings {
                initial_s: parse(minutes)?.saturating_mul(60),
                increment_s: parse(increment)?,
            };
            TimeControl::parse(&json!(settings))
        }
        .map_err(|e| format!("pool {text:?}: {e}"))?;
        Ok(Pool {
            game,
            players,
            clock,
        })
    }
}

/// The pools a server pairs in.
#[derive(Clone, Debug, PartialEq)]
pub struct Pools(Vec<Pool>);

impl Pools {
    /// Reads a comma-separated list of pools (see the module's doc); an empty list is refused,
    /// and so is a pool given twice.
    pub fn parse(list: &str) -> Result<Self, String> {
        let mut pools: Vec<Pool> = Vec::new();
        for text in list.split(',').filter(|t| !t.trim().is_empty()) {
            let pool: Pool = text.parse()?;
            if pools.contains(&pool) {
                return Err(format!("pool {pool} is listed twice"));
            }
            pools.push(pool);
        }
        if pools.is_empty() {
            return Err("at least one pool".into());
        }
        Ok(Pools(pools))
    }

    /// The pools, in the order they were listed.
    pub fn all(&self) -> &[Pool] {
        &self.0
    }

    /// The pool of `game` for `players` at `clock`, if the server has it.
    pub fn find(&self, game: GameKind, players: u8, clock: &TimeControl) -> Option<Pool> {
        self.0
            .iter()
            .copied()
            .find(|p| p.game == game && p.players == players && p.clock == *clock)
    }
}

impl fmt::Display for Pools {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = self.0.iter().map(ToString::to_string).collect();
        f.write_str(&names.join(","))
    }
}

impl Default for Pools {
    fn default() -> Self {
        Pools::parse(DEFAULT_POOLS).expect("the default pools read")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_pools_are_every_two_player_game_at_five_clocks_and_three_player_khan_tsin_at_two()
     {
        let pools = Pools::default();
        let names: Vec<String> = pools.all().iter().map(ToString::to_string).collect();
        assert_eq!(names.len(), 17);
        assert_eq!(
            names[..5],
            [
                "ouk-chatrang@3+2",
                "ouk-chatrang@5+3",
                "ouk-chatrang@10+5",
                "ouk-chatrang@15+10",
                "ouk-chatrang@1d"
            ]
        );
        assert_eq!(names[15..], ["khan-tsin:3@5+3", "khan-tsin:3@1d"]);
        let blitz = pools.all()[0];
        assert_eq!(
            blitz.clock_json(),
            json!({"initial_s": 180, "increment_s": 2})
        );
        assert_eq!(blitz.key(true), "ouk-chatrang@3+2/rated");
        assert_eq!(
            pools.find(GameKind::KhanTsin, 3, &pools.all()[16].clock),
            Some(pools.all()[16])
        );
        assert_eq!(pools.all()[16].clock_json(), json!({"days_per_move": 1}));
        assert_eq!(pools.find(GameKind::Khan, 3, &blitz.clock), None);
    }

    #[test]
    fn bad_pools_are_refused_with_the_reason() {
        for (list, why) in [
            ("", "at least one pool"),
            ("khan", "GAME[:PLAYERS]@CLOCK"),
            ("chess@3+2", "unknown game"),
            ("khan:3@3+2", "khan is played by 2 players only"),
            ("khan-tsin:4@5+3", "khan-tsin is played by 2 to 3 players"),
            ("khan@3", "MIN+INC or Nd"),
            ("khan@0+2", "initial_s"),
            ("khan@4d", "days_per_move"),
            ("khan@3+2,khan@3+2", "listed twice"),
        ] {
            let error = Pools::parse(list).expect_err(list);
            assert!(error.contains(why), "{list}: {error}");
        }
    }
}
