//! Standard algebraic notation for display, written as Fairy-Stockfish writes it for `cambodian`.
//!
//! Piece letters K, M (Neang), S (Khon), N, R; pawn moves have none and a pawn capture names its
//! file (`dxe3`); a promotion ends `=M`; `x` marks a capture; `+` check, `#` checkmate. A piece
//! move names its file, else its rank, else its square, when another piece of the same kind could
//! go to the same square with a legal move of the same sort — Fairy-Stockfish never weighs a
//! special first move (a leap) against an ordinary one, so neither do we: `Kb2`, `Me3`.

use super::board::Role;
use super::moves::Move;
use super::position::{Position, king_home, king_leap_targets, neang_home, neang_leap_target};
use crate::rules::{RuleError, RuleErrorCode};

impl Position {
    /// The SAN of `mv`, e.g. `Kb2`, `dxe3=M`, `Rhxc1`, `Mxc1+`, `Rg1#`.
    ///
    /// Errors: `IllegalMove` when `mv` is not legal here.
    pub fn san(&self, mv: Move) -> Result<String, RuleError> {
        let legal = self.legal_moves();
        if !legal.contains(&mv) {
            return Err(RuleError::new(
                RuleErrorCode::IllegalMove,
                format!("{mv} is not a legal move in this position"),
            ));
        }
        Ok(san(self, mv, &legal))
    }
}

/// Whether `mv` is a King or Neang leap (O-12, O-13) rather than an ordinary move.
pub(crate) fn is_leap(pos: &Position, mv: Move) -> bool {
    let us = pos.side;
    match pos.board.piece_at(mv.from()).map(|p| p.role) {
        Some(Role::King) => {
            mv.from() == king_home(us) && king_leap_targets(us) & mv.to().bit() != 0
        }
        Some(Role::Neang) => mv.from() == neang_home(us) && mv.to() == neang_leap_target(us),
        _ => false,
    }
}

/// The SAN of `mv`, which must be in `legal` (the position's legal moves).
pub(crate) fn san(pos: &Position, mv: Move, legal: &[Move]) -> String {
    let (from, to) = (mv.from(), mv.to());
    let Some(piece) = pos.board.piece_at(from) else {
        return mv.to_string();
    };
    let capture = pos.board.piece_at(to).is_some();
    let mut text = String::with_capacity(8);
    if piece.role == Role::Pawn {
        if capture {
            text.push(from.file_char());
        }
    } else {
        text.push(piece.role.char().to_ascii_uppercase());
        if !is_leap(pos, mv) {
            let rivals: Vec<_> = legal
                .iter()
                .filter(|m| m.to() == to && m.from() != from && !is_leap(pos, **m))
                .filter(|m| pos.board.piece_at(m.from()).map(|p| p.role) == Some(piece.role))
                .map(|m| m.from())
                .collect();
            if !rivals.is_empty() {
                if rivals.iter().all(|s| s.file() != from.file()) {
                    text.push(from.file_char());
                } else if rivals.iter().all(|s| s.rank() != from.rank()) {
                    text.push(from.rank_char());
                } else {
                    text.push_str(&from.to_string());
                }
            }
        }
    }
    if capture {
        text.push('x');
    }
    text.push_str(&to.to_string());
    if mv.is_promotion() {
        text.push_str("=M");
    }
    let after = pos.play_unchecked(mv);
    if after.is_check() {
        text.push(if after.has_legal_move() { '+' } else { '#' });
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn san_of(fen: &str, uci: &str) -> String {
        let pos = Position::from_fen(fen).unwrap();
        let mv = pos.parse_uci(uci).unwrap();
        pos.san(mv).unwrap()
    }

    #[test]
    fn leaps_and_pieces() {
        let start = "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1";
        assert_eq!(san_of(start, "d1b2"), "Kb2");
        assert_eq!(san_of(start, "e3e4"), "e4");
        assert_eq!(san_of(start, "g1e2"), "Ne2");
        assert_eq!(san_of(start, "f1e2"), "Se2");
        assert_eq!(san_of(start, "e1f2"), "Mf2");
        assert_eq!(san_of(start, "b1d2"), "Nd2");
    }

    #[test]
    fn disambiguation_by_file_then_rank() {
        // Two rooks on the first rank both reach c1.
        let fen = "4k3/8/8/8/8/8/3K4/R6R w - - 0 1";
        assert_eq!(san_of(fen, "a1c1"), "Rac1");
        // Two rooks on the c-file.
        let fen = "4k3/8/8/8/2R5/8/8/2R1K3 w - - 0 1";
        assert_eq!(san_of(fen, "c1c2"), "R1c2");
    }

    #[test]
    fn pawn_capture_promotion_and_check() {
        let fen = "8/8/4k3/8/8/8/3p4/3K4 b - - 0 1";
        // A black pawn on d2 is past rank 3: not a position; use one on d4 capturing to e3 instead.
        assert!(Position::from_fen(fen).is_err());
        let fen = "8/8/4k3/8/3p4/4P3/8/3K4 b - - 0 1";
        assert_eq!(san_of(fen, "d4e3m"), "dxe3=M");
        let fen = "6k1/8/8/8/8/8/8/3K1R2 w - - 0 1";
        assert_eq!(san_of(fen, "f1g1"), "Rg1+");
        let fen = "6k1/8/6K1/8/8/8/8/R7 w - - 0 1";
        assert_eq!(san_of(fen, "a1a8"), "Ra8#");
    }
}
