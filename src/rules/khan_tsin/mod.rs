//! Khan-Tsin (Cosmoludo's stacking race for 2 or 3 players on a 36-square dragon track), as the
//! Khan-Tsin rules file (rules T-1..T-15, with its Decisions) has it.
//!
//! Moves are written `p12` / `K12` (placements), `17:2-` (the top 2 pawns of square 17,
//! counter-clockwise) and `pass` (a player with no legal move, T-12); positions are the rules
//! file's position text, four fields and an optional `m` (see [`Position`]).
//!
//! The layers, bottom up:
//! - [`Color`], [`Pawn`], [`Colors`]: colours, pawns, turn order (T-2, T-4, T-7);
//! - [`Layout`]: the track's square types as data (T-1, T-3);
//! - [`Stack`], [`Board`]: what stands where, and where a count round the circle lands (T-9);
//! - `placement` (T-5, T-6) and `moves` (T-8..T-11, T-13): the rules of each phase;
//! - [`Position`]: one position, its legal moves, playing one; `text`: its position text;
//! - [`Move`]: the move notation;
//! - [`perft`]: move-generator counts as the rules file's vectors count them;
//! - [`Game`]: seats, skips (T-12), the end of the game (T-13..T-15) and resignation, behind
//!   the [`Rules`](crate::rules::Rules) trait the server uses.
//!
//! Everything here is pure: no I/O, no clock, no randomness. Reading a position or a move never
//! panics; every refusal is a [`RuleError`](crate::rules::RuleError) that says what is wrong.

#![warn(missing_docs)]

mod game;
mod layout;
mod moves;
mod notation;
mod pawn;
mod perft;
mod placement;
mod position;
mod text;
mod track;

pub use game::Game;
pub use layout::{Layout, SQUARES, SquareType};
pub use notation::Move;
pub use pawn::{Color, Colors, Pawn};
pub use perft::{perft, perft_divide};
pub use placement::{PAWNS_PER_COLOR, required_type};
pub use position::{Phase, Played, Position};
pub use track::{Board, COLOR_CAP, Direction, MAX_HEIGHT, Stack};

#[cfg(test)]
mod rulebook_tests;

#[cfg(test)]
mod proptests;
