//! Squares, lines, sides and pieces, and where the pieces stand (K-1..K-3).
//!
//! The board is four 128-bit sets, one per side and kind of piece (bit `rank * 10 + file`, a1 =
//! bit 0, j10 = bit 99). Sets make the questions the rules ask cheap: "which empty squares touch
//! this Khan?" is one AND with a compile-time table ([`adjacent`]); walking a line uses
//! [`Square::step`], also a table.

use std::fmt;
use std::ops::Not;
use std::str::FromStr;

use crate::rules::{RuleError, RuleErrorCode, Seat};

/// A set of squares, one bit per square: bit `rank * 10 + file`, a1 = bit 0, j10 = bit 99.
pub type Bitboard = u128;

/// Every square of the board.
pub const ALL_SQUARES: Bitboard = (1 << 100) - 1;

/// One of the 100 squares (K-1): files `a`..`j` left to right, ranks `1`..`10` bottom to top.
/// Written `a1`..`j10`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square on `file` (0 = a … 9 = j) and `rank` (0 = rank 1 … 9 = rank 10), or `None` off
    /// the board.
    pub const fn new(file: u8, rank: u8) -> Option<Square> {
        if file < 10 && rank < 10 {
            Some(Square(rank * 10 + file))
        } else {
            None
        }
    }

    /// The square with index `index` (0..100), or `None` for a larger index.
    pub const fn from_index(index: u32) -> Option<Square> {
        if index < 100 {
            Some(Square(index as u8))
        } else {
            None
        }
    }

    /// The index 0..100 (a1 = 0, b1 = 1, …, j10 = 99).
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The file, 0 = a … 9 = j.
    pub const fn file(self) -> u8 {
        self.0 % 10
    }

    /// The rank, 0 = rank 1 … 9 = rank 10.
    pub const fn rank(self) -> u8 {
        self.0 / 10
    }

    /// The one-square set.
    pub const fn bit(self) -> Bitboard {
        1 << self.0
    }

    /// The neighbour in direction `dir` (K-1: one of the 8 lines), or `None` at the edge.
    #[inline]
    pub fn step(self, dir: Direction) -> Option<Square> {
        let next = STEPS[self.index()][dir as usize];
        if next == OFF {
            None
        } else {
            Some(Square(next))
        }
    }

    /// The direction and distance (1 or 2) from `self` to `to` when `to` lies on one of the 8
    /// lines through `self` at most two squares away.
    pub fn line_to(self, to: Square) -> Option<(Direction, u8)> {
        let df = i16::from(to.file()) - i16::from(self.file());
        let dr = i16::from(to.rank()) - i16::from(self.rank());
        let distance = df.abs().max(dr.abs());
        if !(1..=2).contains(&distance) || (df != 0 && dr != 0 && df.abs() != dr.abs()) {
            return None;
        }
        let unit = (df.signum(), dr.signum());
        let dir = Direction::ALL
            .into_iter()
            .find(|d| d.offset() == (unit.0 as i8, unit.1 as i8))?;
        Some((dir, distance as u8))
    }
}

impl Square {
    /// Appends the square's name (`a1`..`j10`) to `out`, without the formatting machinery (the
    /// move list writes many of them).
    #[inline]
    pub fn push_to(self, out: &mut String) {
        out.push(char::from(b'a' + self.file()));
        match self.rank() {
            9 => out.push_str("10"),
            rank => out.push(char::from(b'1' + rank)),
        }
    }
}

impl fmt::Display for Square {
    /// `a1`..`j10`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = String::with_capacity(3);
        self.push_to(&mut text);
        f.write_str(&text)
    }
}

impl FromStr for Square {
    type Err = RuleError;

    /// Reads `a1`..`j10` (lower-case file, rank without a leading zero). Errors: `BadNotation`
    /// naming the text.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let rank = match s.as_bytes() {
            [b'a'..=b'j', r @ b'1'..=b'9'] => r - b'1',
            [b'a'..=b'j', b'1', b'0'] => 9,
            _ => {
                return Err(RuleError::new(
                    RuleErrorCode::BadNotation,
                    format!("{s:?} is not a square; squares are a1 to j10"),
                ));
            }
        };
        Ok(Square(rank * 10 + (s.as_bytes()[0] - b'a')))
    }
}

/// The squares of a set, from a1 upwards.
pub fn squares(bb: Bitboard) -> Squares {
    Squares(bb)
}

/// Iterator over the squares of a set (see [`squares`]).
pub struct Squares(Bitboard);

impl Iterator for Squares {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let index = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(Square(index as u8))
    }
}

/// `TEXT_KEY[square]`: the square's place when the 100 square names are sorted as text (`a1`,
/// `a10`, `a2`, …, `a9`, `b1`, …): file first, then rank 1, rank 10, ranks 2..9.
const TEXT_KEY: [u8; 100] = {
    let mut table = [0; 100];
    let mut sq = 0;
    while sq < 100 {
        let (file, rank) = (sq % 10, sq / 10);
        let place = match rank {
            0 => 0,
            9 => 1,
            r => r + 1,
        };
        table[sq] = (file * 10 + place) as u8;
        sq += 1;
    }
    table
};

/// The squares of a set in the order of their names as text (`a1`, `a10`, `a2`, …, `j9`), the
/// order of the sorted move list: walking moves square by square in this order lists them sorted.
pub fn in_text_order(bb: Bitboard) -> impl Iterator<Item = Square> {
    let mut found = [Square(0); 100];
    let mut n = 0;
    for (slot, sq) in found.iter_mut().zip(squares(bb)) {
        *slot = sq;
        n += 1;
    }
    let found_now = &mut found[..n];
    found_now.sort_unstable_by_key(|sq| TEXT_KEY[sq.index()]);
    found.into_iter().take(n)
}

/// The square's place in the order of the names as text (see [`in_text_order`]).
#[inline]
pub fn text_key(sq: Square) -> u8 {
    TEXT_KEY[sq.index()]
}

/// Sorts squares in the order of their names as text (see [`in_text_order`]).
pub fn sort_by_text(squares: &mut [Square]) {
    squares.sort_unstable_by_key(|sq| TEXT_KEY[sq.index()]);
}

/// One of the 8 lines of K-1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Towards rank 10.
    N,
    /// Towards j10.
    NE,
    /// Towards file j.
    E,
    /// Towards j1.
    SE,
    /// Towards rank 1.
    S,
    /// Towards a1.
    SW,
    /// Towards file a.
    W,
    /// Towards a10.
    NW,
}

impl Direction {
    /// The 8 lines, clockwise from north.
    pub const ALL: [Direction; 8] = [
        Direction::N,
        Direction::NE,
        Direction::E,
        Direction::SE,
        Direction::S,
        Direction::SW,
        Direction::W,
        Direction::NW,
    ];

    /// (file, rank) change of one step.
    pub const fn offset(self) -> (i8, i8) {
        match self {
            Direction::N => (0, 1),
            Direction::NE => (1, 1),
            Direction::E => (1, 0),
            Direction::SE => (1, -1),
            Direction::S => (0, -1),
            Direction::SW => (-1, -1),
            Direction::W => (-1, 0),
            Direction::NW => (-1, 1),
        }
    }
}

/// "No square" in [`STEPS`].
const OFF: u8 = u8::MAX;

/// `STEPS[square][direction]`: the neighbour's index, or [`OFF`].
const STEPS: [[u8; 8]; 100] = {
    let mut table = [[OFF; 8]; 100];
    let mut sq = 0;
    while sq < 100 {
        let mut d = 0;
        while d < 8 {
            let (df, dr) = Direction::ALL[d].offset();
            let file = (sq % 10) as i8 + df;
            let rank = (sq / 10) as i8 + dr;
            if file >= 0 && file < 10 && rank >= 0 && rank < 10 {
                table[sq][d] = (rank * 10 + file) as u8;
            }
            d += 1;
        }
        sq += 1;
    }
    table
};

/// `ADJACENT[square]`: the set of its (up to 8) neighbours.
const ADJACENT: [Bitboard; 100] = {
    let mut table = [0; 100];
    let mut sq = 0;
    while sq < 100 {
        let mut d = 0;
        while d < 8 {
            if STEPS[sq][d] != OFF {
                table[sq] |= 1 << STEPS[sq][d];
            }
            d += 1;
        }
        sq += 1;
    }
    table
};

/// The squares adjacent to `sq` (K-1: the 8 king-step neighbours).
#[inline]
pub fn adjacent(sq: Square) -> Bitboard {
    ADJACENT[sq.index()]
}

/// A side (K-2). White moves first and plays seat 0; Black plays seat 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    /// Upper-case letters in the position text; ranks 1–3 at the start; seat 0.
    White,
    /// Lower-case letters; ranks 8–10 at the start; seat 1.
    Black,
}

impl Color {
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

    /// The goal row (K-4): rank 10 for White, rank 1 for Black (0-based rank).
    pub fn goal_rank(self) -> u8 {
        match self {
            Color::White => 9,
            Color::Black => 0,
        }
    }

    /// The squares of the goal row (K-4).
    pub fn goal_row(self) -> Bitboard {
        match self {
            Color::White => ALL_SQUARES & !((1 << 90) - 1),
            Color::Black => (1 << 10) - 1,
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
    /// `White` or `Black`, for messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::White => "White",
            Color::Black => "Black",
        })
    }
}

/// A kind of piece (K-3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// Moves by steps and supports, never captures (K-6..K-9).
    Soldier,
    /// Steps, pushes and jumps, and captures by custody (K-10..K-13).
    Khan,
}

/// A piece: a side and a kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Whose piece it is.
    pub color: Color,
    /// Soldier or Khan.
    pub role: Role,
}

impl Piece {
    /// The letter of the position text: `S` `K` for White, `s` `k` for Black.
    pub fn char(self) -> char {
        match (self.color, self.role) {
            (Color::White, Role::Soldier) => 'S',
            (Color::White, Role::Khan) => 'K',
            (Color::Black, Role::Soldier) => 's',
            (Color::Black, Role::Khan) => 'k',
        }
    }

    /// The piece a position-text letter stands for.
    pub fn from_char(c: char) -> Option<Piece> {
        let (color, role) = match c {
            'S' => (Color::White, Role::Soldier),
            'K' => (Color::White, Role::Khan),
            's' => (Color::Black, Role::Soldier),
            'k' => (Color::Black, Role::Khan),
            _ => return None,
        };
        Some(Piece { color, role })
    }

    /// "White Soldier", "Black Khan", for messages.
    pub fn name(self) -> String {
        let role = match self.role {
            Role::Soldier => "Soldier",
            Role::Khan => "Khan",
        };
        format!("{} {role}", self.color)
    }
}

/// Where the pieces stand: one set per side and kind. Every square holds at most one piece (the
/// only ways to change a board, [`Board::put`] and [`Board::take`], keep it so).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Board {
    /// Indexed by `color * 2 + role`: White Soldiers, White Khans, Black Soldiers, Black Khans.
    sets: [Bitboard; 4],
}

const fn slot(color: Color, role: Role) -> usize {
    (color as usize) * 2 + role as usize
}

impl Board {
    /// The board with no piece.
    pub fn empty() -> Board {
        Board::default()
    }

    /// The set of `color`'s pieces of kind `role`.
    #[inline]
    pub fn pieces(&self, color: Color, role: Role) -> Bitboard {
        self.sets[slot(color, role)]
    }

    /// The set of `color`'s pieces.
    #[inline]
    pub fn by_color(&self, color: Color) -> Bitboard {
        self.pieces(color, Role::Soldier) | self.pieces(color, Role::Khan)
    }

    /// The set of occupied squares.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.sets[0] | self.sets[1] | self.sets[2] | self.sets[3]
    }

    /// What stands on `sq`.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let bit = sq.bit();
        for color in [Color::White, Color::Black] {
            for role in [Role::Soldier, Role::Khan] {
                if self.pieces(color, role) & bit != 0 {
                    return Some(Piece { color, role });
                }
            }
        }
        None
    }

    /// Puts `piece` on `sq`, replacing whatever stood there.
    #[inline]
    pub fn put(&mut self, sq: Square, piece: Piece) {
        self.take(sq);
        self.sets[slot(piece.color, piece.role)] |= sq.bit();
    }

    /// Empties `sq`.
    #[inline]
    pub fn take(&mut self, sq: Square) {
        let keep = !sq.bit();
        for set in &mut self.sets {
            *set &= keep;
        }
    }

    /// How many pieces of `color` and `role` stand on the board.
    pub fn count(&self, color: Color, role: Role) -> u32 {
        self.pieces(color, role).count_ones()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_read_and_write_a1_to_j10() {
        for index in 0..100 {
            let sq = Square::from_index(index).unwrap();
            assert_eq!(sq.to_string().parse::<Square>(), Ok(sq));
        }
        assert_eq!("j10".parse::<Square>().map(Square::index), Ok(99));
        for bad in ["", "a0", "a11", "k1", "A1", "a01", "a", "10", "j100", "é1"] {
            assert!(bad.parse::<Square>().is_err(), "{bad}");
        }
    }

    #[test]
    fn text_order_is_the_order_of_the_names() {
        let all: Vec<String> = in_text_order(ALL_SQUARES).map(|s| s.to_string()).collect();
        let mut sorted = all.clone();
        sorted.sort();
        assert_eq!(all, sorted);
        assert_eq!(all.len(), 100);
        assert_eq!(&all[..3], ["a1", "a10", "a2"]);
    }

    #[test]
    fn adjacency_has_eight_neighbours_inside_three_in_corners() {
        let sq = |s: &str| s.parse::<Square>().unwrap();
        assert_eq!(adjacent(sq("e5")).count_ones(), 8);
        assert_eq!(adjacent(sq("a1")).count_ones(), 3);
        assert_eq!(adjacent(sq("j5")).count_ones(), 5);
        assert_eq!(sq("a1").step(Direction::S), None);
        assert_eq!(sq("a1").step(Direction::NE), Some(sq("b2")));
        assert_eq!(sq("e2").line_to(sq("g4")), Some((Direction::NE, 2)));
        assert_eq!(sq("e2").line_to(sq("f4")), None);
        assert_eq!(sq("e2").line_to(sq("e2")), None);
    }
}
