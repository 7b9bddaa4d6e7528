//! A position: the board, the side to move, the special first-move rights, the clocks and the
//! counting fields — everything a Fairy-Stockfish `cambodian` FEN holds (O-3..O-5).
//!
//! [`Position`] is a small `Copy` value: playing a move copies it and changes the copy
//! ("copy-make"), which is what perft wants. It knows the rules of movement and of the rights
//! (O-6..O-14) but not the rules that need the game's history — counting (O-18..O-21), repetition
//! (O-16) and the end of the game — which live in `Game`.

use super::attacks;
use super::board::{Bitboard, Board, Color, Piece, Role, Square};
use super::movegen;
use super::moves::Move;
use crate::rules::{RuleError, RuleErrorCode};

/// The special first-move rights (O-4, O-12..O-14): one bit per home square, FEN letters `D`
/// (White King, d1), `E` (White Neang, e1), `d` (Black Neang, d8), `e` (Black King, e8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Rights(u8);

impl Rights {
    /// No rights left (FEN `-`).
    pub const NONE: Rights = Rights(0);
    /// All four rights, as at the start (FEN `DEde`).
    pub const ALL: Rights = Rights(0b1111);

    const WHITE_KING: u8 = 1;
    const WHITE_NEANG: u8 = 2;
    const BLACK_NEANG: u8 = 4;
    const BLACK_KING: u8 = 8;

    /// The rights in FEN order: bit, letter, and the piece and home square each belongs to.
    pub(crate) const TABLE: [(u8, char, Color, Role, Square); 4] = [
        (Rights::WHITE_KING, 'D', Color::White, Role::King, SQ_D1),
        (Rights::WHITE_NEANG, 'E', Color::White, Role::Neang, SQ_E1),
        (Rights::BLACK_NEANG, 'd', Color::Black, Role::Neang, SQ_D8),
        (Rights::BLACK_KING, 'e', Color::Black, Role::King, SQ_E8),
    ];

    /// Whether `color`'s King may still leap (O-12).
    pub fn king_leap(self, color: Color) -> bool {
        self.0 & Rights::king_bit(color) != 0
    }

    /// Whether `color`'s Neang may still leap (O-13).
    pub fn neang_leap(self, color: Color) -> bool {
        self.0 & Rights::neang_bit(color) != 0
    }

    /// Whether no right is left.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub(crate) fn contains_bit(self, bit: u8) -> bool {
        self.0 & bit != 0
    }

    pub(crate) fn with_bit(self, bit: u8) -> Rights {
        Rights(self.0 | bit)
    }

    fn king_bit(color: Color) -> u8 {
        match color {
            Color::White => Rights::WHITE_KING,
            Color::Black => Rights::BLACK_KING,
        }
    }

    fn neang_bit(color: Color) -> u8 {
        match color {
            Color::White => Rights::WHITE_NEANG,
            Color::Black => Rights::BLACK_NEANG,
        }
    }

    /// The rights tied to `sq`: moving from it, or capturing on it, ends them (O-14 a, b).
    #[inline]
    fn tied_to(sq: Square) -> u8 {
        match sq {
            SQ_D1 => Rights::WHITE_KING,
            SQ_E1 => Rights::WHITE_NEANG,
            SQ_D8 => Rights::BLACK_NEANG,
            SQ_E8 => Rights::BLACK_KING,
            _ => 0,
        }
    }
}

/// Home squares of the pieces with special first moves (O-3, O-12, O-13).
pub(crate) fn king_home(color: Color) -> Square {
    match color {
        Color::White => SQ_D1,
        Color::Black => SQ_E8,
    }
}

pub(crate) fn neang_home(color: Color) -> Square {
    match color {
        Color::White => SQ_E1,
        Color::Black => SQ_D8,
    }
}

/// Where a Neang leap from home lands: two squares straight forward (O-13).
pub(crate) fn neang_leap_target(color: Color) -> Square {
    match color {
        Color::White => SQ_E3,
        Color::Black => SQ_D6,
    }
}

/// Where a King leap from home may land: a knight move onto the rank directly in front of him
/// (O-12): b2 or f2 for White, c7 or g7 for Black.
pub(crate) fn king_leap_targets(color: Color) -> Bitboard {
    let front_rank: Bitboard = match color {
        Color::White => 0xFF << 8,
        Color::Black => 0xFF << 48,
    };
    attacks::knight(king_home(color)) & front_rank
}

const SQ_D1: Square = sq(3, 0);
const SQ_E1: Square = sq(4, 0);
const SQ_E3: Square = sq(4, 2);
const SQ_D6: Square = sq(3, 5);
const SQ_D8: Square = sq(3, 7);
const SQ_E8: Square = sq(4, 7);

const fn sq(file: u8, rank: u8) -> Square {
    Square::from_index((rank * 8 + file) as u32)
}

/// The counting fields of the FEN while a count runs (O-5): the limit and the count, both in
/// plies, exactly as Fairy-Stockfish writes them (limit `2L − 2`, e.g. 126 for L = 64).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CountingFields {
    /// FEN field 4: the counting limit in plies.
    pub limit: u32,
    /// FEN field 5: the counting ply.
    pub ply: u32,
}

/// A position of Ouk Chatrang: what a FEN says (O-3..O-5). Read and write it with
/// [`Position::from_fen`] and `to_string()` (see `fen.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) board: Board,
    pub(crate) side: Color,
    pub(crate) rights: Rights,
    /// Plies since the last capture or pawn move; shown in FEN field 5 when no count runs.
    pub(crate) halfmove_clock: u32,
    /// FEN field 6: starts at 1, grows after each Black move.
    pub(crate) fullmove: u32,
    pub(crate) counting: Option<CountingFields>,
}

impl Position {
    /// The start position (O-3): `rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1`.
    pub fn start() -> Position {
        let mut board = Board::empty();
        let back = [
            Role::Rook,
            Role::Knight,
            Role::Khon,
            Role::King,
            Role::Neang,
            Role::Khon,
            Role::Knight,
            Role::Rook,
        ];
        for (file, &role) in (0u8..).zip(back.iter()) {
            // Black's back rank is White's mirrored left to right: Neang d8, King e8.
            board.put(
                sq(file, 0),
                Piece {
                    color: Color::White,
                    role,
                },
            );
            board.put(
                sq(7 - file, 7),
                Piece {
                    color: Color::Black,
                    role,
                },
            );
            board.put(
                sq(file, 2),
                Piece {
                    color: Color::White,
                    role: Role::Pawn,
                },
            );
            board.put(
                sq(file, 5),
                Piece {
                    color: Color::Black,
                    role: Role::Pawn,
                },
            );
        }
        Position {
            board,
            side: Color::White,
            rights: Rights::ALL,
            halfmove_clock: 0,
            fullmove: 1,
            counting: None,
        }
    }

    /// The pieces.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The side to move.
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// The special first-move rights still open (O-4).
    pub fn rights(&self) -> Rights {
        self.rights
    }

    /// The counting fields (FEN fields 4–5) while a count runs.
    pub fn counting(&self) -> Option<CountingFields> {
        self.counting
    }

    /// The halfmove clock: plies since the last capture or pawn move (FEN field 5 when no count
    /// runs). Ouk Chatrang has no 50-move rule (O-15); the clock is kept for the FEN.
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove_clock
    }

    /// The move number (FEN field 6).
    pub fn fullmove_number(&self) -> u32 {
        self.fullmove
    }

    /// Whether neither side can ever mate with the material on the board (O-17): the game's
    /// automatic draw, for engines that read ahead.
    pub fn is_insufficient_material(&self) -> bool {
        super::material::is_insufficient(&self.board)
    }

    /// Whether the side to move is in check.
    pub fn is_check(&self) -> bool {
        self.checkers() != 0
    }

    /// The pieces giving check to the side to move.
    pub(crate) fn checkers(&self) -> Bitboard {
        let king = self.board.king(self.side);
        self.attackers(king, self.board.occupied(), !self.side)
    }

    /// `by`'s pieces that attack `target` when the squares `occ` are occupied.
    #[inline]
    pub(crate) fn attackers(&self, target: Square, occ: Bitboard, by: Color) -> Bitboard {
        let b = &self.board;
        // A piece of `by` attacks `target` exactly when the same piece of the other colour on
        // `target` would attack it: the Khon's and pawn's forward steps flip with the colour.
        ((attacks::knight(target) & b.by_role(Role::Knight))
            | (attacks::king(target) & b.by_role(Role::King))
            | (attacks::neang(target) & b.by_role(Role::Neang))
            | (attacks::khon(!by, target) & b.by_role(Role::Khon))
            | (attacks::pawn_captures(!by, target) & b.by_role(Role::Pawn))
            | (attacks::rook(target, occ) & b.by_role(Role::Rook)))
            & b.by_color(by)
    }

    /// Every legal move (O-6..O-13, O-11), in generation order.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut moves = Vec::with_capacity(48);
        movegen::generate(self, &mut moves);
        moves
    }

    /// The legal moves in UCI, sorted as strings (what `Rules::legal_moves` and the CLI print).
    pub fn legal_uci(&self) -> Vec<String> {
        let mut moves: Vec<String> = self.legal_moves().iter().map(Move::to_string).collect();
        moves.sort_unstable();
        moves
    }

    /// Whether the side to move has any legal move.
    pub fn has_legal_move(&self) -> bool {
        movegen::count(self) > 0
    }

    /// Reads a UCI move and finds the legal move it names. A promotion may be written without
    /// its `m`: promotion is forced (O-10), so `g5g6` can only mean `g5g6m`.
    ///
    /// Errors: `BadNotation` when the text is not UCI; `IllegalMove` with the reason when it is
    /// not legal here.
    pub fn parse_uci(&self, text: &str) -> Result<Move, RuleError> {
        self.resolve_uci(text, &self.legal_moves())
    }

    /// [`Position::parse_uci`] against this position's legal moves, already generated.
    pub(crate) fn resolve_uci(&self, text: &str, legal: &[Move]) -> Result<Move, RuleError> {
        let wanted: Move = text.parse()?;
        let found = legal
            .iter()
            .copied()
            .find(|m| m.from() == wanted.from() && m.to() == wanted.to());
        match found {
            Some(m) if m.is_promotion() || !wanted.is_promotion() => Ok(m),
            Some(_) => Err(RuleError::new(
                RuleErrorCode::IllegalMove,
                format!(
                    "{text}: only a pawn reaching its sixth rank promotes; write {}{}",
                    wanted.from(),
                    wanted.to()
                ),
            )),
            None => Err(RuleError::new(
                RuleErrorCode::IllegalMove,
                format!("{text}: {}", movegen::why_illegal(self, wanted)),
            )),
        }
    }

    /// Plays `mv` if it is legal. Errors: `IllegalMove` with the reason. See [`Position::play_unchecked`]
    /// for what changes.
    pub fn play(&self, mv: Move) -> Result<Position, RuleError> {
        if self.legal_moves().contains(&mv) {
            Ok(self.play_unchecked(mv))
        } else {
            Err(RuleError::new(
                RuleErrorCode::IllegalMove,
                format!("{mv}: {}", movegen::why_illegal(self, mv)),
            ))
        }
    }

    /// Plays `mv`, which must be one of [`Position::legal_moves`]: moves the piece, captures,
    /// promotes (O-10), updates the rights (O-14), the halfmove clock, the move number and the
    /// side to move. The counting fields are copied unchanged: counting (O-18..O-21) needs the
    /// game's history and is applied by `Game`.
    #[inline]
    pub fn play_unchecked(&self, mv: Move) -> Position {
        let mut next = *self;
        next.make(mv);
        next
    }

    #[inline]
    fn make(&mut self, mv: Move) {
        let us = self.side;
        let (from, to) = (mv.from(), mv.to());
        let Some(mut piece) = self.board.take(from) else {
            // Not a legal move of this position: leave the board alone rather than invent one.
            return;
        };
        let captured = self.board.take(to);
        let pawn_move = piece.role == Role::Pawn;
        if mv.is_promotion() {
            piece.role = Role::Neang;
        }
        self.board.put(to, piece);

        let mut lost = Rights::tied_to(from) | Rights::tied_to(to);
        // O-14(c): an enemy rook arriving anywhere on the King's rank or file ends the King's leap
        // right while he is at home, whatever stands between.
        if piece.role == Role::Rook
            && self.rights.king_leap(!us)
            && attacks::rook_lines(to) & king_home(!us).bit() != 0
        {
            lost |= Rights::king_bit(!us);
        }
        self.rights.0 &= !lost;

        self.halfmove_clock = if captured.is_some() || pawn_move {
            0
        } else {
            self.halfmove_clock.saturating_add(1)
        };
        if us == Color::Black {
            self.fullmove = self.fullmove.saturating_add(1);
        }
        self.side = !us;
    }

    /// The same position with other counting fields (used by `Game`, which owns counting).
    pub(crate) fn with_counting(mut self, counting: Option<CountingFields>) -> Position {
        self.counting = counting;
        self
    }
}

impl Default for Position {
    fn default() -> Self {
        Position::start()
    }
}
