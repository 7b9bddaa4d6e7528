//! Replays the 39 Fairy-Stockfish self-play games of `tests/data/ouk-chatrang/games.jsonl`
//! through `Game`: every move must be legal, its SAN must match, the final FEN (counting fields
//! and clocks included) must match, and the game must end as recorded.

use std::path::PathBuf;

use khanate::rules::ouk_chatrang::Game;
use khanate::rules::{EndReason, Outcome, Rules};
use serde::Deserialize;

#[derive(Deserialize)]
struct Record {
    id: String,
    result: String,
    reason: String,
    moves: Vec<String>,
    san: Vec<String>,
    final_fen: String,
}

fn records() -> Vec<Record> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/ouk-chatrang/games.jsonl");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).expect("a game record"))
        .collect()
}

fn expected_outcome(record: &Record) -> Outcome {
    let reason = match record.reason.as_str() {
        "checkmate" => EndReason::Checkmate,
        "stalemate" => EndReason::Stalemate,
        "counting" => EndReason::Counting,
        "repetition" => EndReason::Repetition,
        "insufficient_material" => EndReason::InsufficientMaterial,
        other => panic!("{}: unknown reason {other}", record.id),
    };
    match record.result.as_str() {
        "1-0" => Outcome::win(0, reason),
        "0-1" => Outcome::win(1, reason),
        "1/2-1/2" => Outcome::draw(reason),
        other => panic!("{}: unknown result {other}", record.id),
    }
}

#[test]
fn every_recorded_game_replays_exactly() {
    let records = records();
    assert_eq!(records.len(), 39);
    for record in &records {
        assert_eq!(record.moves.len(), record.san.len(), "{}", record.id);
        let mut game = Game::new();
        let last = record.moves.len() - 1;
        for (i, (uci, san)) in record.moves.iter().zip(&record.san).enumerate() {
            let applied = game
                .play(uci)
                .unwrap_or_else(|e| panic!("{} ply {}: {uci}: {e}", record.id, i + 1));
            assert_eq!(&applied.notation, uci, "{} ply {}", record.id, i + 1);
            assert_eq!(&applied.display, san, "{} ply {}: {uci}", record.id, i + 1);
            if i < last {
                assert_eq!(
                    applied.outcome,
                    None,
                    "{} ended early at ply {} ({uci}) in {}",
                    record.id,
                    i + 1,
                    game.position()
                );
            }
        }
        assert_eq!(game.position(), record.final_fen, "{}", record.id);

        let expected = expected_outcome(record);
        if expected.reason == EndReason::Repetition {
            assert_eq!(game.outcome(), None, "{}", record.id);
            let by = game.to_move().expect("a side to move");
            assert_eq!(
                game.claim_draw(by, EndReason::Repetition),
                Ok(expected),
                "{}",
                record.id
            );
        }
        assert_eq!(game.outcome(), Some(expected), "{}", record.id);
        assert_eq!(game.to_move(), None, "{}", record.id);
        assert!(game.legal_moves().is_empty(), "{}", record.id);
    }
}
