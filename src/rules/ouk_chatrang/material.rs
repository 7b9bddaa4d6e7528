//! Insufficient material (O-17): the game is drawn at once when neither side can ever mate.
//!
//! The same test as Fairy-Stockfish's: a rook or a Khon can always mate. A Neang (promoted or
//! not) is bound to its square colour, so Neangs alone mate only when Neangs stand on both colours
//! or some other non-King piece is on the board. A knight or a pawn needs one more non-King piece
//! of either side on the board.

use super::board::{Board, Color, LIGHT_SQUARES, Role};

/// Whether `color` could ever give mate with the material on `board` (O-17).
pub(crate) fn can_mate(board: &Board, color: Color) -> bool {
    if board.pieces(color, Role::Rook) | board.pieces(color, Role::Khon) != 0 {
        return true;
    }
    let kings = board.by_role(Role::King);
    let neangs = board.by_role(Role::Neang);
    let others = board.occupied() & !kings & !neangs;
    if board.pieces(color, Role::Neang) != 0 {
        let both_colours = neangs & LIGHT_SQUARES != 0 && neangs & !LIGHT_SQUARES != 0;
        if both_colours || others != 0 {
            return true;
        }
    }
    let helpers = board.pieces(color, Role::Knight) | board.pieces(color, Role::Pawn);
    helpers != 0 && (board.occupied() & !kings).count_ones() >= 2
}

/// O-17: neither side can mate.
pub(crate) fn is_insufficient(board: &Board) -> bool {
    !can_mate(board, Color::White) && !can_mate(board, Color::Black)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::ouk_chatrang::Position;

    fn insufficient(fen: &str) -> bool {
        is_insufficient(Position::from_fen(fen).unwrap().board())
    }

    #[test]
    fn bare_kings_and_lone_minor_pieces_are_drawn() {
        assert!(insufficient("4k3/8/8/8/8/8/8/3K4 w - - 0 1"));
        assert!(insufficient("4k3/8/8/8/8/8/8/3KM3 w - - 0 1"));
        assert!(insufficient("4k3/8/8/8/8/8/4P3/3K4 w - - 0 1"));
        assert!(insufficient("4k3/8/8/8/8/8/8/3KN3 w - - 0 1"));
        // Neangs of both sides, all on light squares.
        assert!(insufficient("8/8/2M5/1K6/8/1mkM4/8/8 b - 126 42 82"));
    }

    #[test]
    fn mating_material_plays_on() {
        assert!(!insufficient("4k3/8/8/8/8/8/8/3KS3 w - - 0 1"));
        assert!(!insufficient("4k3/8/8/8/8/8/8/R2K4 w - - 0 1"));
        // Knight against Neang: two non-King pieces.
        assert!(!insufficient("4k3/4m3/8/8/8/8/8/3KN3 w - - 0 1"));
        // Neangs on both square colours.
        assert!(!insufficient("4k3/8/8/8/8/8/8/3KMM2 w - - 0 1"));
    }
}
