//! `GET /api/games/{room_id}/record`: a finished game of any kind as plain text, in the game's own
//! notations (Khan square paths, Khan-Tsin placements and stack moves, Ouk Chatrang UCI), so it
//! can be read by people and replayed by tools (`khanate play GAME --position START MOVE...`).
//!
//! ```text
//! Game: khan
//! Room: 6f1d2a0e-5b7c-4e8a-9d3f-2c1b0a9e8d7c
//! Players: white Dara; black ?
//! Start: ssssssssss/k1k1kk1k1k/ssssssssss/10/10/10/10/SSSSSSSSSS/K1K1KK1K1K/SSSSSSSSSS w
//! Result: white wins by goal_row
//! Started: 2026-11-29T17:02:30Z
//! Finished: 2026-11-29T17:20:14Z
//!
//! 1 white c3-c4
//! 2 black h8-h7
//! ```
//!
//! One move a line: its ply, the colour that played it, the move. A player who left a
//! three-player game that went on is a line `- green resigns` where it happened; `khanate play`
//! replays such a record when given `resign:green` there.

use std::fmt::Write;

use chrono::SecondsFormat;

use crate::store::{GameRecord, MoveRow};

fn color_of(record: &GameRecord, seat: Option<u8>) -> String {
    let Some(seat) = seat else {
        return "?".to_owned();
    };
    record
        .players
        .as_array()
        .and_then(|players| players.iter().find(|p| p["seat"] == seat))
        .and_then(|p| p["color"].as_str())
        .map_or_else(|| format!("seat {seat}"), str::to_owned)
}

/// Writes `record` as text; `moves` are its stored move rows (for who played each move).
pub fn write(record: &GameRecord, moves: &[MoveRow]) -> String {
    let players: Vec<String> = record
        .players
        .as_array()
        .map(|players| {
            players
                .iter()
                .map(|p| {
                    let color = p["color"].as_str().unwrap_or("?");
                    let name = p["name"].as_str().unwrap_or("?");
                    format!("{color} {name}")
                })
                .collect()
        })
        .unwrap_or_default();
    let result = match record.winner {
        Some(seat) => format!("{} wins by {}", color_of(record, Some(seat)), record.reason),
        None => format!("draw by {}", record.reason),
    };
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(out, "Game: {}", record.game);
    let _ = writeln!(out, "Room: {}", record.room_id);
    let _ = writeln!(out, "Players: {}", players.join("; "));
    let _ = writeln!(out, "Start: {}", record.start_position);
    let _ = writeln!(out, "Result: {result}");
    let time = |t: chrono::DateTime<chrono::Utc>| t.to_rfc3339_opts(SecondsFormat::AutoSi, true);
    if let Some(started) = record.started_at {
        let _ = writeln!(out, "Started: {}", time(started));
    }
    let _ = writeln!(out, "Finished: {}", time(record.finished_at));
    out.push('\n');
    let left_after = |ply: usize| -> Vec<String> {
        record
            .players
            .as_array()
            .map(|players| {
                players
                    .iter()
                    .filter(|p| p["left_after"].as_u64() == Some(ply as u64))
                    .map(|p| p["color"].as_str().unwrap_or("?").to_owned())
                    .collect()
            })
            .unwrap_or_default()
    };
    for ply in 0..=record.moves.len() {
        if let Some(mv) = ply.checked_sub(1).and_then(|i| record.moves.get(i)) {
            let seat = moves.get(ply - 1).map(|row| row.seat);
            let _ = writeln!(out, "{ply} {} {mv}", color_of(record, seat));
        }
        for color in left_after(ply) {
            let _ = writeln!(out, "- {color} resigns");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};
    use serde_json::json;
    use uuid::Uuid;

    use super::*;
    use crate::rules::{Extra, GameKind};

    #[test]
    fn record_lists_players_result_and_every_move_with_its_colour() {
        let at = Utc.with_ymd_and_hms(2026, 11, 29, 10, 0, 0).unwrap();
        let record = GameRecord {
            room_id: Uuid::nil(),
            game: GameKind::OukChatrang,
            players: json!([{"seat": 0, "color": "white", "name": "Dara"}, {"seat": 1, "color": "black", "name": null}]),
            winner: Some(1),
            reason: "resignation".into(),
            start_position: "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1".into(),
            final_position: String::new(),
            moves: vec!["e3e4".into(), "d6d5".into()],
            display_moves: vec!["e4".into(), "d5".into()],
            extra: Extra::default(),
            started_at: Some(at),
            finished_at: at,
        };
        let row = |ply: i32, seat: u8, notation: &str| MoveRow {
            ply,
            v: i64::from(ply) + 3,
            seat,
            notation: notation.into(),
            display: notation.into(),
            position: String::new(),
            created_at: at,
            clock_ms: None,
        };
        let text = write(&record, &[row(1, 0, "e3e4"), row(2, 1, "d6d5")]);
        assert_eq!(
            text,
            "Game: ouk-chatrang\nRoom: 00000000-0000-0000-0000-000000000000\nPlayers: white Dara; black ?\n\
             Start: rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1\nResult: black wins by resignation\n\
             Started: 2026-11-29T10:00:00Z\nFinished: 2026-11-29T10:00:00Z\n\n1 white e3e4\n2 black d6d5\n"
        );
    }

    #[test]
    fn a_player_who_left_is_a_resign_line_where_it_happened() {
        let at = Utc.with_ymd_and_hms(2026, 11, 29, 10, 0, 0).unwrap();
        let record = GameRecord {
            room_id: Uuid::nil(),
            game: GameKind::KhanTsin,
            players: json!([
                {"seat": 0, "color": "white", "name": null, "left_after": null},
                {"seat": 1, "color": "green", "name": null, "left_after": 1},
                {"seat": 2, "color": "blue", "name": null, "left_after": null}
            ]),
            winner: Some(2),
            reason: "resignation".into(),
            start_position: String::new(),
            final_position: String::new(),
            moves: vec!["p1".into(), "p4".into()],
            display_moves: vec!["p1".into(), "p4".into()],
            extra: Extra::default(),
            started_at: None,
            finished_at: at,
        };
        let text = write(&record, &[]);
        assert!(
            text.ends_with("\n\n1 ? p1\n- green resigns\n2 ? p4\n"),
            "{text}"
        );
        assert!(
            text.contains("\nResult: blue wins by resignation\n"),
            "{text}"
        );
    }
}
