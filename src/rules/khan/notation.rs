//! Move notation (rules file, "Notation"): a move is its squares joined by `-`.
//!
//! A step or push `e2-e3`, a Soldier move `h7-i1` or its whole support path `h7-h5-g3-i1`, a jump
//! chain `f3-h5-f7-d7-d9`. Reading checks only the spelling; what the squares mean is decided by
//! the position (`moves::play`).

use super::board::Square;
use crate::rules::{RuleError, RuleErrorCode};

/// The most squares a move may name: a jump chain never lands twice on a square (K-12), and a
/// longer support path than this adds nothing a shorter one cannot do.
pub const MAX_SQUARES: usize = 100;

/// The squares of a move text, in order. Errors: `BadNotation` when the text is not two or more
/// squares `a1`..`j10` joined by single `-`, or names more than [`MAX_SQUARES`] squares.
pub fn parse_path(text: &str) -> Result<Vec<Square>, RuleError> {
    let bad = |why: String| RuleError::new(RuleErrorCode::BadNotation, why);
    // Each square takes 2 or 3 characters and a '-'; refuse absurd lengths before looking.
    if text.len() > MAX_SQUARES * 4 {
        return Err(bad(format!(
            "a Khan move names at most {MAX_SQUARES} squares; this text has {} characters",
            text.len()
        )));
    }
    let mut path = Vec::new();
    for part in text.split('-') {
        let sq = part.parse::<Square>().map_err(|_| {
            bad(format!(
                "{text:?} is not a Khan move: {part:?} is not a square (a1 to j10); write the squares joined by '-', e.g. e2-e3"
            ))
        })?;
        path.push(sq);
    }
    if path.len() < 2 {
        return Err(bad(format!(
            "{text:?} is not a Khan move: a move names at least two squares joined by '-', e.g. e2-e3"
        )));
    }
    if path.len() > MAX_SQUARES {
        return Err(bad(format!(
            "a Khan move names at most {MAX_SQUARES} squares; this one names {}",
            path.len()
        )));
    }
    Ok(path)
}

/// The text of a path: its squares joined by `-`.
pub fn write_path(path: &[Square]) -> String {
    let mut text = String::with_capacity(path.len() * 4);
    for (i, sq) in path.iter().enumerate() {
        if i > 0 {
            text.push('-');
        }
        sq.push_to(&mut text);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_round_trip() {
        for text in [
            "e2-e3",
            "h7-h5-g3-i1",
            "f3-h5-f7-d7-d9",
            "a1-j10",
            "j10-a10",
        ] {
            let path = parse_path(text).unwrap();
            assert_eq!(write_path(&path), text);
        }
    }

    #[test]
    fn malformed_moves_are_bad_notation() {
        for bad in [
            "", "e2", "e2-", "-e2", "e2--e3", "e2e3", "e2-e11", "E2-E3", "e2 - e3", " e2-e3",
            "k1-k2", "e2-e3-", "hello", "é2-e3", "e0-e1",
        ] {
            let err = parse_path(bad).unwrap_err();
            assert_eq!(err.code, RuleErrorCode::BadNotation, "{bad:?}");
        }
        let long = vec!["a1"; 101].join("-");
        assert_eq!(
            parse_path(&long).unwrap_err().code,
            RuleErrorCode::BadNotation
        );
    }
}
