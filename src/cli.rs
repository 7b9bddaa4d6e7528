//! The rules on the command line, for people and tools: `perft`, `moves` and `play` for any game,
//! each starting from the standard position or from `--position TEXT` (the game's own position text;
//! for Ouk Chatrang a FEN). Each function returns the text to print.

use crate::rules::{AnyGame, GameKind, GameOptions, Outcome, RuleError, Rules, khan, ouk_chatrang};

/// The status word(s) of a game: `ongoing`, or the result and reason, e.g. `1/2-1/2 counting`.
pub fn status_line(outcome: Option<Outcome>) -> String {
    match outcome {
        None => "ongoing".to_owned(),
        Some(Outcome {
            winner: Some(0),
            reason,
        }) => format!("1-0 {reason}"),
        Some(Outcome {
            winner: Some(_),
            reason,
        }) => format!("0-1 {reason}"),
        Some(Outcome {
            winner: None,
            reason,
        }) => format!("1/2-1/2 {reason}"),
    }
}

/// `khanate perft GAME [--position TEXT] [--divide] DEPTH`: the number of leaf nodes at `depth`
/// (Ouk Chatrang: legal-move perft as Fairy-Stockfish counts it); with `divide`, one line
/// `MOVE: COUNT` per root move first, then the total.
pub fn perft(
    kind: GameKind,
    position: Option<&str>,
    depth: u32,
    divide: bool,
) -> Result<String, RuleError> {
    match kind {
        GameKind::OukChatrang => {
            let pos = match position {
                Some(fen) => ouk_chatrang::Position::from_fen(fen)?,
                None => ouk_chatrang::Position::start(),
            };
            if !divide {
                return Ok(ouk_chatrang::perft(&pos, depth).to_string());
            }
            Ok(divided(ouk_chatrang::perft_divide(&pos, depth)))
        }
        GameKind::Khan => {
            let pos = match position {
                Some(text) => khan::Position::from_text(text)?,
                None => khan::Position::start(),
            };
            if !divide {
                return Ok(khan::perft(&pos, depth).to_string());
            }
            Ok(divided(khan::perft_divide(&pos, depth)))
        }
    }
}

/// `MOVE: COUNT` lines, a blank line and the total.
fn divided(rows: Vec<(String, u64)>) -> String {
    let total: u64 = rows.iter().map(|(_, n)| n).sum();
    let mut out: String = rows.iter().map(|(mv, n)| format!("{mv}: {n}\n")).collect();
    out.push_str(&format!("\n{total}"));
    out
}

/// A game's set-up from an optional `--position`.
fn start_at(position: Option<&str>) -> GameOptions {
    GameOptions {
        start_position: position.map(str::to_owned),
        ..GameOptions::default()
    }
}

/// `khanate moves GAME [--position TEXT]`: the legal moves, one a line, sorted.
pub fn moves(kind: GameKind, position: Option<&str>) -> Result<String, RuleError> {
    let game = AnyGame::new(kind, &start_at(position))?;
    Ok(game.legal_moves().join("\n"))
}

/// `khanate play GAME [--position TEXT] MOVE...`: the position after the moves, then the status
/// line. Errors name the first move that does not play.
pub fn play(kind: GameKind, position: Option<&str>, moves: &[String]) -> Result<String, RuleError> {
    let mut game = AnyGame::new(kind, &start_at(position))?;
    for (i, mv) in moves.iter().enumerate() {
        game.play(mv)
            .map_err(|e| RuleError::new(e.code, format!("move {} ({mv}): {}", i + 1, e.message)))?;
    }
    Ok(format!(
        "{}\n{}",
        game.position(),
        status_line(game.outcome())
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::EndReason;

    #[test]
    fn status_lines_use_pgn_results_and_protocol_reasons() {
        assert_eq!(status_line(None), "ongoing");
        assert_eq!(
            status_line(Some(Outcome::win(0, EndReason::Checkmate))),
            "1-0 checkmate"
        );
        assert_eq!(
            status_line(Some(Outcome::win(1, EndReason::Checkmate))),
            "0-1 checkmate"
        );
        assert_eq!(
            status_line(Some(Outcome::draw(EndReason::Counting))),
            "1/2-1/2 counting"
        );
    }
}
