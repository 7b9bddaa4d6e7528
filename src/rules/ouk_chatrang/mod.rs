//! Ouk Chatrang (Cambodian chess), as `docs/rules/ouk-chatrang.md` (rules O-1..O-24) has it.
//!
//! Positions are Fairy-Stockfish `cambodian` FEN and moves are UCI, so that engine's tools can
//! check ours; moves are shown to people in its SAN.
//!
//! The layers, bottom up:
//! - [`board`](Board): squares, colours, pieces, where they stand (O-1, O-2);
//! - `attacks`: what each piece attacks, compile-time tables (O-6..O-9);
//! - [`Position`]: one FEN's worth of state, and playing a move on it (O-3..O-5, O-10, O-14);
//! - `movegen`: legal moves without playing them, special first moves included (O-11..O-13);
//! - `fen`, `san`, [`Move`] (UCI): the notations;
//! - [`perft`]: move-generator counts on a bare [`Position`], fast;
//! - `counting` (O-18..O-24) and `material` (O-17): rules that need more than one position;
//! - [`Game`]: the history and the end of the game, behind the [`Rules`](crate::rules::Rules)
//!   trait the server uses.
//!
//! Everything here is pure: no I/O, no clock, no randomness. Reading a FEN or a move never panics;
//! every refusal is a [`RuleError`](crate::rules::RuleError) that says what is wrong.

#![warn(missing_docs)]

mod attacks;
mod board;
mod counting;
mod fen;
mod game;
mod material;
mod movegen;
mod moves;
mod perft;
mod position;
mod san;

pub use board::{Bitboard, Board, Color, Piece, Role, Square};
pub use counting::{COUNTING_KEY, CountStep, Counting, CountingKind};
pub use game::Game;
pub use moves::Move;
pub use perft::{perft, perft_divide};
pub use position::{CountingFields, Position, Rights};

#[cfg(test)]
mod rulebook_tests;

#[cfg(test)]
mod proptests;
