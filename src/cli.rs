//! The rules on the command line, for people and tools: `perft`, `moves` and `play` for every game,
//! each starting from the standard position or from `--position TEXT` (the game's own position
//! text: a FEN for Ouk Chatrang, the rules files' texts for Khan and Khan-Tsin). Each function
//! returns the text to print.

use crate::rules::{
    AnyGame, GameKind, GameOptions, Outcome, RuleError, RuleErrorCode, Rules, khan, khan_tsin,
    ouk_chatrang,
};

/// Which game, and how it is set up: a start position, or (Khan-Tsin) a number of players.
#[derive(Clone, Copy, Debug)]
pub struct Setup<'a> {
    /// The game.
    pub kind: GameKind,
    /// `--position`: a start position in the game's position text.
    pub position: Option<&'a str>,
    /// `--players`: Khan-Tsin's 2 or 3 players (default 2).
    pub players: Option<u8>,
}

impl Setup<'_> {
    fn options(&self) -> GameOptions {
        GameOptions {
            start_position: self.position.map(str::to_owned),
            players: self.players,
            ..GameOptions::default()
        }
    }

    fn game(&self) -> Result<AnyGame, RuleError> {
        AnyGame::new(self.kind, &self.options())
    }
}

/// The status line of a game: `ongoing`, or the result and the reason word of PROTOCOL.md. Two
/// players: `1-0 checkmate`, `0-1 goal_row`, `1/2-1/2 counting` (seat 0 first, as in PGN);
/// three-player Khan-Tsin names the winner's colour: `green khan_tsin`, `draw repetition`.
pub fn status_line(game: &AnyGame) -> String {
    match game.outcome() {
        None => "ongoing".to_owned(),
        Some(Outcome { winner, reason })
            if game.players() == 2 && game.kind() != GameKind::KhanTsin =>
        {
            let score = match winner {
                Some(0) => "1-0",
                Some(_) => "0-1",
                None => "1/2-1/2",
            };
            format!("{score} {reason}")
        }
        Some(Outcome {
            winner: Some(seat),
            reason,
        }) => format!("{} {reason}", game.color(seat)),
        Some(Outcome {
            winner: None,
            reason,
        }) => format!("draw {reason}"),
    }
}

/// `MOVE: COUNT` lines, a blank line and the total.
fn divided(rows: Vec<(String, u64)>) -> String {
    let total: u64 = rows.iter().map(|(_, n)| n).sum();
    let mut out: String = rows.iter().map(|(mv, n)| format!("{mv}: {n}\n")).collect();
    out.push_str(&format!("\n{total}"));
    out
}

/// `khanate perft GAME [--position TEXT] [--players N] [--divide] [--positions] DEPTH`: the
/// number of leaves of the move tree at `depth`, counted as each rules file says (Ouk Chatrang:
/// legal moves, as Fairy-Stockfish's `go perft`; Khan: distinct move strings, or with `positions`
/// distinct positions after each whole turn, "turn perft"; Khan-Tsin: distinct move strings, a
/// stuck player having the single child `pass`). With `divide`, one line `MOVE: COUNT` per root
/// move first, then the total. `positions` is only for Khan and does not divide.
pub fn perft(
    setup: Setup<'_>,
    depth: u32,
    divide: bool,
    positions: bool,
) -> Result<String, RuleError> {
    let not_for = |what: &str| {
        RuleError::new(
            RuleErrorCode::BadOption,
            format!("{what} is not an option of {}", setup.kind),
        )
    };
    if positions && (setup.kind != GameKind::Khan || divide) {
        return Err(not_for("--positions (Khan's turn perft, without --divide)"));
    }
    if setup.players.is_some() && setup.kind != GameKind::KhanTsin {
        return Err(not_for("--players"));
    }
    match setup.kind {
        GameKind::OukChatrang => {
            let pos = match setup.position {
                Some(fen) => ouk_chatrang::Position::from_fen(fen)?,
                None => ouk_chatrang::Position::start(),
            };
            Ok(if divide {
                divided(ouk_chatrang::perft_divide(&pos, depth))
            } else {
                ouk_chatrang::perft(&pos, depth).to_string()
            })
        }
        GameKind::Khan => {
            let pos = match setup.position {
                Some(text) => khan::Position::from_text(text)?,
                None => khan::Position::start(),
            };
            Ok(if positions {
                khan::turn_perft(&pos, depth).to_string()
            } else if divide {
                divided(khan::perft_divide(&pos, depth))
            } else {
                khan::perft(&pos, depth).to_string()
            })
        }
        GameKind::KhanTsin => {
            let game = khan_tsin::Game::from_options(&setup.options())?;
            Ok(if divide {
                divided(khan_tsin::perft_divide(&game, depth))
            } else {
                khan_tsin::perft(&game, depth).to_string()
            })
        }
    }
}

/// `khanate moves GAME [--position TEXT] [--players N]`: the legal moves, one a line, sorted (a
/// Khan-Tsin player with no legal move has the single move `pass`), and a warning for standard
/// error when the list leaves some out (a Khan position with more than `khan::MAX_LISTED` move
/// strings; see `perft khan 1` for their number).
pub fn moves(setup: Setup<'_>) -> Result<(String, Option<String>), RuleError> {
    let game = setup.game()?;
    let warning = (!game.legal_moves_complete()).then(|| {
        format!(
            "only jump chains short enough to keep the list within {} moves are listed; longer ones are legal too",
            khan::MAX_LISTED
        )
    });
    Ok((game.legal_moves().join("\n"), warning))
}

/// `khanate play GAME [--position TEXT] [--players N] MOVE...`: the position after the moves, then
/// the status line. A move `resign:COLOUR` makes that player resign (for replaying the record of a
/// three-player game that went on after a resignation). Errors name the first move that does not
/// play.
pub fn play(setup: Setup<'_>, moves: &[String]) -> Result<String, RuleError> {
    let mut game = setup.game()?;
    for (i, mv) in moves.iter().enumerate() {
        let played = match mv.strip_prefix("resign:") {
            Some(color) => match (0..game.players()).find(|seat| game.color(*seat) == color) {
                Some(seat) => game.resign(seat).map(|_| ()),
                None => Err(RuleError::new(
                    RuleErrorCode::BadNotation,
                    format!("no seat plays {color:?}"),
                )),
            },
            None => game.play(mv).map(|_| ()),
        };
        played
            .map_err(|e| RuleError::new(e.code, format!("move {} ({mv}): {}", i + 1, e.message)))?;
    }
    Ok(format!("{}\n{}", game.position(), status_line(&game)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(kind: GameKind, position: Option<&str>, players: Option<u8>) -> Setup<'_> {
        Setup {
            kind,
            position,
            players,
        }
    }

    #[test]
    fn status_lines_use_pgn_results_for_two_and_colours_for_three() {
        let ouk = |fen| {
            setup(GameKind::OukChatrang, Some(fen), None)
                .game()
                .unwrap()
        };
        assert_eq!(
            status_line(&ouk(
                "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1"
            )),
            "ongoing"
        );
        let mut mate = ouk("6k1/8/6K1/8/8/8/8/R7 w - - 0 1");
        mate.play("a1a8").unwrap();
        assert_eq!(status_line(&mate), "1-0 checkmate");
        let mut three = setup(GameKind::KhanTsin, None, Some(3)).game().unwrap();
        three.resign(0).unwrap();
        three.resign(2).unwrap();
        assert_eq!(status_line(&three), "green resignation");
    }

    #[test]
    fn play_replays_a_resignation_in_a_three_player_game() {
        let three = setup(GameKind::KhanTsin, None, Some(3));
        let text = play(three, &["p1".into(), "resign:green".into(), "p4".into()]).unwrap();
        let position = text.lines().next().unwrap();
        assert!(
            position.ends_with(" wb w"),
            "green no longer plays and white is on move: {position}"
        );
        let err = play(three, &["resign:red".into()]).unwrap_err();
        assert_eq!(err.message, "move 1 (resign:red): no seat plays \"red\"");
    }

    #[test]
    fn options_that_a_game_does_not_have_are_refused() {
        let err = perft(setup(GameKind::OukChatrang, None, None), 1, false, true).unwrap_err();
        assert!(err.message.contains("--positions"), "{}", err.message);
        let err = perft(setup(GameKind::Khan, None, Some(3)), 1, false, false).unwrap_err();
        assert!(err.message.contains("--players"), "{}", err.message);
    }
}
