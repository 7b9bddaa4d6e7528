//! Every legal move of a position, with the position it leads to (K-5..K-13).
//!
//! One walk serves the move list, the move tree sent to clients, perft and turn perft: for each
//! legal move it calls back with the move's kind, its squares (`from-to`, or the start and every
//! landing of a jump chain) and the position after it. Every prefix of a jump chain is a move of
//! its own (the chain is optional from any landing, K-12), so the walk reports each landing before
//! looking for the next jump; it copies the board per landing instead of undoing captures.
//!
//! The walk does not ask whether the game is already over on the position it starts from (the
//! callers do); it stops a jump chain at a landing that ends the game (K-14, K-15).

use std::ops::ControlFlow;

use super::board::{Bitboard, Board, Color, Direction, Role, Square, adjacent, squares};
use super::moves::{
    MoveKind, after_push, after_soldier, after_step, khan_lands, push_target, soldier_targets,
};
use super::position::Position;

/// Calls `visit(kind, squares, position_after)` once for every legal move of the side to move.
/// Soldier moves come as `[from, to]` (K-9: one per destination), Khan steps and pushes as
/// `[from, to]`, jump chains as `[from, landing, ...]`, every prefix of a chain on its own.
pub fn for_each_move<F>(pos: &Position, visit: &mut F)
where
    F: FnMut(MoveKind, &[Square], &Position),
{
    let _ = walk(pos, usize::MAX, &mut |kind, path, child| {
        visit(kind, path, child);
        ControlFlow::Continue(())
    });
}

/// Like [`for_each_move`], but jump chains are followed for at most `max_landings` landings, and
/// `visit` may stop the walk by returning `Break` (then so does `walk`).
///
/// Moves come piece by piece, each piece's moves together, and a jump chain's prefix always
/// before its continuations (pre-order), which is what the move tree is built on.
pub fn walk<F>(pos: &Position, max_landings: usize, visit: &mut F) -> ControlFlow<()>
where
    F: FnMut(MoveKind, &[Square], &Position) -> ControlFlow<()>,
{
    let side = pos.side;
    let board = &pos.board;
    let empty = !board.occupied();
    for from in squares(board.pieces(side, Role::Soldier)) {
        for to in squares(soldier_targets(board, side, from)) {
            visit(
                MoveKind::Soldier,
                &[from, to],
                &after_soldier(pos, from, to),
            )?;
        }
    }
    let mut path = Vec::with_capacity(32);
    for from in squares(board.pieces(side, Role::Khan)) {
        for dir in Direction::ALL {
            let Some(next) = from.step(dir) else {
                continue;
            };
            if empty & next.bit() != 0 {
                visit(MoveKind::Step, &[from, next], &after_step(pos, from, next))?;
            } else if let Ok(target) = push_target(board, side, from, dir) {
                visit(
                    MoveKind::Push,
                    &[from, next],
                    &after_push(pos, from, next, target),
                )?;
            }
        }
        if max_landings > 0 {
            path.clear();
            path.push(from);
            let mut chains = Chains {
                side,
                max_landings,
                path: &mut path,
                visit: &mut *visit,
            };
            chains.jumps(board, from, from.bit())?;
        }
    }
    ControlFlow::Continue(())
}

/// The jump chains of one Khan (K-12): what stays the same along one chain.
struct Chains<'a, F> {
    side: Color,
    max_landings: usize,
    /// The start square and the landings so far.
    path: &'a mut Vec<Square>,
    visit: &'a mut F,
}

impl<F> Chains<'_, F>
where
    F: FnMut(MoveKind, &[Square], &Position) -> ControlFlow<()>,
{
    /// The jumps of the Khan standing on `at` of `board`, having already stood on the squares of
    /// `visited` this turn (K-12: it may not land there again).
    fn jumps(&mut self, board: &Board, at: Square, visited: Bitboard) -> ControlFlow<()> {
        let occupied = board.occupied();
        for dir in Direction::ALL {
            let Some(over) = at.step(dir) else {
                continue;
            };
            if occupied & over.bit() == 0 {
                continue;
            }
            let Some(land) = over.step(dir) else {
                continue;
            };
            if (occupied | visited) & land.bit() != 0 {
                continue;
            }
            let mut after = *board;
            khan_lands(&mut after, self.side, at, land);
            let child = Position::from_parts(after, !self.side);
            self.path.push(land);
            let mut flow = (self.visit)(MoveKind::Jump, self.path, &child);
            // A landing that ends the game ends the chain (K-14, K-15).
            if flow.is_continue() && self.path.len() <= self.max_landings && !child.is_won() {
                flow = self.jumps(&after, land, visited | land.bit());
            }
            self.path.pop();
            flow?;
        }
        ControlFlow::Continue(())
    }
}

/// Whether the side to move has any legal move (K-16), without listing them.
pub fn has_legal_move(pos: &Position) -> bool {
    let side = pos.side;
    let board = &pos.board;
    let empty = !board.occupied();
    if squares(board.pieces(side, Role::Soldier))
        .any(|from| soldier_targets(board, side, from) != 0)
    {
        return true;
    }
    squares(board.pieces(side, Role::Khan)).any(|from| {
        // A step or a first jump needs an empty square near the Khan; a push needs only a
        // phalanx with room in front.
        adjacent(from) & empty != 0
            || Direction::ALL.into_iter().any(|dir| {
                push_target(board, side, from, dir).is_ok()
                    || from
                        .step(dir)
                        .and_then(|over| over.step(dir))
                        .is_some_and(|land| empty & land.bit() != 0)
            })
    })
}

/// How many legal moves (move strings) the side to move has.
pub fn count(pos: &Position) -> u64 {
    let mut n = 0;
    for_each_move(pos, &mut |_, _, _| n += 1);
    n
}
