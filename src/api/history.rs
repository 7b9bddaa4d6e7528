//! A finished game's moves replayed through the rules, for the game record's `history`: who
//! played each move, what it captured, and the position, material and check after it. The store
//! keeps the positions but not the captures (older games were stored before they were told), so
//! the rules say them again; they are the same rules that accepted the moves.

use serde_json::{Value, json};

use crate::rules::{AnyGame, GameKind, GameOptions, RuleError, Rules, Seat};

/// One move of the record's `history`.
#[derive(Clone, Debug, PartialEq)]
pub struct Ply {
    /// The seat that played it.
    pub seat: Seat,
    /// The squares it captured on (`moved.d.captured`).
    pub captured: Vec<String>,
    /// The position after it.
    pub position: String,
    /// Each seat's material after it (`moved.d.material`), as JSON; `None` in Khan-Tsin.
    pub material: Option<Value>,
    /// The seat in check after it (Ouk Chatrang).
    pub check: Option<Seat>,
}

impl Ply {
    /// `{"seat", "captured", "position", "material"?, "check"?}`.
    pub fn to_json(&self) -> Value {
        let mut entry = json!({
            "seat": self.seat,
            "captured": self.captured,
            "position": self.position,
        });
        if let Value::Object(map) = &mut entry {
            if let Some(material) = &self.material {
                map.insert("material".into(), material.clone());
            }
            if let Some(check) = self.check {
                map.insert("check".into(), check.into());
            }
        }
        entry
    }
}

/// Replays `moves` of a `game` from `start`; `left_after[seat]` is the number of moves played
/// when that seat left a game that went on (three-player Khan-Tsin), so it resigns there.
/// Errors: a move or a departure the rules refuse (a record that is not the rules' own).
pub fn replay(
    game: GameKind,
    start: &str,
    moves: &[String],
    left_after: &[(Seat, usize)],
) -> Result<Vec<Ply>, RuleError> {
    let setup = GameOptions {
        start_position: Some(start.to_owned()),
        ..GameOptions::default()
    };
    let mut rules = AnyGame::new(game, &setup)?;
    let mut plies = Vec::with_capacity(moves.len());
    for (played, mv) in moves.iter().enumerate() {
        for &(seat, _) in left_after.iter().filter(|(_, at)| *at == played) {
            rules.resign(seat)?;
        }
        let seat = rules.to_move().unwrap_or_default();
        let applied = rules.play(mv)?;
        plies.push(Ply {
            seat,
            captured: applied.captured,
            position: rules.position(),
            material: rules
                .material()
                .and_then(|material| serde_json::to_value(material).ok()),
            check: rules.check(),
        });
    }
    Ok(plies)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replay_names_the_mover_the_capture_and_the_check() {
        let moves: Vec<String> = ["a1a7", "e8f8", "a7a8"].map(String::from).into();
        let plies = replay(
            GameKind::OukChatrang,
            "4k3/r7/8/8/8/8/8/R2K4 w - - 0 1",
            &moves,
            &[],
        )
        .unwrap();
        let seats: Vec<Seat> = plies.iter().map(|p| p.seat).collect();
        assert_eq!(seats, [0, 1, 0]);
        assert_eq!(plies[0].captured, ["a7"]);
        assert_eq!(plies[2].check, Some(1));
        assert_eq!(plies[2].position, "R4k2/8/8/8/8/8/8/3K4 b - 30 8 2");
        assert_eq!(
            plies[2].to_json()["material"],
            json!({"0": {"captured": "r"}, "1": {"captured": ""}})
        );
    }

    #[test]
    fn a_player_who_left_a_three_player_game_resigns_where_the_record_says() {
        let setup = GameOptions {
            players: Some(3),
            ..GameOptions::default()
        };
        let mut played = AnyGame::new(GameKind::KhanTsin, &setup).unwrap();
        let start = played.position();
        let (mut moves, mut positions, mut seats) = (Vec::new(), Vec::new(), Vec::new());
        for ply in 0..8 {
            if ply == 3 {
                played.resign(1).unwrap();
            }
            let seat = played.to_move().unwrap();
            let mv = played.legal_moves()[0].clone();
            played.play(&mv).unwrap();
            moves.push(mv);
            positions.push(played.position());
            seats.push(seat);
        }
        let plies = replay(GameKind::KhanTsin, &start, &moves, &[(1, 3)]).unwrap();
        let replayed: Vec<(Seat, String)> =
            plies.iter().map(|p| (p.seat, p.position.clone())).collect();
        assert_eq!(
            replayed,
            seats.into_iter().zip(positions).collect::<Vec<_>>()
        );
        assert!(
            !replayed[3..].iter().any(|(seat, _)| *seat == 1),
            "seat 1 left"
        );
        assert!(
            plies
                .iter()
                .all(|p| p.captured.is_empty() && p.material.is_none())
        );
    }

    #[test]
    fn a_move_the_rules_refuse_is_an_error() {
        let moves = vec!["e3e5".to_owned()];
        assert!(
            replay(
                GameKind::OukChatrang,
                crate::rules::ouk_chatrang::Position::start()
                    .to_string()
                    .as_str(),
                &moves,
                &[]
            )
            .is_err()
        );
    }
}
