//! Squares, colours, pieces and the piece placement of a position (O-1, O-2).
//!
//! The board is kept twice: as 64-bit bitboards (one per colour and one per kind of piece, bit
//! `rank * 8 + file`, a1 = bit 0) for move generation, and as a 64-square array for "what stands
//! here?". Both are updated together by [`Board::put`] and [`Board::take`], so they never disagree.

use std::fmt;
use std::ops::Not;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::rules::{RuleError, RuleErrorCode, Seat};

/// A set of squares, one bit per square: bit `rank * 8 + file`, a1 = bit 0, h8 = bit 63.
pub type Bitboard = u64;

/// One of the 64 squares (O-1), a1 = 0 … h8 = 63. Written as in UCI and FEN: `e4`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square on `file` (0 = a … 7 = h) and `rank` (0 = rank 1 … 7 = rank 8), or `None` off
    /// the board.
    pub const fn new(file: u8, rank: u8) -> Option<Square> {
        if file < 8 && rank < 8 {
            Some(Square(rank * 8 + file))
        } else {
            None
        }
    }

    /// The square with index `index & 63`: callers pass indices taken from a bitboard.
    pub(crate) const fn from_index(index: u32) -> Square {
        Square((index & 63) as u8)
    }

    /// The index 0..64 (a1 = 0, b1 = 1, …, h8 = 63). Masked so that table look-ups need no bounds
    /// check.
    pub const fn index(self) -> usize {
        (self.0 & 63) as usize
    }

    /// The file, 0 = a … 7 = h.
    pub const fn file(self) -> u8 {
        self.0 & 7
    }

    /// The rank, 0 = rank 1 … 7 = rank 8.
    pub const fn rank(self) -> u8 {
        self.0 >> 3
    }

    /// The one-square bitboard.
    pub const fn bit(self) -> Bitboard {
        1 << (self.0 & 63)
    }

    /// The file letter, `a`..`h`.
    pub fn file_char(self) -> char {
        char::from(b'a' + self.file())
    }

    /// The rank digit, `1`..`8`.
    pub fn rank_char(self) -> char {
        char::from(b'1' + self.rank())
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file_char(), self.rank_char())
    }
}

impl FromStr for Square {
    type Err = RuleError;

    /// Reads `a1`..`h8`. Errors: `BadNotation` naming the text.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.as_bytes() {
            [f @ b'a'..=b'h', r @ b'1'..=b'8'] => Ok(Square((r - b'1') * 8 + (f - b'a'))),
            _ => Err(RuleError::new(
                RuleErrorCode::BadNotation,
                format!("{s:?} is not a square; squares are a1 to h8"),
            )),
        }
    }
}

/// The squares of a bitboard, from a1 upwards.
pub(crate) fn squares(bb: Bitboard) -> Squares {
    Squares(bb)
}

/// Iterator over the squares of a bitboard (see [`squares`]).
pub(crate) struct Squares(Bitboard);

impl Iterator for Squares {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let sq = Square::from_index(self.0.trailing_zeros());
        self.0 &= self.0 - 1;
        Some(sq)
    }
}

/// A side (O-1: White moves first). Seat 0 plays White, seat 1 Black. On the wire `"white"` /
/// `"black"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Color {
    /// Upper-case FEN letters; moves first (O-1); seat 0.
    White,
    /// Lower-case FEN letters; seat 1.
    Black,
}

impl Color {
    /// Both colours, White first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// The colour played by `seat`: 0 is White, any other seat Black.
    pub fn from_seat(seat: Seat) -> Color {
        if seat == 0 {
            Color::White
        } else {
            Color::Black
        }
    }

    /// The seat playing this colour (White 0, Black 1).
    pub fn seat(self) -> Seat {
        match self {
            Color::White => 0,
            Color::Black => 1,
        }
    }

    /// `"white"` or `"black"`, as on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }

    /// 0 for White, 1 for Black: the index into per-colour tables.
    pub(crate) const fn index(self) -> usize {
        self as usize
    }

    /// The rank a pawn of this colour promotes on (O-10: White rank 6, Black rank 3).
    pub(crate) const fn promotion_rank(self) -> u8 {
        match self {
            Color::White => 5,
            Color::Black => 2,
        }
    }
}

impl Not for Color {
    type Output = Color;

    fn not(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::White => "White",
            Color::Black => "Black",
        })
    }
}

/// A kind of piece (O-2). The FEN and SAN letters are the Makruk ones Fairy-Stockfish uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// Trey: one step forward, captures one step diagonally forward (O-9). FEN `p`.
    Pawn,
    /// Ses: the chess knight (O-6). FEN `n`.
    Knight,
    /// Khon / Koul: one step diagonally or straight forward (O-7). FEN `s`.
    Khon,
    /// Neang / Met: one step diagonally (O-8); promoted pawns are Neangs too. FEN `m`.
    Neang,
    /// Touk: the chess rook (O-6). FEN `r`.
    Rook,
    /// The King (O-6). FEN `k`.
    King,
}

impl Role {
    /// Every role, in table order.
    pub const ALL: [Role; 6] = [
        Role::Pawn,
        Role::Knight,
        Role::Khon,
        Role::Neang,
        Role::Rook,
        Role::King,
    ];

    /// The lower-case FEN letter.
    pub fn char(self) -> char {
        match self {
            Role::Pawn => 'p',
            Role::Knight => 'n',
            Role::Khon => 's',
            Role::Neang => 'm',
            Role::Rook => 'r',
            Role::King => 'k',
        }
    }

    /// The role written with the (either case) FEN letter `c`.
    pub fn from_char(c: char) -> Option<Role> {
        Some(match c.to_ascii_lowercase() {
            'p' => Role::Pawn,
            'n' => Role::Knight,
            's' => Role::Khon,
            'm' => Role::Neang,
            'r' => Role::Rook,
            'k' => Role::King,
            _ => return None,
        })
    }

    /// The rulebook's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Role::Pawn => "pawn",
            Role::Knight => "knight",
            Role::Khon => "Khon",
            Role::Neang => "Neang",
            Role::Rook => "rook",
            Role::King => "King",
        }
    }

    pub(crate) const fn index(self) -> usize {
        self as usize
    }
}

/// A piece: a colour and a role.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Whose piece it is.
    pub color: Color,
    /// What kind of piece it is.
    pub role: Role,
}

impl Piece {
    /// The FEN letter: upper case for White.
    pub fn char(self) -> char {
        match self.color {
            Color::White => self.role.char().to_ascii_uppercase(),
            Color::Black => self.role.char(),
        }
    }
}

/// Where the pieces stand. Holds no side to move, rights or clocks: see `Position`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    by_color: [Bitboard; 2],
    by_role: [Bitboard; 6],
    squares: [Option<Piece>; 64],
}

impl Board {
    /// An empty board.
    pub fn empty() -> Board {
        Board {
            by_color: [0; 2],
            by_role: [0; 6],
            squares: [None; 64],
        }
    }

    /// The piece on `sq`, if any.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.squares[sq.index()]
    }

    /// Every occupied square.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// The squares of `color`'s pieces.
    #[inline]
    pub fn by_color(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    /// The squares of pieces of `role`, both colours.
    #[inline]
    pub fn by_role(&self, role: Role) -> Bitboard {
        self.by_role[role.index()]
    }

    /// The squares of `color`'s pieces of `role`.
    #[inline]
    pub fn pieces(&self, color: Color, role: Role) -> Bitboard {
        self.by_color[color.index()] & self.by_role[role.index()]
    }

    /// How many pieces `color` has, its King included (the counting rules' "pieces").
    #[inline]
    pub fn count(&self, color: Color) -> u32 {
        self.by_color(color).count_ones()
    }

    /// The square of `color`'s King. A `Position` always has exactly one King per side; on a
    /// board without one this is a1, which callers never ask for.
    #[inline]
    pub fn king(&self, color: Color) -> Square {
        Square::from_index(self.pieces(color, Role::King).trailing_zeros())
    }

    /// Puts `piece` on the empty square `sq`.
    #[inline]
    pub(crate) fn put(&mut self, sq: Square, piece: Piece) {
        let bit = sq.bit();
        self.by_color[piece.color.index()] |= bit;
        self.by_role[piece.role.index()] |= bit;
        self.squares[sq.index()] = Some(piece);
    }

    /// Removes and returns whatever stands on `sq`.
    #[inline]
    pub(crate) fn take(&mut self, sq: Square) -> Option<Piece> {
        let piece = self.squares[sq.index()].take()?;
        let bit = !sq.bit();
        self.by_color[piece.color.index()] &= bit;
        self.by_role[piece.role.index()] &= bit;
        Some(piece)
    }

    /// The placement part of a repetition key (O-16): the bitboards say everything.
    pub(crate) fn bitboards(&self) -> ([Bitboard; 2], [Bitboard; 6]) {
        (self.by_color, self.by_role)
    }
}

/// The light squares (a1 is dark, b1 light). A Neang never leaves its square colour.
pub(crate) const LIGHT_SQUARES: Bitboard = 0x55AA_55AA_55AA_55AA;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_read_and_write_like_uci() {
        for text in ["a1", "h8", "e4", "d1"] {
            let sq: Square = text.parse().unwrap();
            assert_eq!(sq.to_string(), text);
        }
        assert_eq!("a1".parse::<Square>().unwrap().index(), 0);
        assert_eq!("h8".parse::<Square>().unwrap().index(), 63);
        for bad in ["", "a", "i1", "a9", "a0", "e44", "E4"] {
            assert_eq!(
                bad.parse::<Square>().unwrap_err().code,
                RuleErrorCode::BadNotation
            );
        }
    }

    #[test]
    fn light_squares_start_at_b1() {
        let b1: Square = "b1".parse().unwrap();
        let a1: Square = "a1".parse().unwrap();
        let a2: Square = "a2".parse().unwrap();
        assert_ne!(LIGHT_SQUARES & b1.bit(), 0);
        assert_eq!(LIGHT_SQUARES & a1.bit(), 0);
        assert_ne!(LIGHT_SQUARES & a2.bit(), 0);
    }
}
