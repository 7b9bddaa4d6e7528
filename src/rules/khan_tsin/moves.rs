//! Stack moves (T-8..T-11) and the winning landing (T-13).
//!
//! A player moves the top k pawns of a stack their colour tops, keeping their order, as many
//! occupied squares round the circle as the starting square's type says, either way (T-9); the
//! destination may not end up with more than 3 pawns of a colour (T-10) and may not be topped by
//! a face-up Khan-pawn (T-11). A landing that makes a 9-stack topped by the mover's face-up
//! Khan-pawn wins (T-13).

use super::layout::SQUARES;
use super::notation::Move;
use super::pawn::Color;
use super::position::Position;
use super::track::{COLOR_CAP, Direction, MAX_HEIGHT, Stack};
use crate::rules::{RuleError, RuleErrorCode};

/// The squares a stack leaving `from` lands on, clockwise and counter-clockwise (T-9); the
/// counter-clockwise one is `None` when it is the same square (one move, written `+`).
fn landings(pos: &Position, from: usize) -> [(Direction, Option<usize>); 2] {
    let distance = pos.layout.square(from).distance();
    let cw = pos.board.landing(from, distance, Direction::Clockwise);
    let ccw = pos
        .board
        .landing(from, distance, Direction::CounterClockwise);
    [
        (Direction::Clockwise, cw),
        (
            Direction::CounterClockwise,
            if ccw == cw { None } else { ccw },
        ),
    ]
}

/// Whether `moved` may land on `onto` by the colour cap (T-10).
fn fits(moved: &Stack, onto: &Stack) -> bool {
    let (a, b) = (moved.counts(), onto.counts());
    (0..3).all(|i| a[i] + b[i] <= COLOR_CAP)
}

/// Whether `stack` is topped by a face-up Khan-pawn, so nothing may land on it (T-11).
fn khan_on_top(stack: &Stack) -> bool {
    stack.top().is_some_and(|p| p.is_khan())
}

/// Calls `found(from, k, direction)` for each legal stack move of `color`, stopping (and
/// returning `true`) as soon as `found` returns `true`.
fn each_move(
    pos: &Position,
    color: Color,
    mut found: impl FnMut(u8, u8, Direction) -> bool,
) -> bool {
    for from in 0..SQUARES {
        let stack = pos.board.stack(from);
        if stack.top().map(|p| p.color()) != Some(color) {
            continue;
        }
        for (direction, to) in landings(pos, from) {
            let Some(to) = to else { continue };
            let onto = pos.board.stack(to);
            if khan_on_top(onto) {
                continue;
            }
            for k in 1..=stack.height() {
                // Taking more pawns only adds to each colour's count: once over the cap, stop.
                if !fits(&stack.top_part(k), onto) {
                    break;
                }
                if found(from as u8, k as u8, direction) {
                    return true;
                }
            }
        }
    }
    false
}

/// Appends `color`'s legal stack moves, canonical.
pub(super) fn generate(pos: &Position, color: Color, out: &mut Vec<Move>) {
    each_move(pos, color, |from, k, direction| {
        out.push(Move::Shift { from, k, direction });
        false
    });
}

/// Whether `color` has a legal stack move (T-12).
pub(super) fn can_move(pos: &Position, color: Color) -> bool {
    each_move(pos, color, |_, _, _| true)
}

/// Checks `color`'s move of the top `k` pawns of `from` going `direction` and returns it in
/// canonical form. Errors: `IllegalMove` citing the rule (T-8..T-11).
pub(super) fn check(
    pos: &Position,
    color: Color,
    from: usize,
    k: usize,
    direction: Direction,
) -> Result<Move, RuleError> {
    let mv = Move::Shift {
        from: from as u8,
        k: k as u8,
        direction,
    };
    let illegal = |why: String| {
        Err(RuleError::new(
            RuleErrorCode::IllegalMove,
            format!("{mv}: {why}"),
        ))
    };
    let stack = pos.board.stack(from);
    let Some(top) = stack.top() else {
        return illegal(format!("square {from} is empty (T-8)"));
    };
    if top.color() != color {
        return illegal(format!(
            "the stack on {from} is topped by {}; {color} moves only stacks its own colour tops \
             (T-8)",
            top.color()
        ));
    }
    if k > stack.height() {
        return illegal(format!(
            "the stack on {from} holds {} pawn{}, so its top {k} cannot move (T-8)",
            stack.height(),
            if stack.height() == 1 { "" } else { "s" }
        ));
    }
    let [(_, cw), (_, ccw)] = landings(pos, from);
    let (to, canonical) = match direction {
        Direction::Clockwise => (cw, direction),
        // The same square both ways is one move, written `+` (T-9).
        Direction::CounterClockwise => match ccw {
            Some(to) => (Some(to), direction),
            None => (cw, Direction::Clockwise),
        },
    };
    let Some(to) = to else {
        return illegal(format!(
            "no other square is occupied, so the stack on {from} has nowhere to land (T-9)"
        ));
    };
    let onto = pos.board.stack(to);
    if let Some(khan) = onto.top().filter(|p| p.is_khan()) {
        return illegal(format!(
            "it would land on {to}, topped by {}'s face-up Khan-pawn; Khan-pawns are never \
             covered (T-11)",
            khan.color()
        ));
    }
    let moved = stack.top_part(k);
    if let Some(over) = Color::ALL
        .into_iter()
        .find(|c| moved.counts()[c.index()] + onto.counts()[c.index()] > COLOR_CAP)
    {
        return illegal(format!(
            "it would put {} {over} pawns on {to}; a stack holds at most 3 of one colour (T-10)",
            moved.counts()[over.index()] + onto.counts()[over.index()]
        ));
    }
    Ok(Move::Shift {
        from: from as u8,
        k: k as u8,
        direction: canonical,
    })
}

/// Moves the top `k` pawns of `from` going `direction` (checked legal). Returns the square they
/// landed on and whether the move wins: the destination is a 9-stack topped by a face-up
/// Khan-pawn (T-13; by T-8 it is the mover's).
pub(super) fn shift(
    pos: &mut Position,
    from: usize,
    k: usize,
    direction: Direction,
) -> (Option<usize>, bool) {
    let distance = pos.layout.square(from).distance();
    let Some(to) = pos.board.landing(from, distance, direction) else {
        return (None, false);
    };
    let moved = pos.board.stack(from).top_part(k);
    pos.board.stack_mut(from).remove_top(k);
    let onto = pos.board.stack_mut(to);
    onto.put(&moved);
    let won = onto.height() == MAX_HEIGHT && khan_on_top(onto);
    (Some(to), won)
}
