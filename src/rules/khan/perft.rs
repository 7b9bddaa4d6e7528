//! Perft for Khan, two ways (rules file, "Counts from the start position").
//!
//! - [`perft`] counts move sequences where a move is a move *string*: every prefix of a jump chain
//!   is a move of its own (K-12), a Soldier move is one `from-to` per destination (K-9). From the
//!   start: 204, 41 616.
//! - [`turn_perft`] counts in *turns*: a node's children are the distinct positions after one
//!   whole turn (moves that give the same position are merged among siblings). From the start:
//!   130, 16 900.
//!
//! In both, a position where the game is over by K-14/K-15 has no children (a leaf at depth 0,
//! nothing below), and repetition (K-17) is not looked at: it needs a game's history, and a
//! [`Position`] has none.

use std::collections::HashSet;

use super::movegen::{count, for_each_move};
use super::position::Position;

/// The number of move-string sequences of `depth` turns from `pos` (1 for depth 0).
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if pos.is_won() {
        return 0;
    }
    if depth == 1 {
        return count(pos);
    }
    let mut nodes = 0;
    for_each_move(pos, &mut |_, _, child| nodes += perft(child, depth - 1));
    nodes
}

/// The distinct positions after one turn from `pos`, sorted by their position text (empty when
/// the game is over there by K-14/K-15).
pub fn turn_children(pos: &Position) -> Vec<Position> {
    let mut children = distinct_children(pos).into_iter().collect::<Vec<_>>();
    children.sort_by_cached_key(|child| child.to_string());
    children
}

fn distinct_children(pos: &Position) -> HashSet<Position> {
    let mut children = HashSet::new();
    if !pos.is_won() {
        for_each_move(pos, &mut |_, _, child| {
            children.insert(*child);
        });
    }
    children
}

/// Turn perft: the number of leaves of the tree whose children are the distinct positions after
/// one whole turn, to `depth` turns (1 for depth 0).
pub fn turn_perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => distinct_children(pos).len() as u64,
        _ => distinct_children(pos)
            .iter()
            .map(|child| turn_perft(child, depth - 1))
            .sum(),
    }
}

/// Perft split by first move: each legal move string with the count of sequences it starts,
/// sorted by the move text. `depth` counts the first move (depth 1 gives each move 1).
pub fn perft_divide(pos: &Position, depth: u32) -> Vec<(String, u64)> {
    let mut rows = Vec::new();
    if depth == 0 || pos.is_won() {
        return rows;
    }
    for_each_move(pos, &mut |_, path, child| {
        rows.push((super::notation::write_path(path), perft(child, depth - 1)));
    });
    rows.sort_unstable();
    rows
}
