//! One position: the board and the side to move, its position text, and whether someone has
//! already won on it (K-14, K-15).
//!
//! Position text (rules file, "Notation"): the 10 ranks from rank 10 down to rank 1 separated by
//! `/`, each from file a to j: `S` White Soldier, `K` White Khan, `s` Black Soldier, `k` Black
//! Khan, a number 1..10 for a run of empty squares; then a space and `w` or `b`. What is written
//! is canonical (empty runs merged), so equal positions have equal texts.

use std::fmt;
use std::str::FromStr;

use super::board::{Board, Color, Piece, Role, Square};
use crate::rules::{EndReason, RuleError, RuleErrorCode};

/// The start position (K-3), White to move (K-2).
pub const START_TEXT: &str =
    "ssssssssss/k1k1kk1k1k/ssssssssss/10/10/10/10/SSSSSSSSSS/K1K1KK1K1K/SSSSSSSSSS w";

/// The longest position text: 100 letters, 9 slashes, a space and the side.
const MAX_TEXT: usize = 111;

/// Most Soldiers a side has (K-3); moves never add pieces.
pub const MAX_SOLDIERS: u32 = 20;

/// Most Khans a side has (K-3).
pub const MAX_KHANS: u32 = 6;

/// A board and the side to move: everything that makes two positions the same for repetition
/// (K-17). Small and `Copy`; moves make new positions rather than changing one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub(super) board: Board,
    pub(super) side: Color,
}

impl Position {
    /// The start position (K-3): Soldiers on ranks 1, 3, 8 and 10, Khans on a c e f h j of ranks 2
    /// and 9; White to move (K-2).
    pub fn start() -> Position {
        let mut board = Board::empty();
        for file in 0..10 {
            for (rank, color) in [(0, Color::White), (2, Color::White)]
                .into_iter()
                .chain([(7, Color::Black), (9, Color::Black)])
            {
                if let Some(sq) = Square::new(file, rank) {
                    board.put(
                        sq,
                        Piece {
                            color,
                            role: Role::Soldier,
                        },
                    );
                }
            }
            if [0, 2, 4, 5, 7, 9].contains(&file) {
                for (rank, color) in [(1, Color::White), (8, Color::Black)] {
                    if let Some(sq) = Square::new(file, rank) {
                        board.put(
                            sq,
                            Piece {
                                color,
                                role: Role::Khan,
                            },
                        );
                    }
                }
            }
        }
        Position {
            board,
            side: Color::White,
        }
    }

    /// A position from its pieces and the side to move. Nothing is checked; see
    /// [`Position::from_text`] for the checks a position text gets.
    pub fn from_parts(board: Board, side: Color) -> Position {
        Position { board, side }
    }

    /// Where the pieces stand.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The side to move.
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// Whether `color` has won on this board: a Soldier of theirs on their goal row (K-14, reason
    /// `goal_row`), else no Soldier of the other side left (K-15, reason `no_soldiers`).
    pub fn won(&self, color: Color) -> Option<EndReason> {
        if self.board.pieces(color, Role::Soldier) & color.goal_row() != 0 {
            Some(EndReason::GoalRow)
        } else if self.board.pieces(!color, Role::Soldier) == 0 {
            Some(EndReason::NoSoldiers)
        } else {
            None
        }
    }

    /// The side that has won on this board and why (K-14 before K-15), if either has. A position
    /// text where both sides have won is refused, so at most one side has on a position that was
    /// read or reached by play; should both, the side that just moved (not on move) is named.
    pub fn winner(&self) -> Option<(Color, EndReason)> {
        let mover = !self.side;
        self.won(mover)
            .map(|reason| (mover, reason))
            .or_else(|| self.won(self.side).map(|reason| (self.side, reason)))
    }

    /// Whether the game is over on this board by K-14 or K-15.
    pub fn is_won(&self) -> bool {
        self.winner().is_some()
    }

    /// Reads a position text (see the module doc).
    ///
    /// Errors: `BadPosition`, saying what is wrong: not 10 ranks of 10 squares, an unknown letter,
    /// a bad number, a side other than `w`/`b`, more than 20 Soldiers or 6 Khans of a side (K-3),
    /// or both sides having won already (K-14/K-15). A position where one side has won is read;
    /// a game started there is over at once.
    pub fn from_text(text: &str) -> Result<Position, RuleError> {
        let bad = |why: String| RuleError::new(RuleErrorCode::BadPosition, why);
        let text = text.trim();
        if text.len() > MAX_TEXT {
            return Err(bad(format!(
                "a Khan position text has at most {MAX_TEXT} characters; this one has {}",
                text.len()
            )));
        }
        let Some((placement, side)) = text.split_once(' ') else {
            return Err(bad(format!(
                "{text:?} is not a Khan position: write the 10 ranks, a space and w or b"
            )));
        };
        let side = match side {
            "w" => Color::White,
            "b" => Color::Black,
            other => {
                return Err(bad(format!("the side to move is w or b, not {other:?}")));
            }
        };
        let ranks: Vec<&str> = placement.split('/').collect();
        if ranks.len() != 10 {
            return Err(bad(format!(
                "a Khan position has 10 ranks separated by '/'; {placement:?} has {}",
                ranks.len()
            )));
        }
        let mut board = Board::empty();
        for (row, rank_text) in ranks.iter().enumerate() {
            let rank = 9 - row as u8;
            let label = rank + 1;
            let mut file: u32 = 0;
            let mut chars = rank_text.char_indices().peekable();
            while let Some((at, c)) = chars.next() {
                if let Some(piece) = Piece::from_char(c) {
                    if let Some(sq) = u8::try_from(file).ok().and_then(|f| Square::new(f, rank)) {
                        board.put(sq, piece);
                    }
                    file += 1;
                } else if c.is_ascii_digit() {
                    let mut end = at + 1;
                    while let Some(&(i, d)) = chars.peek() {
                        if !d.is_ascii_digit() {
                            break;
                        }
                        end = i + 1;
                        chars.next();
                    }
                    let digits = &rank_text[at..end];
                    let run = match digits.parse::<u32>() {
                        Ok(n @ 1..=10) if !digits.starts_with('0') => n,
                        _ => {
                            return Err(bad(format!(
                                "rank {label} ({rank_text:?}): {digits:?} is not a run of 1 to 10 empty squares"
                            )));
                        }
                    };
                    file += run;
                } else {
                    return Err(bad(format!(
                        "rank {label} ({rank_text:?}): {c:?} is not a piece; the pieces are S K (White) and s k (Black)"
                    )));
                }
                if file > 10 {
                    break;
                }
            }
            if file != 10 {
                return Err(bad(format!(
                    "rank {label} ({rank_text:?}) has {} squares; a rank has 10",
                    if file > 10 {
                        "more than 10".to_owned()
                    } else {
                        file.to_string()
                    }
                )));
            }
        }
        for color in [Color::White, Color::Black] {
            for (role, most, name) in [
                (Role::Soldier, MAX_SOLDIERS, "Soldiers"),
                (Role::Khan, MAX_KHANS, "Khans"),
            ] {
                let n = board.count(color, role);
                if n > most {
                    return Err(bad(format!(
                        "{color} has {n} {name}; a side has at most {most} (K-3)"
                    )));
                }
            }
        }
        let pos = Position { board, side };
        if let (Some(white), Some(black)) = (pos.won(Color::White), pos.won(Color::Black)) {
            return Err(bad(format!(
                "both sides have already won here (White by {white}, Black by {black}; K-14, K-15)"
            )));
        }
        Ok(pos)
    }
}

impl Default for Position {
    fn default() -> Self {
        Position::start()
    }
}

impl FromStr for Position {
    type Err = RuleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Position::from_text(s)
    }
}

impl fmt::Display for Position {
    /// The canonical position text, e.g. [`START_TEXT`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = String::with_capacity(MAX_TEXT);
        for rank in (0..10).rev() {
            let mut empty = 0;
            for file in 0..10 {
                let piece = Square::new(file, rank).and_then(|sq| self.board.piece_at(sq));
                match piece {
                    None => empty += 1,
                    Some(piece) => {
                        if empty > 0 {
                            text.push_str(&empty.to_string());
                            empty = 0;
                        }
                        text.push(piece.char());
                    }
                }
            }
            if empty > 0 {
                text.push_str(&empty.to_string());
            }
            if rank > 0 {
                text.push('/');
            }
        }
        text.push(' ');
        text.push(match self.side {
            Color::White => 'w',
            Color::Black => 'b',
        });
        f.write_str(&text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_text_round_trips() {
        assert_eq!(Position::start().to_string(), START_TEXT);
        assert_eq!(Position::from_text(START_TEXT), Ok(Position::start()));
    }

    #[test]
    fn bad_texts_say_what_is_wrong() {
        let cases = [
            ("", "is not a Khan position"),
            ("10/10/10/10/10/10/10/10/10/10 x", "side to move"),
            ("10/10/10/10/10/10/10/10/10 w", "has 9"),
            (
                "10/10/10/10/10/10/10/10/10/9 w",
                "rank 1 (\"9\") has 9 squares",
            ),
            ("10/10/10/10/10/10/10/10/10/55 w", "\"55\" is not a run"),
            ("10/10/10/10/10/10/10/10/10/010 w", "\"010\" is not a run"),
            ("10/10/10/10/10/10/10/10/10/1S9 w", "more than 10"),
            ("10/10/10/10/10/10/10/10/10/Q9 w", "'Q' is not a piece"),
            ("KKKKKKK3/10/10/10/10/10/10/10/10/10 w", "7 Khans"),
            ("S9/10/10/10/10/10/10/10/10/s9 w", "both sides"),
        ];
        for (text, says) in cases {
            let err = Position::from_text(text).unwrap_err();
            assert_eq!(err.code, RuleErrorCode::BadPosition, "{text}");
            assert!(err.message.contains(says), "{text}: {}", err.message);
        }
    }
}
