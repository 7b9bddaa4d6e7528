//! What each kind of move does (K-6..K-13), and checking one move given as text.
//!
//! The building blocks here are shared by the generator (`movegen`) and by [`play`], which checks
//! a move path hop by hop without listing the legal moves, so a move is judged in time linear in
//! its length whatever the position.

use super::board::{Bitboard, Board, Color, Direction, Piece, Role, Square, adjacent, squares};
use super::capture::custodian;
use super::notation::{parse_path, write_path};
use super::position::Position;
use crate::rules::{RuleError, RuleErrorCode};

/// The kinds of move of K-5.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveKind {
    /// A Soldier step or support chain (K-6..K-9), written `from-to`.
    Soldier,
    /// A Khan step (K-10), `from-to` onto an empty adjacent square.
    Step,
    /// A Khan push (K-11), `from-to` onto its own Soldier, the first of the phalanx.
    Push,
    /// A Khan jump chain (K-12), the start and every landing square.
    Jump,
}

/// Reach(from) of K-9: the squares a Soldier of `side` on `from` can get to by supports (K-7,
/// K-8). Repeatedly: from the current square, to any empty square adjacent to a friendly Khan
/// that is adjacent to the current square. The Soldier's own square counts as empty during the
/// search and is not in the result.
///
/// Worked Khan by Khan: every Khan met once adds all its empty neighbours, and the Khans next to
/// those squares are met next.
pub fn soldier_reach(board: &Board, side: Color, from: Square) -> Bitboard {
    let khans = board.pieces(side, Role::Khan);
    let empty = !board.occupied() | from.bit();
    let mut reach: Bitboard = 0;
    let mut used: Bitboard = 0;
    let mut next_khans = adjacent(from) & khans;
    while next_khans != 0 {
        used |= next_khans;
        let mut added: Bitboard = 0;
        for khan in squares(next_khans) {
            added |= adjacent(khan) & empty;
        }
        added &= !reach;
        reach |= added;
        let mut touched: Bitboard = 0;
        for sq in squares(added) {
            touched |= adjacent(sq);
        }
        next_khans = touched & khans & !used;
    }
    reach & !from.bit()
}

/// Every square a Soldier of `side` on `from` may move to: an adjacent empty square (K-6) or a
/// square of Reach(from) (K-7..K-9).
pub fn soldier_targets(board: &Board, side: Color, from: Square) -> Bitboard {
    (adjacent(from) & !board.occupied()) | soldier_reach(board, side, from)
}

/// The position after `side`'s Soldier moves from `from` to `to` (K-6..K-9); the other side is
/// then to move.
pub fn after_soldier(pos: &Position, from: Square, to: Square) -> Position {
    let mut board = pos.board;
    board.take(from);
    board.put(
        to,
        Piece {
            color: pos.side,
            role: Role::Soldier,
        },
    );
    Position::from_parts(board, !pos.side)
}

/// Moves `side`'s Khan from `from` to the empty square `to` and applies custodian capture from
/// there (K-13). Used by steps and every jump landing.
#[inline]
pub fn khan_lands(board: &mut Board, side: Color, from: Square, to: Square) {
    board.take(from);
    board.put(
        to,
        Piece {
            color: side,
            role: Role::Khan,
        },
    );
    custodian(board, to, side);
}

/// Why a push is not possible (K-11).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PushBlocked {
    /// The square next to the Khan is not a friendly Soldier: there is no phalanx.
    NoPhalanx,
    /// The phalanx runs to the edge of the board.
    Edge,
    /// A friendly Khan stands right after the phalanx, on this square.
    FriendlyKhan(Square),
}

/// The square T after the phalanx in front of `side`'s Khan on `khan` along `dir`, when the
/// push is legal (K-11): T is on the board and empty or holds an enemy piece.
#[inline]
pub fn push_target(
    board: &Board,
    side: Color,
    khan: Square,
    dir: Direction,
) -> Result<Square, PushBlocked> {
    let soldiers = board.pieces(side, Role::Soldier);
    let mut at = khan.step(dir).ok_or(PushBlocked::NoPhalanx)?;
    if soldiers & at.bit() == 0 {
        return Err(PushBlocked::NoPhalanx);
    }
    while soldiers & at.bit() != 0 {
        at = at.step(dir).ok_or(PushBlocked::Edge)?;
    }
    if board.pieces(side, Role::Khan) & at.bit() != 0 {
        return Err(PushBlocked::FriendlyKhan(at));
    }
    Ok(at)
}

/// The position after `side`'s Khan on `khan` pushes along `dir` into `target` (K-11): the
/// phalanx moves one square (an enemy on `target` is captured), the Khan moves into the first
/// square of the phalanx, then custodian capture from there (K-13).
pub fn after_push(pos: &Position, khan: Square, first: Square, target: Square) -> Position {
    let mut board = pos.board;
    board.put(
        target,
        Piece {
            color: pos.side,
            role: Role::Soldier,
        },
    );
    khan_lands(&mut board, pos.side, khan, first);
    Position::from_parts(board, !pos.side)
}

/// The position after `side`'s Khan steps from `from` to the empty square `to` (K-10, K-13).
pub fn after_step(pos: &Position, from: Square, to: Square) -> Position {
    let mut board = pos.board;
    khan_lands(&mut board, pos.side, from, to);
    Position::from_parts(board, !pos.side)
}

/// A move checked and played: the position after it, its canonical text and its kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Played {
    /// The position after the move, the other side to move.
    pub position: Position,
    /// The canonical text: `from-to` for a Soldier move (K-9), the text as given otherwise.
    pub notation: String,
    /// What kind of move it was (K-5).
    pub kind: MoveKind,
}

fn illegal(why: String) -> RuleError {
    RuleError::new(RuleErrorCode::IllegalMove, why)
}

/// Checks and plays the move `text` for the side to move on `pos`, whatever the position: it does
/// not look at whether the game is already over (the caller does).
///
/// Errors: `BadNotation` when `text` is not squares joined by `-`; `IllegalMove`, citing the rule,
/// when it is not a legal move here.
pub fn play(pos: &Position, text: &str) -> Result<Played, RuleError> {
    let path = parse_path(text)?;
    let (from, to) = match path.as_slice() {
        [from, .., to] => (*from, *to),
        _ => return Err(illegal(format!("{text:?} names no move"))),
    };
    let piece = match pos.board.piece_at(from) {
        Some(piece) => piece,
        None => {
            return Err(illegal(format!("K-5: there is no piece on {from} to move")));
        }
    };
    if piece.color != pos.side {
        return Err(illegal(format!(
            "K-5: the {} on {from} is not yours; {} is to move",
            piece.name(),
            pos.side
        )));
    }
    match piece.role {
        Role::Soldier => play_soldier(pos, &path, from, to),
        Role::Khan if path.len() == 2 => play_khan_pair(pos, from, to),
        Role::Khan => play_jumps(pos, &path),
    }
}

/// A Soldier move (K-6..K-9): the pair `from-to`, or a path whose every hop is a support.
fn play_soldier(
    pos: &Position,
    path: &[Square],
    from: Square,
    to: Square,
) -> Result<Played, RuleError> {
    let side = pos.side;
    if from == to {
        return Err(illegal(format!(
            "K-9: a Soldier move must end on another square than it starts ({from})"
        )));
    }
    if path.len() == 2 {
        if soldier_targets(&pos.board, side, from) & to.bit() == 0 {
            let why = if pos.board.occupied() & to.bit() != 0 {
                format!("{to} is not empty")
            } else {
                "it is not an adjacent empty square, and no chain of supports by friendly Khans leads there".to_owned()
            };
            return Err(illegal(format!(
                "K-6..K-9: the Soldier on {from} cannot move to {to}: {why}"
            )));
        }
    } else {
        // Every hop must be a support (K-7, K-8): the next square is empty and adjacent to a
        // friendly Khan that is adjacent to the current square. The Soldier has left `from`.
        let mut board = pos.board;
        board.take(from);
        let khans = board.pieces(side, Role::Khan);
        for hop in path.windows(2) {
            let (here, there) = (hop[0], hop[1]);
            if board.occupied() & there.bit() != 0 || here == there {
                return Err(illegal(format!(
                    "K-7: the Soldier cannot be supported from {here} to {there}: {there} is not empty"
                )));
            }
            let supported = squares(adjacent(here) & khans).any(|k| adjacent(k) & there.bit() != 0);
            if !supported {
                return Err(illegal(format!(
                    "K-7: {here}-{there} is not a support: no friendly Khan is adjacent to both squares"
                )));
            }
        }
    }
    Ok(Played {
        position: after_soldier(pos, from, to),
        notation: write_path(&[from, to]),
        kind: MoveKind::Soldier,
    })
}

/// A two-square Khan move: a step (K-10), a push (K-11) or a single jump (K-12).
fn play_khan_pair(pos: &Position, from: Square, to: Square) -> Result<Played, RuleError> {
    let side = pos.side;
    let notation = write_path(&[from, to]);
    match from.line_to(to) {
        Some((dir, 1)) => match pos.board.piece_at(to) {
            None => Ok(Played {
                position: after_step(pos, from, to),
                notation,
                kind: MoveKind::Step,
            }),
            Some(Piece {
                color,
                role: Role::Soldier,
            }) if color == side => match push_target(&pos.board, side, from, dir) {
                Ok(target) => Ok(Played {
                    position: after_push(pos, from, to, target),
                    notation,
                    kind: MoveKind::Push,
                }),
                Err(PushBlocked::FriendlyKhan(at)) => Err(illegal(format!(
                    "K-11: the push {notation} is blocked: a friendly Khan stands on {at}, right after the phalanx"
                ))),
                Err(_) => Err(illegal(format!(
                    "K-11: the push {notation} is blocked: the phalanx reaches the edge of the board"
                ))),
            },
            Some(other) => Err(illegal(format!(
                "K-10, K-11: a Khan steps only onto an empty square and pushes only its own Soldiers; {to} holds a {}",
                other.name()
            ))),
        },
        Some((_, _)) => play_jumps(pos, &[from, to]),
        None => Err(illegal(format!(
            "K-10..K-12: a Khan moves to an adjacent square or jumps over an adjacent piece to the square beyond; {notation} is neither"
        ))),
    }
}

/// A jump chain (K-12): every hop jumps over an adjacent piece onto the empty square beyond,
/// never onto a square the Khan has stood on this turn; custodian capture after every landing
/// (K-13); the chain stops where the game ends (K-14, K-15).
fn play_jumps(pos: &Position, path: &[Square]) -> Result<Played, RuleError> {
    let side = pos.side;
    let mut board = pos.board;
    let mut visited: Bitboard = 0;
    let hops = path.len() - 1;
    for (i, hop) in path.windows(2).enumerate() {
        let (here, there) = (hop[0], hop[1]);
        visited |= here.bit();
        let over = match here.line_to(there) {
            Some((dir, 2)) => here.step(dir),
            _ => None,
        };
        let Some(over) = over else {
            return Err(illegal(format!(
                "K-12: {here}-{there} is not a jump: a Khan jumps over an adjacent piece to the square directly beyond it on a line"
            )));
        };
        if board.occupied() & over.bit() == 0 {
            return Err(illegal(format!(
                "K-12: {here}-{there} is not a jump: there is no piece on {over} to jump over"
            )));
        }
        if visited & there.bit() != 0 {
            return Err(illegal(format!(
                "K-12: a Khan may not land twice on the same square in one turn ({there})"
            )));
        }
        if board.occupied() & there.bit() != 0 {
            return Err(illegal(format!(
                "K-12: {here}-{there} lands on {there}, which is not empty"
            )));
        }
        khan_lands(&mut board, side, here, there);
        let after = Position::from_parts(board, !side);
        if i + 1 < hops
            && let Some((winner, reason)) = after.winner()
        {
            return Err(illegal(format!(
                "K-14, K-15: the game ends on the landing at {there} ({winner} wins by {reason}); a jump chain cannot continue past that landing"
            )));
        }
    }
    Ok(Played {
        position: Position::from_parts(board, !side),
        notation: write_path(path),
        kind: MoveKind::Jump,
    })
}
