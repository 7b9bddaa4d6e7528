//! Moves and their UCI spelling, as Fairy-Stockfish writes them for variant `cambodian`.
//!
//! UCI names a move by its two squares, plus `m` when a pawn promotes (O-10): `e3e4`, `g5g6m`. The
//! special first moves need no mark: a King leap is `d1b2` (a King otherwise never moves two
//! files), a Neang leap `e1e3` (a Neang otherwise never moves straight). So a [`Move`] is just
//! those three facts; what kind of move it is follows from the position it is played in.

use std::fmt;
use std::str::FromStr;

use super::board::Square;
use crate::rules::{RuleError, RuleErrorCode};

/// A move in UCI terms: from-square, to-square, promotion flag.
///
/// Parsing (`"e3e4".parse::<Move>()`) checks only the spelling; whether the move is legal is the
/// position's business (`Position::parse_uci`). Packed into 16 bits so move lists stay small.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move(u16);

impl Move {
    /// The move from `from` to `to`; `promotion` when a pawn becomes a Neang (O-10).
    pub fn new(from: Square, to: Square, promotion: bool) -> Move {
        Move(from.index() as u16 | (to.index() as u16) << 6 | u16::from(promotion) << 12)
    }

    /// The square the piece leaves.
    pub fn from(self) -> Square {
        Square::from_index(u32::from(self.0))
    }

    /// The square the piece goes to.
    pub fn to(self) -> Square {
        Square::from_index(u32::from(self.0 >> 6))
    }

    /// Whether a pawn promotes to a Neang with this move (UCI suffix `m`).
    pub fn is_promotion(self) -> bool {
        self.0 & (1 << 12) != 0
    }
}

impl fmt::Display for Move {
    /// The UCI text, e.g. `e3e4`, `g5g6m`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from(), self.to())?;
        if self.is_promotion() {
            f.write_str("m")?;
        }
        Ok(())
    }
}

impl FromStr for Move {
    type Err = RuleError;

    /// Reads UCI: four characters (`e3e4`) or five with the promotion suffix `m` (`g5g6m`).
    /// Errors: `BadNotation` with a sentence saying what is wrong.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = |why: String| RuleError::new(RuleErrorCode::BadNotation, why);
        if !s.is_ascii() || !(4..=5).contains(&s.len()) {
            return Err(bad(format!(
                "{s:?} is not a UCI move; write the two squares, e.g. e3e4, and m for a promotion, e.g. g5g6m"
            )));
        }
        let from: Square = s[0..2]
            .parse()
            .map_err(|_| bad(format!("{s:?}: {:?} is not a square (a1 to h8)", &s[0..2])))?;
        let to: Square = s[2..4]
            .parse()
            .map_err(|_| bad(format!("{s:?}: {:?} is not a square (a1 to h8)", &s[2..4])))?;
        if from == to {
            return Err(bad(format!("{s:?}: a move must leave its square")));
        }
        let promotion = match &s[4..] {
            "" => false,
            "m" => true,
            other => {
                return Err(bad(format!(
                    "{s:?}: {other:?} is not a promotion; pawns promote only to a Neang, written m"
                )));
            }
        };
        Ok(Move::new(from, to, promotion))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uci_round_trips() {
        for text in ["e3e4", "g5g6m", "d1b2", "e1e3", "a1h8", "h8a1"] {
            let mv: Move = text.parse().unwrap();
            assert_eq!(mv.to_string(), text);
        }
        let mv: Move = "g5g6m".parse().unwrap();
        assert_eq!(mv.from().to_string(), "g5");
        assert_eq!(mv.to().to_string(), "g6");
        assert!(mv.is_promotion());
    }

    #[test]
    fn malformed_moves_are_bad_notation() {
        for bad in [
            "", "e3", "e3e", "e3e4q", "e3e4M", "e9e4", "i3e4", "e3e3", "e3e4mm", "hello", "é3e4",
            "e3-e4", " e3e4",
        ] {
            let err = bad.parse::<Move>().unwrap_err();
            assert_eq!(err.code, RuleErrorCode::BadNotation, "{bad:?}");
            assert!(!err.message.is_empty());
        }
    }
}
