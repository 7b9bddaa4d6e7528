//! The placement phase (T-5, T-6): players place their 12 pawns one at a time in turn order, the
//! first 4 on triple squares, the next 4 on double squares, the last 4 on single squares; the
//! Khan-pawn at any of those placements, at the latest the 12th. In a two-player game the 12
//! neutral pawns then fill the remaining squares.

use super::layout::{SQUARES, SquareType};
use super::notation::Move;
use super::pawn::{Color, Pawn};
use super::position::{Phase, Position};
use super::track::Stack;
use crate::rules::{RuleError, RuleErrorCode};

/// How many pawns each colour has (T-2), all placed before the movement phase (T-5).
pub const PAWNS_PER_COLOR: usize = 12;

/// The square type a colour's next placement must use when it has placed `placed` pawns (T-5):
/// triple for the 1st–4th, double for the 5th–8th, single for the 9th–12th.
pub fn required_type(placed: usize) -> SquareType {
    match placed {
        0..4 => SquareType::Triple,
        4..8 => SquareType::Double,
        _ => SquareType::Single,
    }
}

/// Whether `color`, on its next placement, may place a plain pawn (it keeps at least one besides
/// a Khan-pawn still in hand) and whether it may place its Khan-pawn (still in hand). T-5: the
/// 12th placement must be the Khan-pawn while it is in hand.
fn in_hand(pos: &Position, color: Color) -> (bool, bool) {
    let placed = pos.board.count(color);
    let khan = !pos.board.has_khan(color);
    let plain = PAWNS_PER_COLOR.saturating_sub(placed + usize::from(khan)) > 0;
    (plain, khan && placed < PAWNS_PER_COLOR)
}

fn free_squares(pos: &Position, kind: SquareType) -> impl Iterator<Item = usize> + '_ {
    (0..SQUARES).filter(move |&sq| pos.board.stack(sq).is_empty() && pos.layout.square(sq) == kind)
}

/// Appends `color`'s legal placements.
pub(super) fn generate(pos: &Position, color: Color, out: &mut Vec<Move>) {
    let placed = pos.board.count(color);
    if placed >= PAWNS_PER_COLOR {
        return;
    }
    let (plain, khan) = in_hand(pos, color);
    for square in free_squares(pos, required_type(placed)) {
        let square = square as u8;
        if plain {
            out.push(Move::Place {
                square,
                khan: false,
            });
        }
        if khan {
            out.push(Move::Place { square, khan: true });
        }
    }
}

/// Whether `color` can place a pawn now.
pub(super) fn can_place(pos: &Position, color: Color) -> bool {
    let placed = pos.board.count(color);
    placed < PAWNS_PER_COLOR && free_squares(pos, required_type(placed)).next().is_some()
}

/// Checks `color`'s placement on `square` (the Khan-pawn when `khan`). Errors: `IllegalMove`
/// citing T-5.
pub(super) fn check(
    pos: &Position,
    color: Color,
    square: usize,
    khan: bool,
) -> Result<(), RuleError> {
    let illegal = |why: String| Err(RuleError::new(RuleErrorCode::IllegalMove, why));
    let mv = Move::Place {
        square: square as u8,
        khan,
    };
    let placed = pos.board.count(color);
    if placed >= PAWNS_PER_COLOR {
        return illegal(format!("{mv}: {color} has placed all 12 pawns (T-5)"));
    }
    if !pos.board.stack(square).is_empty() {
        return illegal(format!(
            "{mv}: square {square} is taken; pawns are placed one per empty square (T-5)"
        ));
    }
    let need = required_type(placed);
    let kind = pos.layout.square(square);
    if kind != need {
        return illegal(format!(
            "{mv}: square {square} is a {} square, but {color}'s placement {} of 12 goes on a {} \
             square (T-5: first 4 on triple, then 4 on double, then 4 on single squares)",
            kind.name(),
            placed + 1,
            need.name()
        ));
    }
    let (plain, khan_in_hand) = in_hand(pos, color);
    if khan && !khan_in_hand {
        return illegal(format!(
            "{mv}: {color}'s Khan-pawn is already on the board (T-2: one Khan-pawn per colour)"
        ));
    }
    if !khan && !plain {
        return illegal(format!(
            "{mv}: this is {color}'s 12th placement and its Khan-pawn is still in hand: it \
             must be placed now, K{square} (T-5)"
        ));
    }
    Ok(())
}

/// Places a pawn of the colour on move (checked legal).
pub(super) fn place(pos: &mut Position, square: usize, khan: bool) {
    let color = pos.to_move;
    let pawn = if khan {
        Pawn::khan(color)
    } else {
        Pawn::plain(color)
    };
    pos.board
        .stack_mut(square)
        .put(&Stack::from_pawns(&[pawn]).unwrap_or_default());
}

/// When every colour playing has placed its 12 pawns, the colours not playing (the neutral
/// colour of a two-player game, or a player who resigned during placement) get theirs placed
/// automatically, each on the squares its remaining placements would use, lowest square first
/// (T-6). With one such colour that is every remaining square; its Khan-pawn, if still in hand,
/// lies face down as an ordinary pawn. Then the movement phase begins.
pub(super) fn finish_if_done(pos: &mut Position) {
    let done = pos
        .playing
        .iter()
        .all(|c| pos.board.count(c) >= PAWNS_PER_COLOR);
    if !done {
        return;
    }
    for color in super::pawn::Color::ALL {
        if pos.playing.contains(color) {
            continue;
        }
        for placed in pos.board.count(color)..PAWNS_PER_COLOR {
            let square = free_squares(pos, required_type(placed)).next();
            if let Some(square) = square {
                pos.board
                    .stack_mut(square)
                    .put(&Stack::from_pawns(&[Pawn::plain(color)]).unwrap_or_default());
            }
        }
    }
    pos.phase = Phase::Movement;
}
