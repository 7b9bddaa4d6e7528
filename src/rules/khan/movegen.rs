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

use super::board::{
    Bitboard, Board, Color, Direction, Role, Square, adjacent, in_text_order, sort_by_text,
    squares, text_key,
};
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
/// Moves come in the order of their text: piece by piece in the text order of their squares
/// (`a1`, `a10`, `a2`, …), each piece's next squares in that order too, and a jump chain's
/// prefix right before its continuations (pre-order). So the move strings come sorted, and the
/// move tree can be built in one pass.
pub fn walk<F>(pos: &Position, max_landings: usize, visit: &mut F) -> ControlFlow<()>
where
    F: FnMut(MoveKind, &[Square], &Position) -> ControlFlow<()>,
{
    let side = pos.side;
    let board = &pos.board;
    let soldiers = board.pieces(side, Role::Soldier);
    let mut path = Vec::with_capacity(32);
    for from in in_text_order(board.by_color(side)) {
        if soldiers & from.bit() != 0 {
            for to in in_text_order(soldier_targets(board, side, from)) {
                visit(
                    MoveKind::Soldier,
                    &[from, to],
                    &after_soldier(pos, from, to),
                )?;
            }
            continue;
        }
        path.clear();
        path.push(from);
        let mut chains = Chains {
            side,
            max_landings,
            path: &mut path,
            visit: &mut *visit,
        };
        chains.khan(pos, from)?;
    }
    ControlFlow::Continue(())
}

/// What a Khan's next square is.
#[derive(Clone, Copy)]
enum Next {
    /// A step (K-10).
    Step,
    /// A push whose phalanx ends on this square (K-11).
    Push(Square),
    /// A jump landing (K-12).
    Jump,
}

/// The moves of one Khan (K-10..K-12): what stays the same along one jump chain.
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
    /// The steps, pushes and jump chains of the Khan on `from`, in text order of the next square.
    fn khan(&mut self, pos: &Position, from: Square) -> ControlFlow<()> {
        let board = &pos.board;
        let occupied = board.occupied();
        let mut next = [(from, Next::Step); 16];
        let mut n = 0;
        for dir in Direction::ALL {
            let Some(near) = from.step(dir) else {
                continue;
            };
            if occupied & near.bit() == 0 {
                next[n] = (near, Next::Step);
                n += 1;
                continue;
            }
            if let Ok(target) = push_target(board, self.side, from, dir) {
                next[n] = (near, Next::Push(target));
                n += 1;
            }
            if self.max_landings > 0
                && let Some(land) = near.step(dir)
                && occupied & land.bit() == 0
            {
                next[n] = (land, Next::Jump);
                n += 1;
            }
        }
        let next = &mut next[..n];
        next.sort_unstable_by_key(|(sq, _)| text_key(*sq));
        for &(to, kind) in next.iter() {
            match kind {
                Next::Step => {
                    (self.visit)(MoveKind::Step, &[from, to], &after_step(pos, from, to))?;
                }
                Next::Push(target) => (self.visit)(
                    MoveKind::Push,
                    &[from, to],
                    &after_push(pos, from, to, target),
                )?,
                Next::Jump => self.land(board, from, to, from.bit())?,
            }
        }
        ControlFlow::Continue(())
    }

    /// The jumps of the Khan standing on `at` of `board`, having already stood on the squares of
    /// `visited` this turn (K-12: it may not land there again), in text order of the landing.
    fn jumps(&mut self, board: &Board, at: Square, visited: Bitboard) -> ControlFlow<()> {
        let occupied = board.occupied();
        let mut landings = [at; 8];
        let mut n = 0;
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
            if (occupied | visited) & land.bit() == 0 {
                landings[n] = land;
                n += 1;
            }
        }
        let landings = &mut landings[..n];
        sort_by_text(landings);
        for &land in landings.iter() {
            self.land(board, at, land, visited)?;
        }
        ControlFlow::Continue(())
    }

    /// The Khan jumps from `at` onto the empty `land`: custodian capture there (K-13), report the
    /// move, then the chain's continuations unless this landing ends the game (K-14, K-15).
    fn land(
        &mut self,
        board: &Board,
        at: Square,
        land: Square,
        visited: Bitboard,
    ) -> ControlFlow<()> {
        let mut after = *board;
        khan_lands(&mut after, self.side, at, land);
        let child = Position::from_parts(after, !self.side);
        self.path.push(land);
        let mut flow = (self.visit)(MoveKind::Jump, self.path, &child);
        if flow.is_continue() && self.path.len() <= self.max_landings && !child.is_won() {
            flow = self.jumps(&after, land, visited | land.bit());
        }
        self.path.pop();
        flow
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
