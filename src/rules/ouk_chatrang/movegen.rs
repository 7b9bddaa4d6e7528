//! Legal move generation (O-6..O-13 with O-11 legality), including the special first moves.
//!
//! Moves are generated legal at once, without playing them: the King steps only to squares no
//! enemy piece attacks once he has left his square; in check the other pieces must capture the
//! checker or step between (the rook is the only piece that can be blocked); and a piece pinned
//! against its King by an enemy rook stays on the pin's rank or file. The rook is the only slider,
//! so rook pins are the only pins.
//!
//! The generator hands each piece's target squares to a [`MoveSink`] as one bitboard, so perft can
//! count a node's moves with `count_ones` instead of listing them ("bulk counting").

use super::attacks;
use super::board::{Bitboard, Color, Role, Square, squares};
use super::moves::Move;
use super::position::{Position, king_home, king_leap_targets, neang_home, neang_leap_target};

/// Receives generated moves: `targets` are the squares the piece on `from` may legally go to;
/// `promotion` is set for a pawn's moves onto its promotion rank.
pub(crate) trait MoveSink {
    fn add(&mut self, from: Square, targets: Bitboard, promotion: bool);
}

impl MoveSink for Vec<Move> {
    #[inline]
    fn add(&mut self, from: Square, targets: Bitboard, promotion: bool) {
        for to in squares(targets) {
            self.push(Move::new(from, to, promotion));
        }
    }
}

/// Counts moves without listing them.
pub(crate) struct Counter(pub u64);

impl MoveSink for Counter {
    #[inline]
    fn add(&mut self, _from: Square, targets: Bitboard, _promotion: bool) {
        self.0 += u64::from(targets.count_ones());
    }
}

/// How many legal moves the side to move has.
#[inline]
pub(crate) fn count(pos: &Position) -> u64 {
    let mut counter = Counter(0);
    generate(pos, &mut counter);
    counter.0
}

const RANK_6: Bitboard = 0xFF << 40;
const RANK_3: Bitboard = 0xFF << 16;

/// The rank a pawn of `color` promotes on, as a bitboard (O-10).
#[inline]
fn promotion_rank(color: Color) -> Bitboard {
    match color {
        Color::White => RANK_6,
        Color::Black => RANK_3,
    }
}

/// Our pieces standing alone between our King and an enemy rook on a rank or file.
#[inline]
fn pinned(pos: &Position, king: Square, us: Color, occ: Bitboard) -> Bitboard {
    let mut pinned = 0;
    let snipers = attacks::rook_lines(king) & pos.board.pieces(!us, Role::Rook);
    for sniper in squares(snipers) {
        let between = attacks::between(king, sniper) & occ;
        if between & (between.wrapping_sub(1)) == 0 {
            pinned |= between & pos.board.by_color(us);
        }
    }
    pinned
}

/// Generates every legal move of the side to move into `sink`.
#[inline]
pub(crate) fn generate<S: MoveSink>(pos: &Position, sink: &mut S) {
    let us = pos.side;
    let them = !us;
    let board = &pos.board;
    let occ = board.occupied();
    let ours = board.by_color(us);
    let theirs = board.by_color(them);
    let king = board.king(us);
    let checkers = pos.attackers(king, occ, them);
    // With the King lifted off, a rook checking along a line also covers the square behind him.
    let without_king = occ ^ king.bit();

    let mut king_targets = 0;
    for to in squares(attacks::king(king) & !ours) {
        if pos.attackers(to, without_king, them) == 0 {
            king_targets |= to.bit();
        }
    }
    sink.add(king, king_targets, false);

    if checkers & checkers.wrapping_sub(1) != 0 {
        // Double check: only the King can answer.
        return;
    }

    // O-12: the King leap, never out of check, only to an empty square no enemy attacks.
    if checkers == 0 && pos.rights.king_leap(us) {
        let mut leaps = 0;
        for to in squares(king_leap_targets(us) & !occ) {
            if pos.attackers(to, without_king, them) == 0 {
                leaps |= to.bit();
            }
        }
        sink.add(king, leaps, false);
    }

    // In check, every other move must take the checker or block its line.
    let answers_check = if checkers == 0 {
        !0
    } else {
        checkers | attacks::between(king, Square::from_index(checkers.trailing_zeros()))
    };
    let target = !ours & answers_check;
    let pinned = pinned(pos, king, us, occ);
    let pin_line = |from: Square| {
        if pinned & from.bit() != 0 {
            attacks::line(king, from)
        } else {
            !0
        }
    };

    // A pinned knight can never stay on its pin line.
    for from in squares(board.pieces(us, Role::Knight) & !pinned) {
        sink.add(from, attacks::knight(from) & target, false);
    }
    for from in squares(board.pieces(us, Role::Khon)) {
        sink.add(
            from,
            attacks::khon(us, from) & target & pin_line(from),
            false,
        );
    }
    for from in squares(board.pieces(us, Role::Neang)) {
        sink.add(from, attacks::neang(from) & target & pin_line(from), false);
    }
    for from in squares(board.pieces(us, Role::Rook)) {
        sink.add(
            from,
            attacks::rook(from, occ) & target & pin_line(from),
            false,
        );
    }
    let promotion_rank = promotion_rank(us);
    for from in squares(board.pieces(us, Role::Pawn)) {
        let push = attacks::pawn_push(us, from);
        let to = ((push & !occ) | (attacks::pawn_captures(us, from) & theirs))
            & answers_check
            & pin_line(from);
        sink.add(from, to, push & promotion_rank != 0);
    }

    // O-13: the Neang leap, to an empty square only; it may block a check.
    if pos.rights.neang_leap(us) {
        let from = neang_home(us);
        let to = neang_leap_target(us).bit() & !occ & answers_check & pin_line(from);
        sink.add(from, to, false);
    }
}

/// Why `mv` is not a legal move in `pos`: a sentence for the player, naming the rule.
pub(crate) fn why_illegal(pos: &Position, mv: Move) -> String {
    let us = pos.side;
    let (from, to) = (mv.from(), mv.to());
    let Some(piece) = pos.board.piece_at(from) else {
        return format!("there is no piece on {from}");
    };
    if piece.color != us {
        return format!(
            "the {} on {from} is {}'s and {us} is to move",
            piece.role.name(),
            piece.color
        );
    }
    let name = piece.role.name();
    if let Some(other) = pos.board.piece_at(to)
        && other.color == us
    {
        return format!(
            "the {name} on {from} cannot take its own {} on {to}",
            other.role.name()
        );
    }
    let occ = pos.board.occupied();
    let empty_target = occ & to.bit() == 0;
    let leap_square = |home: Square, targets: Bitboard| from == home && targets & to.bit() != 0;
    let reach = match piece.role {
        Role::King if leap_square(king_home(us), king_leap_targets(us)) => {
            if !pos.rights.king_leap(us) {
                return "the King has lost his leap right (O-14)".to_string();
            }
            if !empty_target {
                return "the King's leap cannot capture; its square must be empty (O-12)"
                    .to_string();
            }
            if pos.is_check() {
                return "the King may not leap while in check (O-12)".to_string();
            }
            to.bit()
        }
        Role::Neang if leap_square(neang_home(us), neang_leap_target(us).bit()) => {
            if !pos.rights.neang_leap(us) {
                return "the Neang has lost her leap right (O-14)".to_string();
            }
            if !empty_target {
                return "the Neang's leap cannot capture; its square must be empty (O-13)"
                    .to_string();
            }
            to.bit()
        }
        Role::King => attacks::king(from),
        Role::Neang => attacks::neang(from),
        Role::Khon => attacks::khon(us, from),
        Role::Knight => attacks::knight(from),
        Role::Rook => attacks::rook(from, occ),
        Role::Pawn => {
            (attacks::pawn_push(us, from) & !occ)
                | (attacks::pawn_captures(us, from) & pos.board.by_color(!us))
        }
    };
    if reach & to.bit() == 0 {
        let how = match piece.role {
            Role::King => "one square in any direction (O-6)",
            Role::Neang => "one square diagonally (O-8)",
            Role::Khon => "one square diagonally or straight forward (O-7)",
            Role::Knight => "as a chess knight (O-6)",
            Role::Rook => "along a rank or file without jumping (O-6)",
            Role::Pawn => {
                "one square forward to an empty square and captures one square diagonally forward (O-9)"
            }
        };
        return format!("the {name} on {from} cannot reach {to}: a {name} moves {how}");
    }
    let promotes = piece.role == Role::Pawn && promotion_rank(us) & to.bit() != 0;
    if promotes && !mv.is_promotion() {
        return format!(
            "a pawn reaching its sixth rank must become a Neang: write {from}{to}m (O-10)"
        );
    }
    if !promotes && mv.is_promotion() {
        return format!("only a pawn reaching its sixth rank promotes: write {from}{to} (O-10)");
    }
    if piece.role == Role::King {
        return format!("{to} is attacked: the King may not move into check (O-11)");
    }
    if pos.is_check() {
        format!("{us} is in check and this move does not answer it (O-11)")
    } else {
        format!("it would leave the {us} King in check (O-11)")
    }
}
