//! The recorded games of `tests/data/ouk-chatrang/games.jsonl` (a copy of the project's shared
//! data: 39 Fairy-Stockfish self-play games with results and final FENs; see its README).

use serde_json::{Value, json};

/// Every recorded game, in file order, as JSON objects with `id`, `result`, `reason`, `moves`,
/// `san` and `final_fen`.
pub fn recorded_games() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/ouk-chatrang/games.jsonl"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{path}: {e}")))
        .collect()
}

/// The seat a record's `result` names as winner (`1-0` → 0, `0-1` → 1), `null` for a draw: as the
/// server's `game_over` frames carry it.
pub fn expected_winner(record: &Value) -> Value {
    match record["result"].as_str() {
        Some("1-0") => json!(0),
        Some("0-1") => json!(1),
        _ => Value::Null,
    }
}

/// A record's moves in UCI.
pub fn moves(record: &Value) -> Vec<&str> {
    record["moves"]
        .as_array()
        .expect("a record has moves")
        .iter()
        .map(|m| m.as_str().expect("moves are strings"))
        .collect()
}
