//! PGN export of finished Ouk Chatrang games, loadable by other Cambodian-chess tools
//! (pychess-variants, Fairy-Stockfish front ends): the Seven Tag Roster, `[Variant "Cambodian"]`,
//! `[SetUp "1"]` with the start `[FEN]`, `[TimeControl]`, and the SAN moves numbered from the
//! FEN's move number, each followed by the mover's clock after it as lichess writes it
//! (`{[%clk 0:02:58]}`) when the game was timed.

use std::fmt::Write;

use crate::domain::GameRecord;
use crate::room::state::ClockSettings;
use crate::rules::GameKind;

/// Longest movetext line, as the PGN standard recommends.
const LINE_WIDTH: usize = 79;

/// The PGN result token of a game: `1-0`, `0-1`, `1/2-1/2`, or `*` for an aborted game.
fn result_token(record: &GameRecord) -> &'static str {
    match (record.winner, record.reason.as_str()) {
        (_, "aborted") => "*",
        (Some(0), _) => "1-0",
        (Some(_), _) => "0-1",
        (None, _) => "1/2-1/2",
    }
}

/// PGN's Termination tag for our reason word.
fn termination(reason: &str) -> &'static str {
    match reason {
        "timeout" => "time forfeit",
        "abandoned" | "aborted" => "abandoned",
        _ => "normal",
    }
}

fn player(record: &GameRecord, seat: u8) -> String {
    record
        .players
        .as_array()
        .and_then(|players| players.iter().find(|p| p["seat"] == seat))
        .and_then(|p| p["name"].as_str())
        .unwrap_or("?")
        .replace(['"', '\\'], "")
}

/// The `TimeControl` tag's value (PGN standard 9.6.1): `initial+increment` in seconds (`180+2`),
/// `-` for an untimed game.
fn time_control(clock: Option<&ClockSettings>) -> String {
    clock.map_or_else(
        || "-".to_owned(),
        |c| format!("{}+{}", c.initial_s, c.increment_s),
    )
}

/// A `[%clk]` time: `H:MM:SS`, whole seconds rounded down (lichess's convention).
fn clock_text(ms: i64) -> String {
    let s = ms.max(0) / 1000;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// How a timed game is written: its clock settings, and each move's clock after it (the mover's
/// remaining milliseconds, by ply from 1; `None` for a move stored without one).
#[derive(Clone, Copy, Debug, Default)]
pub struct Clocks<'a> {
    /// The room's clock settings; `None` for an untimed game (`[TimeControl "-"]`).
    pub settings: Option<&'a ClockSettings>,
    /// The moves' clocks, in ply order; shorter than the move list for moves without a clock.
    pub moves: &'a [Option<i64>],
}

/// A player's rating in a rated game, for its PGN's tags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rating {
    /// The seat (0: White, 1: Black).
    pub seat: u8,
    /// The rating before the game, a whole number (`[WhiteElo "1500"]`).
    pub before: i64,
    /// The change the game made (`[WhiteRatingDiff "+8"]`, as lichess writes it).
    pub diff: i64,
}

/// Writes `record` as PGN, with `clocks` (the time control and each move's `[%clk]`; moves
/// without a clock get no comment) and a rated game's `ratings` (none: no rating tags). Errors
/// when the game is not Ouk Chatrang.
pub fn write(
    record: &GameRecord,
    clocks: Clocks<'_>,
    ratings: &[Rating],
) -> Result<String, String> {
    if record.game != GameKind::OukChatrang {
        return Err(format!(
            "PGN is for Ouk Chatrang games; this is {}",
            record.game
        ));
    }
    let fields: Vec<&str> = record.start_position.split_whitespace().collect();
    let black_first = fields.get(1) == Some(&"b");
    let first_number: u32 = fields.get(5).and_then(|n| n.parse().ok()).unwrap_or(1);
    let result = result_token(record);
    let date = record
        .started_at
        .unwrap_or(record.finished_at)
        .format("%Y.%m.%d");

    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(out, "[Event \"Khanate game\"]");
    let _ = writeln!(out, "[Site \"Khanate\"]");
    let _ = writeln!(out, "[Date \"{date}\"]");
    let _ = writeln!(out, "[Round \"-\"]");
    let _ = writeln!(out, "[White \"{}\"]", player(record, 0));
    let _ = writeln!(out, "[Black \"{}\"]", player(record, 1));
    let _ = writeln!(out, "[Result \"{result}\"]");
    for (seat, side) in [(0, "White"), (1, "Black")] {
        if let Some(rating) = ratings.iter().find(|r| r.seat == seat) {
            let _ = writeln!(out, "[{side}Elo \"{}\"]", rating.before);
        }
    }
    for (seat, side) in [(0, "White"), (1, "Black")] {
        if let Some(rating) = ratings.iter().find(|r| r.seat == seat) {
            let _ = writeln!(out, "[{side}RatingDiff \"{:+}\"]", rating.diff);
        }
    }
    let _ = writeln!(out, "[Variant \"Cambodian\"]");
    let _ = writeln!(out, "[SetUp \"1\"]");
    let _ = writeln!(out, "[FEN \"{}\"]", record.start_position);
    let _ = writeln!(out, "[TimeControl \"{}\"]", time_control(clocks.settings));
    let _ = writeln!(out, "[Termination \"{}\"]", termination(&record.reason));
    out.push('\n');

    let mut tokens = Vec::with_capacity(record.display_moves.len() * 5 / 2 + 2);
    // After a comment, Black's move is numbered again (`1...`), as the standard's export format
    // and lichess write it.
    let mut after_comment = false;
    for (i, san) in record.display_moves.iter().enumerate() {
        let ply = i + usize::from(black_first);
        let number = first_number as usize + ply / 2;
        if ply % 2 == 0 {
            tokens.push(format!("{number}."));
        } else if i == 0 || after_comment {
            tokens.push(format!("{number}..."));
        }
        tokens.push(san.clone());
        let clock = clocks.moves.get(i).copied().flatten();
        after_comment = clock.is_some();
        if let Some(ms) = clock {
            tokens.push(format!("{{[%clk {}]}}", clock_text(ms)));
        }
    }
    tokens.push(format!("{{{}}}", record.reason));
    tokens.push(result.to_owned());

    let mut line = String::new();
    for token in tokens {
        if !line.is_empty() && line.len() + 1 + token.len() > LINE_WIDTH {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&token);
    }
    out.push_str(&line);
    out.push('\n');
    Ok(out)
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};
    use serde_json::json;
    use uuid::Uuid;

    use super::*;
    use crate::rules::Extra;

    fn record(start: &str, sans: &[&str], winner: Option<u8>, reason: &str) -> GameRecord {
        GameRecord {
            room_id: Uuid::nil(),
            game: GameKind::OukChatrang,
            players: json!([{"seat": 0, "color": "white", "name": "Dara"}, {"seat": 1, "color": "black", "name": null}]),
            winner,
            reason: reason.into(),
            start_position: start.into(),
            final_position: String::new(),
            moves: Vec::new(),
            display_moves: sans.iter().map(|s| (*s).to_owned()).collect(),
            extra: Extra::default(),
            started_at: Some(Utc.with_ymd_and_hms(2026, 11, 29, 10, 0, 0).unwrap()),
            finished_at: Utc.with_ymd_and_hms(2026, 11, 29, 10, 30, 0).unwrap(),
        }
    }

    #[test]
    fn pgn_has_variant_fen_and_numbered_san() {
        let start = "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1";
        let pgn = write(
            &record(start, &["Kb2", "b5", "Ne2"], Some(1), "resignation"),
            Clocks::default(),
            &[],
        )
        .unwrap();
        assert!(pgn.contains("[Variant \"Cambodian\"]\n"));
        assert!(pgn.contains(&format!("[FEN \"{start}\"]\n")));
        assert!(pgn.contains("[White \"Dara\"]\n[Black \"?\"]\n[Result \"0-1\"]\n"));
        assert!(pgn.contains("[Date \"2026.11.29\"]"));
        assert!(pgn.contains("[TimeControl \"-\"]\n"), "untimed");
        assert!(!pgn.contains("%clk"));
        assert!(
            pgn.ends_with("\n\n1. Kb2 b5 2. Ne2 {resignation} 0-1\n"),
            "{pgn}"
        );
    }

    #[test]
    fn black_to_move_starts_with_ellipsis_number() {
        let start = "8/8/4k3/5P2/8/2RMK3/8/8 b - 126 42 50";
        let pgn = write(
            &record(start, &["Kxf5", "Rc5+"], None, "counting"),
            Clocks::default(),
            &[],
        )
        .unwrap();
        assert!(
            pgn.ends_with("\n\n50... Kxf5 51. Rc5+ {counting} 1/2-1/2\n"),
            "{pgn}"
        );
    }

    #[test]
    fn long_movetext_wraps_under_80_columns() {
        let sans = vec!["Nf3"; 120];
        let start = "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1";
        let clocks: Vec<Option<i64>> = (0..120).map(|i| Some(36_000_000 - i * 1_000)).collect();
        let settings = ClockSettings {
            initial_s: 10_800,
            increment_s: 0,
        };
        let clocks = Clocks {
            settings: Some(&settings),
            moves: &clocks,
        };
        let pgn = write(&record(start, &sans, None, "agreement"), clocks, &[]).unwrap();
        let movetext = pgn.split("\n\n").nth(1).unwrap();
        assert!(movetext.lines().count() > 5);
        assert!(movetext.lines().all(|l| l.len() <= LINE_WIDTH));
    }

    #[test]
    fn clock_times_are_hours_minutes_and_whole_seconds() {
        assert_eq!(clock_text(178_999), "0:02:58");
        assert_eq!(clock_text(0), "0:00:00");
        assert_eq!(clock_text(36_000_000), "10:00:00");
        assert_eq!(clock_text(3_661_500), "1:01:01");
    }

    #[test]
    fn a_timed_game_has_its_time_control_and_each_moves_clock_after_it() {
        let start = "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1";
        let settings = ClockSettings {
            initial_s: 180,
            increment_s: 2,
        };
        // The third move was stored without a clock (by an older server): no comment for it.
        let moves = [Some(180_512), Some(178_999), None, Some(171_000)];
        let clocks = Clocks {
            settings: Some(&settings),
            moves: &moves,
        };
        let game = record(start, &["Kb2", "b5", "Ne2", "Nd7"], Some(0), "resignation");
        let pgn = write(&game, clocks, &[]).unwrap();
        assert_eq!(
            pgn,
            "[Event \"Khanate game\"]\n[Site \"Khanate\"]\n[Date \"2026.11.29\"]\n[Round \"-\"]\n\
             [White \"Dara\"]\n[Black \"?\"]\n[Result \"1-0\"]\n[Variant \"Cambodian\"]\n[SetUp \"1\"]\n\
             [FEN \"rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1\"]\n\
             [TimeControl \"180+2\"]\n[Termination \"normal\"]\n\n\
             1. Kb2 {[%clk 0:03:00]} 1... b5 {[%clk 0:02:58]} 2. Ne2 Nd7 {[%clk 0:02:51]}\n\
             {resignation} 1-0\n"
        );
    }

    #[test]
    fn a_rated_game_has_its_players_ratings_as_lichess_writes_them() {
        let start = "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1";
        let game = record(start, &["Kb2"], Some(0), "resignation");
        let ratings = [
            Rating {
                seat: 1,
                before: 1621,
                diff: -9,
            },
            Rating {
                seat: 0,
                before: 1500,
                diff: 12,
            },
        ];
        let pgn = write(&game, Clocks::default(), &ratings).unwrap();
        assert!(
            pgn.contains(
                "[Result \"1-0\"]\n[WhiteElo \"1500\"]\n[BlackElo \"1621\"]\n\
                 [WhiteRatingDiff \"+12\"]\n[BlackRatingDiff \"-9\"]\n[Variant"
            ),
            "{pgn}"
        );
        let unrated = write(&game, Clocks::default(), &[]).unwrap();
        assert!(!unrated.contains("Elo") && !unrated.contains("RatingDiff"));
    }
}
