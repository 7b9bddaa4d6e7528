//! What a game screen shows beside the board, said by the rules so that no client re-derives it:
//! each seat's material ([`Material`]) and the seat in check ([`Rules::check`](super::Rules::check)).
//! The squares a move emptied travel in [`Applied::captured`](super::Applied::captured).
//!
//! The shapes are the wire's (`moved.d.material`, `snapshot.d.material`, docs/protocol.md
//! "Material, captures and check"), so the server passes them on without reading them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Seat;

/// One seat's material, in the game's own terms.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SeatMaterial {
    /// Khan: the seat's pieces on the board, `{"soldiers": n, "khans": n}` (the last Soldier
    /// decides the game, K-15).
    Pieces {
        /// Soldiers on the board.
        soldiers: u32,
        /// Khans on the board.
        khans: u32,
    },
    /// Ouk Chatrang: the enemy pieces this seat has captured in this game, `{"captured": "rnp"}`:
    /// lower-case FEN letters, rooks first, then knights, Khons, Neangs, pawns (a promoted pawn
    /// counts as the Neang it had become).
    Captured {
        /// The letters, in that order.
        captured: String,
    },
}

/// Every seat's material, keyed by the seat number written as text, as on the wire (`{"0": ...,
/// "1": ...}`): text keys, because a map with number keys does not read back inside the events'
/// flattened frames.
pub type Material = BTreeMap<String, SeatMaterial>;

/// The key of `seat` in a [`Material`].
pub fn seat_key(seat: Seat) -> String {
    seat.to_string()
}
