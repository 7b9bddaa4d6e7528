//! Khan (J. P. Neto's game of Soldiers and Khans on a 10x10 board), as
//! `docs/rules/khan.md` (rules K-1..K-17 with their Decisions) has it.
//!
//! Moves are the squares a piece visits joined by `-` (`e2-e3`, `h7-i1`, `f3-h5-f7-d7-d9`);
//! positions are the Khan position text (`ssssssssss/k1k1kk1k1k/.../SSSSSSSSSS w`).
//!
//! The layers, bottom up:
//! - [`board`](Board): squares, lines, sides, pieces, 128-bit square sets (K-1..K-3);
//! - [`Position`]: a board and the side to move, its text, who has won on it (K-14, K-15);
//! - `capture`: custodian capture (K-13);
//! - `moves`: what a Soldier move, a Khan step, push and jump do, and checking one move text
//!   hop by hop (K-6..K-12); `notation`: reading and writing move texts;
//! - `movegen`: every legal move with the position after it, one walk for the list, the tree,
//!   and perft (K-5..K-13);
//! - [`Listing`]: the legal moves as sent to clients, a sorted list or a compact JSON tree, with a
//!   limit for positions whose jump chains number in the millions;
//! - [`perft`], [`turn_perft`]: move-string and whole-turn counts;
//! - [`Game`]: the history and the end of the game (K-14..K-17), behind the
//!   [`Rules`](crate::rules::Rules) trait the server uses.
//!
//! Everything here is pure: no I/O, no clock, no randomness. Reading a position or a move never
//! panics; every refusal is a [`RuleError`](crate::rules::RuleError) that says what is wrong and,
//! for an illegal move, which rule forbids it.

#![warn(missing_docs)]

mod board;
mod capture;
mod game;
mod listing;
mod movegen;
mod moves;
mod notation;
mod perft;
mod position;

pub use board::{Bitboard, Board, Color, Direction, Piece, Role, Square};
pub use game::Game;
pub use listing::{Listing, MAX_LISTED, flatten as flatten_move_tree};
pub use movegen::walk;
pub use moves::MoveKind;
pub use perft::{perft, perft_divide, turn_children, turn_perft};
pub use position::{MAX_KHANS, MAX_SOLDIERS, Position, START_TEXT};

#[cfg(test)]
mod rulebook_tests;

#[cfg(test)]
mod proptests;
