//! Reading and writing FEN as Fairy-Stockfish does for variant `cambodian` (O-3..O-5).
//!
//! Six space-separated fields: placement (`rnsmksnr/8/...`, White upper case, a promoted Neang may
//! be written `M~` / `m~`), side (`w` / `b`), rights (`DEde` letters or `-`), then either `-` and
//! the halfmove clock, or — while a count runs — the counting limit and the counting ply (both in
//! plies), and the move number. Fields 3–6 may be left off (defaults `-`, `-`, `0`, `1`), as
//! Fairy-Stockfish allows. Writing gives the canonical form: all six fields, `M` for every Neang.
//!
//! Reading never panics, and refuses positions the rules cannot play from: a side without exactly
//! one King, more than 16 pieces a side, a pawn on or past its promotion rank, a right whose piece
//! is not on its home square, or the side not to move in check.

use std::fmt;
use std::str::FromStr;

use super::board::{Board, Color, Piece, Role, Square, squares};
use super::position::{CountingFields, Position, Rights};
use crate::rules::{RuleError, RuleErrorCode};

fn bad(why: impl fmt::Display) -> RuleError {
    RuleError::new(RuleErrorCode::BadPosition, format!("bad FEN: {why}"))
}

impl Position {
    /// Reads a FEN (see the module documentation for the fields).
    ///
    /// Errors: `BadPosition` with a sentence saying which field is wrong and how.
    pub fn from_fen(fen: &str) -> Result<Position, RuleError> {
        let fields: Vec<&str> = fen.split_ascii_whitespace().collect();
        if fields.len() < 2 || fields.len() > 6 {
            return Err(bad(format!(
                "expected 2 to 6 space-separated fields (placement, side, rights, counting limit or -, \
                 counting ply or halfmove clock, move number), found {}",
                fields.len()
            )));
        }
        let field = |i: usize, default: &'static str| fields.get(i).copied().unwrap_or(default);

        let (board, promoted) = parse_placement(fields[0])?;
        let side = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(bad(format!("side to move must be w or b, not {other:?}"))),
        };
        let rights = parse_rights(field(2, "-"), &board, promoted)?;
        let limit = match field(3, "-") {
            "-" => None,
            text => {
                let limit = parse_number(text, "the counting limit (field 4)")?;
                if limit == 0 {
                    return Err(bad(
                        "the counting limit (field 4) must be positive, or - when no count runs",
                    ));
                }
                Some(limit)
            }
        };
        let fifth = parse_number(
            field(4, "0"),
            "the halfmove clock or counting ply (field 5)",
        )?;
        // Fairy-Stockfish reads a move number of 0 as 1 (a common slip in hand-written FENs).
        let fullmove = parse_number(field(5, "1"), "the move number (field 6)")?.max(1);
        let (halfmove_clock, counting) = match limit {
            Some(limit) => (0, Some(CountingFields { limit, ply: fifth })),
            None => (fifth, None),
        };

        let position = Position {
            board,
            side,
            rights,
            halfmove_clock,
            fullmove,
            counting,
        };
        validate(&position)?;
        Ok(position)
    }
}

impl FromStr for Position {
    type Err = RuleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Position::from_fen(s)
    }
}

/// Reads field 1. Also returns the squares of Neangs marked promoted (`~`), which have no leap
/// right (O-10).
fn parse_placement(text: &str) -> Result<(Board, u64), RuleError> {
    let ranks: Vec<&str> = text.split('/').collect();
    if ranks.len() != 8 {
        return Err(bad(format!(
            "the placement (field 1) must have 8 ranks separated by /, found {}",
            ranks.len()
        )));
    }
    let mut board = Board::empty();
    let mut promoted = 0;
    for (row, rank_text) in ranks.iter().enumerate() {
        let rank_number = 8 - row;
        let rank = (7 - row) as u8;
        let mut file: u8 = 0;
        let mut chars = rank_text.chars().peekable();
        while let Some(c) = chars.next() {
            if let Some(skip) = c.to_digit(10) {
                if skip == 0 || skip > 8 {
                    return Err(bad(format!(
                        "rank {rank_number} of the placement has the digit {c}; use 1 to 8"
                    )));
                }
                file = file.saturating_add(skip as u8);
            } else if let Some(role) = Role::from_char(c) {
                let color = if c.is_ascii_uppercase() {
                    Color::White
                } else {
                    Color::Black
                };
                let Some(sq) = Square::new(file, rank) else {
                    return Err(bad(format!(
                        "rank {rank_number} of the placement has more than 8 squares"
                    )));
                };
                board.put(sq, Piece { color, role });
                if chars.peek() == Some(&'~') {
                    chars.next();
                    if role != Role::Neang {
                        return Err(bad(format!(
                            "{c}~ on {sq}: ~ marks a promoted Neang and may only follow m or M"
                        )));
                    }
                    promoted |= sq.bit();
                }
                file += 1;
            } else {
                return Err(bad(format!(
                    "rank {rank_number} of the placement has {c:?}; pieces are k m s n r p (White upper \
                     case) and digits count empty squares"
                )));
            }
            if file > 8 {
                return Err(bad(format!(
                    "rank {rank_number} of the placement has more than 8 squares"
                )));
            }
        }
        if file != 8 {
            return Err(bad(format!(
                "rank {rank_number} of the placement has {file} squares, not 8"
            )));
        }
    }
    Ok((board, promoted))
}

fn parse_rights(text: &str, board: &Board, promoted: u64) -> Result<Rights, RuleError> {
    if text == "-" {
        return Ok(Rights::NONE);
    }
    let mut rights = Rights::NONE;
    for c in text.chars() {
        let Some(&(bit, letter, color, role, home)) =
            Rights::TABLE.iter().find(|entry| entry.1 == c)
        else {
            return Err(bad(format!(
                "the rights (field 3) may hold only D, E, d, e (or be -), not {c:?}"
            )));
        };
        if rights.contains_bit(bit) {
            return Err(bad(format!("the rights (field 3) repeat {letter}")));
        }
        let piece = Piece { color, role };
        if board.piece_at(home) != Some(piece) || promoted & home.bit() != 0 {
            return Err(bad(format!(
                "right {letter} belongs to the {color} {} on {home}, which is not there (O-4)",
                role.name()
            )));
        }
        rights = rights.with_bit(bit);
    }
    Ok(rights)
}

fn parse_number(text: &str, what: &str) -> Result<u32, RuleError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad(format!("{what} must be a whole number, not {text:?}")));
    }
    text.parse()
        .map_err(|_| bad(format!("{what} is too large: {text}")))
}

fn validate(pos: &Position) -> Result<(), RuleError> {
    let board = &pos.board;
    for color in Color::ALL {
        let kings = board.pieces(color, Role::King).count_ones();
        if kings != 1 {
            return Err(bad(format!(
                "{color} must have exactly one King, not {kings}"
            )));
        }
        let pieces = board.count(color);
        if pieces > 16 {
            return Err(bad(format!(
                "{color} has {pieces} pieces; a side has at most 16"
            )));
        }
        // O-10: a pawn reaching its promotion rank becomes a Neang at once, so none stands there
        // or beyond.
        let rank = color.promotion_rank();
        let beyond: u64 = match color {
            Color::White => !0 << (8 * rank),
            Color::Black => !0 >> (8 * (7 - rank)),
        };
        if let Some(sq) = squares(board.pieces(color, Role::Pawn) & beyond).next() {
            return Err(bad(format!(
                "the {color} pawn on {sq} is on or past its promotion rank, where it would be a Neang (O-10)"
            )));
        }
    }
    let them = !pos.side;
    let their_king = board.king(them);
    if pos.attackers(their_king, board.occupied(), pos.side) != 0 {
        return Err(bad(format!(
            "{them} is in check but it is {}'s move",
            pos.side
        )));
    }
    Ok(())
}

impl fmt::Display for Position {
    /// The canonical FEN (all six fields; promoted Neangs written as plain `M` / `m`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..8u8).rev() {
            let mut empty = 0;
            for file in 0..8u8 {
                let piece = Square::new(file, rank).and_then(|sq| self.board.piece_at(sq));
                match piece {
                    None => empty += 1,
                    Some(piece) => {
                        if empty > 0 {
                            write!(f, "{empty}")?;
                            empty = 0;
                        }
                        write!(f, "{}", piece.char())?;
                    }
                }
            }
            if empty > 0 {
                write!(f, "{empty}")?;
            }
            if rank > 0 {
                f.write_str("/")?;
            }
        }
        f.write_str(match self.side {
            Color::White => " w ",
            Color::Black => " b ",
        })?;
        if self.rights.is_empty() {
            f.write_str("-")?;
        }
        for (bit, letter, ..) in Rights::TABLE {
            if self.rights.contains_bit(bit) {
                write!(f, "{letter}")?;
            }
        }
        match self.counting {
            Some(counting) => write!(f, " {} {}", counting.limit, counting.ply)?,
            None => write!(f, " - {}", self.halfmove_clock)?,
        }
        write!(f, " {}", self.fullmove)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1";

    #[test]
    fn start_position_reads_and_writes_its_fen() {
        assert_eq!(Position::start().to_string(), START);
        assert_eq!(Position::from_fen(START).unwrap(), Position::start());
    }

    #[test]
    fn fens_round_trip() {
        for fen in [
            START,
            "r1s1ks1r/3nm3/pppNpppp/3n4/5P2/PPPPPNPP/8/R1SKMS1R b DEe - 0 5",
            "rnsmks1r/4n3/pppNpppp/3p4/8/PPPPPPPP/8/R1SKMSNR b DEde - 1 3",
            "3k4/2m5/5M2/4M3/3KS3/8/8/8 w - 126 36 1",
            "8/2K3k1/5m2/4S1S1/8/8/8/8 w - 128 97 1",
            "8/8/8/4n1p1/6m1/1m2k3/8/4K1r1 w - 126 38 63",
            "r4s1r/2s2k2/1p1mNnp1/p2p3p/P2Pp2P/1P2P1P1/1K1S2S1/R3MR2 w E - 8 21",
        ] {
            assert_eq!(Position::from_fen(fen).unwrap().to_string(), fen);
        }
    }

    #[test]
    fn promoted_neang_marks_are_read_and_written_plain() {
        let pos = Position::from_fen("3k4/2m5/5M~2/4M3/3KS3/8/8/8 w - 126 36 1").unwrap();
        assert_eq!(pos.to_string(), "3k4/2m5/5M2/4M3/3KS3/8/8/8 w - 126 36 1");
        let pos = Position::from_fen("3k4/2m~5/8/4M3/3KS3/8/8/8 b - - 3 9").unwrap();
        assert_eq!(pos.to_string(), "3k4/2m5/8/4M3/3KS3/8/8/8 b - - 3 9");
    }

    #[test]
    fn counting_fields_and_clock() {
        let pos = Position::from_fen("3k4/2m5/5M2/4M3/3KS3/8/8/8 w - 126 36 1").unwrap();
        assert_eq!(
            pos.counting(),
            Some(CountingFields {
                limit: 126,
                ply: 36
            })
        );
        assert_eq!(pos.halfmove_clock(), 0);
        let pos = Position::from_fen("3k4/2m5/5M2/4M3/3KS3/8/8/8 w - - 17 40").unwrap();
        assert_eq!(pos.counting(), None);
        assert_eq!(pos.halfmove_clock(), 17);
        assert_eq!(pos.fullmove_number(), 40);
    }

    #[test]
    fn short_fens_take_defaults() {
        let pos = Position::from_fen("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde").unwrap();
        assert_eq!(pos.to_string(), START);
        let pos = Position::from_fen("4k3/8/8/8/8/8/8/3K4 b").unwrap();
        assert_eq!(pos.to_string(), "4k3/8/8/8/8/8/8/3K4 b - - 0 1");
        let pos = Position::from_fen("4k3/8/8/8/8/8/8/3K4 b - - 0 0").unwrap();
        assert_eq!(pos.fullmove_number(), 1);
    }

    #[test]
    fn malformed_fens_say_what_is_wrong() {
        let cases = [
            ("", "fields"),
            ("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR", "fields"),
            (
                "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/RNSKMSNR w DEde - 0 1",
                "8 ranks",
            ),
            (
                "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSN w DEde - 0 1",
                "7 squares",
            ),
            (
                "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNRR w DEde - 0 1",
                "more than 8",
            ),
            (
                "rnsmksnr/8/pppppppp/9/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1",
                "digit 9",
            ),
            (
                "rnsmksnr/8/pppppppp/0/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1",
                "digit 0",
            ),
            (
                "rnsqksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1",
                "'q'",
            ),
            (
                "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR x DEde - 0 1",
                "w or b",
            ),
            (
                "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w KQkq - 0 1",
                "'K'",
            ),
            (
                "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DDe - 0 1",
                "repeat D",
            ),
            (
                "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde e3 0 1",
                "whole number",
            ),
            (
                "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde 0 0 1",
                "positive",
            ),
            (
                "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - -1 1",
                "whole number",
            ),
            (
                "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 99999999999",
                "too large",
            ),
            (
                "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1 x",
                "fields",
            ),
            (
                "rnsm1snr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEd - 0 1",
                "exactly one King",
            ),
            (
                "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKKSNR w DEde - 0 1",
                "right E",
            ),
            (
                "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNS1MSNR w de - 0 1",
                "exactly one King",
            ),
            (
                "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSK1SNR w DE - 0 1",
                "right E",
            ),
            (
                "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKM~SNR w DE - 0 1",
                "right E",
            ),
            (
                "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMS~NR w DE - 0 1",
                "~",
            ),
            ("4k3/8/P7/8/8/8/8/3K4 w - - 0 1", "promotion rank"),
            ("4k3/8/8/8/8/p7/8/3K4 w - - 0 1", "promotion rank"),
            ("4k2R/8/8/8/8/8/8/3K4 w - - 0 1", "Black is in check"),
            ("RRRRkRRR/RRRRRRRR/R7/8/8/8/8/3K4 b - - 0 1", "at most 16"),
        ];
        for (fen, expected) in cases {
            let err = Position::from_fen(fen).unwrap_err();
            assert_eq!(err.code, RuleErrorCode::BadPosition, "{fen}");
            assert!(
                err.message.contains(expected),
                "{fen}: {:?} should mention {expected:?}",
                err.message
            );
        }
    }
}
