//! The legal moves as the server sends them: the sorted list of move strings, and the compact
//! tree of `docs/protocol.md`, "Legal moves in Khan".
//!
//! The tree is a JSON object mapping each movable piece's square to an object of its next
//! squares, recursively. Every node is the end of a legal move (a client may stop there); a
//! node's children are the legal continuations of a jump chain (K-12). Soldier destinations
//! (K-6..K-9) and Khan steps and pushes (K-10, K-11) are leaves `{}`. Flattening the tree (every
//! path from the top to a node below the first level, joined by `-`) gives exactly the list.
//!
//! **Limit.** Every prefix of a jump chain is a move (K-12), so on a crowded board the number of
//! move strings grows exponentially with the chains' length: random play reaches positions with
//! tens of thousands, and a position text can be built with many millions (a lattice of pieces
//! with empty squares between them). Such a list can be neither computed in time nor sent. So when
//! a position has more than [`MAX_LISTED`] move strings, the list and the tree give jump chains
//! only up to the largest number of landings that keeps them within [`MAX_LISTED`] (at least one
//! landing: every first jump is always listed); longer chains stay legal and are accepted when
//! played. [`Listing::max_landings`] says when this happened.

use std::ops::ControlFlow;

use serde_json::{Map, Value};

use super::board::Square;
use super::movegen::walk;
use super::position::Position;

/// The most move strings listed for one position (see the module doc). Every position's moves
/// without jump continuations (Soldier moves, Khan steps, pushes, first jumps) number at most
/// about 2 000, so the limit always leaves room for them.
pub const MAX_LISTED: usize = 10_000;

/// The listed moves of a position, as paths of squares, in the walk's order: the order of their
/// text, a chain's prefix before its continuations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listing {
    /// The squares of every path, one after another.
    squares: Vec<Square>,
    /// Where each path ends in `squares`.
    ends: Vec<usize>,
    /// `Some(n)` when jump chains are listed only up to `n` landings (see the module doc).
    max_landings: Option<usize>,
}

impl Listing {
    /// The legal moves of the side to move on `pos`, all of them when there are at most
    /// [`MAX_LISTED`]; the caller decides whether the game is over (then it lists nothing).
    pub fn of(pos: &Position) -> Listing {
        if let Some(all) = Listing::collect(pos, usize::MAX, MAX_LISTED) {
            return all;
        }
        // Chains of one landing are few (see MAX_LISTED), so one landing always fits; chains are
        // at most 99 landings long, so the whole list not fitting ends the search.
        let mut landings = 1;
        while Listing::fits(pos, landings + 1) {
            landings += 1;
        }
        let mut listing = Listing::collect(pos, landings, usize::MAX).unwrap_or_default();
        listing.max_landings = Some(landings);
        listing
    }

    /// Whether the moves with chains of at most `max_landings` landings number at most
    /// [`MAX_LISTED`]; counted, not kept.
    fn fits(pos: &Position, max_landings: usize) -> bool {
        let mut n = 0;
        walk(pos, max_landings, &mut |_, _, _| {
            n += 1;
            if n > MAX_LISTED {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .is_continue()
    }

    /// The moves with chains of at most `max_landings` landings, or `None` past `budget` moves.
    fn collect(pos: &Position, max_landings: usize, budget: usize) -> Option<Listing> {
        let mut listing = Listing::default();
        let flow = walk(pos, max_landings, &mut |_, path, _| {
            if listing.ends.len() >= budget {
                return ControlFlow::Break(());
            }
            listing.squares.extend_from_slice(path);
            listing.ends.push(listing.squares.len());
            ControlFlow::Continue(())
        });
        flow.is_continue().then_some(listing)
    }

    /// `Some(n)` when the position has more than [`MAX_LISTED`] move strings and jump chains are
    /// listed only up to `n` landings; `None` when every legal move is listed.
    pub fn max_landings(&self) -> Option<usize> {
        self.max_landings
    }

    /// How many moves are listed.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether no move is listed.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    fn paths(&self) -> impl Iterator<Item = &[Square]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(self.ends.iter().copied())
            .filter_map(|(start, end)| self.squares.get(start..end))
    }

    /// The listed moves as move strings, sorted (the walk lists them in text order).
    pub fn strings(&self) -> Vec<String> {
        self.paths()
            .map(|path| {
                let mut text = String::with_capacity(path.len() * 4);
                for (i, sq) in path.iter().enumerate() {
                    if i > 0 {
                        text.push('-');
                    }
                    sq.push_to(&mut text);
                }
                text
            })
            .collect()
    }

    /// The listed moves as the tree of the module doc.
    ///
    /// Built in one pass over the paths, which come in pre-order: a stack holds the open nodes
    /// from the piece's square down to the current chain's last landing; a node is closed and put
    /// into its parent when a path no longer goes through it.
    pub fn tree(&self) -> Value {
        let mut root = Map::new();
        let mut open: Vec<(Square, Map<String, Value>)> = Vec::with_capacity(32);
        for path in self.paths() {
            let (Some(&from), Some(&last)) = (path.first(), path.last()) else {
                continue;
            };
            if open.first().is_some_and(|(sq, _)| *sq != from) {
                close_to(&mut open, &mut root, 0);
            }
            if open.is_empty() {
                open.push((from, Map::new()));
            }
            // The open nodes are path[..open.len()]; keep those that are a prefix of this path.
            close_to(&mut open, &mut root, path.len() - 1);
            open.push((last, Map::new()));
        }
        close_to(&mut open, &mut root, 0);
        Value::Object(root)
    }
}

/// Closes open nodes until `keep` are left, each into its parent (the last into `root`).
fn close_to(
    open: &mut Vec<(Square, Map<String, Value>)>,
    root: &mut Map<String, Value>,
    keep: usize,
) {
    while open.len() > keep {
        let Some((sq, children)) = open.pop() else {
            break;
        };
        let parent = match open.last_mut() {
            Some((_, parent)) => parent,
            None => &mut *root,
        };
        let mut key = String::with_capacity(3);
        sq.push_to(&mut key);
        parent.insert(key, Value::Object(children));
    }
}

/// The move strings of a tree: every path from the top to a node below the first level, joined
/// by `-`, sorted. The inverse of [`Listing::tree`].
pub fn flatten(tree: &Value) -> Vec<String> {
    fn walk(prefix: &str, node: &Value, out: &mut Vec<String>) {
        if let Value::Object(map) = node {
            for (sq, child) in map {
                let path = if prefix.is_empty() {
                    sq.clone()
                } else {
                    let path = format!("{prefix}-{sq}");
                    out.push(path.clone());
                    path
                };
                walk(&path, child, out);
            }
        }
    }
    let mut out = Vec::new();
    walk("", tree, &mut out);
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;
    use crate::rules::khan::Game;
    use crate::rules::khan::movegen::for_each_move;
    use crate::rules::khan::notation::write_path;

    /// Soldiers on the squares between a1, c1, ..., g7 (a lattice of 16 empty landing squares):
    /// the White Khan on a1 has about a million jump chains.
    const LATTICE: &str = "10/10/10/1S1s1S4/sSsSsSs3/1S1s1S4/sSsSsSs3/1S1s1S4/sSsSsSs3/KS1S1S4 w";

    #[test]
    fn start_position_is_listed_whole() {
        let listing = Game::new().listing();
        assert_eq!(listing.max_landings(), None);
        assert_eq!(listing.len(), 204);
    }

    #[test]
    fn a_position_with_a_million_chains_lists_them_up_to_the_landing_count_that_fits() {
        let game = Game::from_text(LATTICE).unwrap();
        let listing = game.listing();
        let n = listing.max_landings().expect("truncated");
        assert!(listing.len() <= MAX_LISTED);
        // Exactly the moves of at most n landings are listed; with n + 1 they would not fit.
        let mut upto = [0usize; 2];
        let mut longer = None;
        for_each_move(game.current(), &mut |_, path, _| {
            let landings = path.len() - 1;
            if landings <= n {
                upto[0] += 1;
            }
            if landings <= n + 1 {
                upto[1] += 1;
            }
            if landings == n + 1 && longer.is_none() {
                longer = Some(write_path(path));
            }
        });
        assert_eq!(listing.len(), upto[0]);
        assert!(upto[1] > MAX_LISTED);
        assert_eq!(flatten(&listing.tree()), listing.strings());
        assert_eq!(game.legal_moves(), listing.strings());
        // A longer chain is not listed, and still legal.
        let longer = longer.expect("a longer chain");
        assert!(!game.legal_moves().contains(&longer));
        let mut copy = game.clone();
        assert!(copy.play(&longer).is_ok(), "{longer}");
    }
}
