//! The legal moves as a tree, the compact shape sent to the seat on move (`docs/protocol.md`,
//! "Legal moves in Khan").
//!
//! A JSON object maps each movable piece's square to an object of its next squares, recursively.
//! Every node is the end of a legal move (a client may stop there); a node's children are the
//! legal continuations of a jump chain (K-12). Soldier destinations (K-6..K-9) and Khan steps and
//! pushes (K-10, K-11) are leaves `{}`. Flattening the tree (every path from the top to a node,
//! joined by `-`) gives exactly the sorted move list.

use serde_json::{Map, Value};

use super::movegen::for_each_move;
use super::position::Position;

/// The move tree of the side to move on `pos` (see the module doc). The caller decides whether
/// the game is over (then it sends no moves).
pub fn move_tree(pos: &Position) -> Value {
    let mut root = Map::new();
    for_each_move(pos, &mut |_, path, _| {
        let mut node = &mut root;
        for sq in path {
            let child = node
                .entry(sq.to_string())
                .or_insert_with(|| Value::Object(Map::new()));
            node = match child {
                Value::Object(map) => map,
                // Every node is made an object just above.
                _ => return,
            };
        }
    });
    Value::Object(root)
}

/// The move strings of a tree: every path from the top to a node, joined by `-`, sorted.
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
