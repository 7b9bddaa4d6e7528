//! Custodian capture (K-13): after a Khan lands, an enemy piece between it and another friendly
//! Khan is removed.

use super::board::{Board, Color, Direction, Role, Square};

/// Applies K-13 for `mover`'s Khan that has just landed on `at` (after a step, a push or any jump
/// landing): for each of the 8 lines, an enemy piece (Soldier or Khan) on the adjacent square is
/// removed when the square beyond it holds another Khan of `mover`. All 8 lines are checked, so
/// one landing may capture several pieces. Returns how many pieces were removed.
///
/// The moving Khan's previous square is never a partner: the Khan has left it, so it is empty
/// (that is why a jumped piece survives, K-12). Only the mover captures: nothing here looks at the
/// other side's Khans, so a Khan that moves between two enemy Khans is safe.
#[inline]
pub fn custodian(board: &mut Board, at: Square, mover: Color) -> u32 {
    let enemies = board.by_color(!mover);
    let partners = board.pieces(mover, Role::Khan);
    let mut captured = 0;
    for dir in Direction::ALL {
        let Some(victim) = at.step(dir) else {
            continue;
        };
        if enemies & victim.bit() == 0 {
            continue;
        }
        let Some(partner) = victim.step(dir) else {
            continue;
        };
        if partners & partner.bit() != 0 {
            board.take(victim);
            captured += 1;
        }
    }
    captured
}
