//! Move notation (rules file, "Notation"): placements `p12` / `K12`, stack moves `17:2-`, and
//! `pass` for a player with no legal move (T-12).
//!
//! Parsing checks only the spelling; whether a move is legal, and its canonical spelling when
//! both directions reach the same square, is the position's business (`Position::check`).

use std::fmt;
use std::str::FromStr;

use super::layout::SQUARES;
use super::track::Direction;
use crate::rules::{RuleError, RuleErrorCode};

/// A move in Khan-Tsin notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Move {
    /// A placement (T-5): `p12` puts a pawn on square 12, `K12` the Khan-pawn.
    Place {
        /// The square, 0–35.
        square: u8,
        /// Whether the pawn placed is the player's Khan-pawn.
        khan: bool,
    },
    /// A stack move (T-8, T-9): the top `k` pawns of the stack on `from`, round the circle in
    /// `direction`, e.g. `17:2-`.
    Shift {
        /// The starting square, 0–35.
        from: u8,
        /// How many pawns move, from the top; at least 1.
        k: u8,
        /// Which way round: `+` clockwise, `-` counter-clockwise.
        direction: Direction,
    },
    /// `pass`: the player on move has no legal move and skips the turn (T-12). Legal only then.
    Pass,
}

impl fmt::Display for Move {
    /// `p12`, `K12`, `17:2-` or `pass`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Move::Place { square, khan } => write!(f, "{}{square}", if khan { 'K' } else { 'p' }),
            Move::Shift { from, k, direction } => write!(f, "{from}:{k}{direction}"),
            Move::Pass => f.write_str("pass"),
        }
    }
}

fn bad(why: String) -> RuleError {
    RuleError::new(RuleErrorCode::BadNotation, why)
}

/// A decimal number of one or two digits without a leading zero (`0`, `7`, `35`).
fn number(text: &str) -> Option<u8> {
    let well_formed = matches!(text.len(), 1 | 2)
        && text.bytes().all(|b| b.is_ascii_digit())
        && !(text.len() == 2 && text.starts_with('0'));
    if well_formed { text.parse().ok() } else { None }
}

fn square(text: &str, whole: &str, what: &str) -> Result<u8, RuleError> {
    match number(text) {
        Some(n) if usize::from(n) < SQUARES => Ok(n),
        _ => Err(bad(format!(
            "{whole:?}: {what} a square number, 0 to 35 without leading zeros, not {text:?}"
        ))),
    }
}

impl FromStr for Move {
    type Err = RuleError;

    /// Reads `p<square>`, `K<square>`, `<from>:<k><+|->` or `pass`. Squares are 0–35 and `k` at
    /// least 1, written without leading zeros. Errors: `BadNotation`, saying what is wrong.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "pass" {
            return Ok(Move::Pass);
        }
        if let Some(rest) = s.strip_prefix('p') {
            return Ok(Move::Place {
                square: square(rest, s, "a placement is p or K followed by")?,
                khan: false,
            });
        }
        if let Some(rest) = s.strip_prefix('K') {
            return Ok(Move::Place {
                square: square(rest, s, "a placement is p or K followed by")?,
                khan: true,
            });
        }
        let Some((from, rest)) = s.split_once(':') else {
            return Err(bad(format!(
                "{s:?} is not a Khan-Tsin move: a placement is p12 or K12, a stack move \
                 <from>:<k><+|-> such as 17:2-, a skip is pass"
            )));
        };
        let from = square(from, s, "a stack move starts with")?;
        let direction = match rest.chars().last() {
            Some('+') => Direction::Clockwise,
            Some('-') => Direction::CounterClockwise,
            _ => {
                return Err(bad(format!(
                    "{s:?}: a stack move ends with its direction, + (clockwise) or - \
                     (counter-clockwise)"
                )));
            }
        };
        let count = &rest[..rest.len() - 1];
        let k = match number(count) {
            Some(k) if k >= 1 => k,
            _ => {
                return Err(bad(format!(
                    "{s:?}: between ':' and the direction comes how many pawns move, a number \
                     from 1 (T-8), not {count:?}"
                )));
            }
        };
        Ok(Move::Shift { from, k, direction })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notation_round_trips() {
        for text in ["p0", "p12", "K35", "17:2-", "0:1+", "35:9+", "pass"] {
            let mv: Move = text.parse().unwrap();
            assert_eq!(mv.to_string(), text);
        }
        assert_eq!(
            "17:2-".parse::<Move>(),
            Ok(Move::Shift {
                from: 17,
                k: 2,
                direction: Direction::CounterClockwise
            })
        );
    }

    #[test]
    fn bad_notation_says_what_is_wrong() {
        for (text, words) in [
            ("", "not a Khan-Tsin move"),
            ("hello", "not a Khan-Tsin move"),
            ("p36", "0 to 35"),
            ("K", "0 to 35"),
            ("p05", "0 to 35"),
            ("P12", "not a Khan-Tsin move"),
            ("k12", "not a Khan-Tsin move"),
            ("17:2", "direction"),
            ("17:2*", "direction"),
            ("17:0+", "from 1"),
            ("17:+", "from 1"),
            ("17:é+", "from 1"),
            ("99:1+", "0 to 35"),
            (":1+", "0 to 35"),
            ("pass ", "placement is p or K"),
        ] {
            let err = text.parse::<Move>().unwrap_err();
            assert_eq!(err.code, RuleErrorCode::BadNotation, "{text}");
            assert!(err.message.contains(words), "{text}: {}", err.message);
        }
    }
}
