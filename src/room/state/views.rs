//! What a room shows: the seats as the wire gives them, the snapshot a client gets on connecting,
//! the legal moves of the seat on move, and the record of a finished game.

use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::RoomState;
use crate::domain::GameRecord;
use crate::protocol::{HistoryEntry, ResultInfo, SeatInfo, Snapshot};
use crate::rules::{AnyGame, Rules, Seat};

/// The legal moves of the seat on move as the wire gives them (PROTOCOL.md "Legal moves",
/// docs/protocol.md "Legal moves in Khan"): the `legal_moves` JSON, written out once per position
/// because listing and writing them is the costliest part of a move (a Khan tree holds hundreds of
/// moves), and whether it lists every move (`legal_moves_complete`).
#[derive(Debug)]
pub struct LegalMoves {
    /// `Rules::legal_moves_json` as JSON text.
    pub json: Box<RawValue>,
    /// `Rules::legal_moves_complete`.
    pub complete: bool,
}

impl LegalMoves {
    /// The legal moves of `game`'s player on move.
    pub fn of(game: &AnyGame) -> LegalMoves {
        LegalMoves {
            json: serde_json::value::to_raw_value(&game.legal_moves_json())
                .expect("a JSON value always serializes"),
            complete: game.legal_moves_complete(),
        }
    }
}

impl RoomState {
    /// The seats as the wire shows them; `connected[i]` says whether seat i has a live connection.
    pub fn seat_infos(&self, connected: &[bool]) -> Vec<SeatInfo> {
        let in_play = self.game.in_play();
        self.seats
            .iter()
            .enumerate()
            .map(|(i, slot)| {
                let seat = Seat::try_from(i).unwrap_or(Seat::MAX);
                SeatInfo {
                    seat,
                    color: self.game.color(seat).to_owned(),
                    name: slot.name.clone(),
                    taken: slot.taken,
                    connected: connected.get(i).copied().unwrap_or(false),
                    left: !in_play.contains(&seat),
                    bot: slot.bot,
                    user: slot.user.clone(),
                    deleted: slot.deleted,
                }
            })
            .collect()
    }

    /// The whole state for one recipient; `legal` (the legal moves of the seat on move) only goes
    /// in when `viewer` is that seat.
    pub fn snapshot(
        &self,
        connected: &[bool],
        viewer: Option<Seat>,
        legal: Option<&LegalMoves>,
    ) -> Snapshot {
        let on_move = self.seat_on_move();
        Snapshot {
            room_id: self.id,
            game: self.kind().as_str().to_owned(),
            status: self.status.as_str().to_owned(),
            rated: self.rated,
            seats: self.seat_infos(connected),
            start_position: self.start_position.clone(),
            position: self.game.position(),
            to_move: on_move,
            moves: self.moves.iter().map(|m| m.notation.clone()).collect(),
            display_moves: self.moves.iter().map(|m| m.display.clone()).collect(),
            history: self.history(),
            material: self.game.material(),
            check: self.game.check(),
            created_by: self.creator,
            spectators: 0,
            legal_moves: legal
                .filter(|_| viewer.is_some() && viewer == on_move)
                .and_then(|legal| serde_json::from_str(legal.json.get()).ok()),
            legal_moves_complete: legal
                .filter(|legal| viewer.is_some() && viewer == on_move && !legal.complete)
                .map(|_| false),
            extra: self.game.extra(),
            offers: self.offers.clone(),
            result: self.result.map(ResultInfo::from),
            ratings: self.ratings.clone(),
            spectator_chat: self.spectator_chat,
            rematch: self.rematch.clone(),
            chat: Vec::new(),
            clock: None,
        }
    }

    /// Every move's seat, captures and following position, in order (`snapshot.history`).
    pub fn history(&self) -> Vec<HistoryEntry> {
        self.moves
            .iter()
            .map(|m| HistoryEntry {
                seat: m.seat,
                captured: m.captured.clone(),
                position: m.position.clone(),
            })
            .collect()
    }

    /// `[{"seat", "color", "name", "left_after"}]` for the game record: `left_after` is the number
    /// of moves played when the seat left a game that went on without it (`null` otherwise), so the
    /// record replays.
    fn players(&self) -> Value {
        Value::Array(
            self.seat_infos(&[])
                .into_iter()
                .map(|s| {
                    let left_after = self.left_after.get(usize::from(s.seat)).copied().flatten();
                    json!({"seat": s.seat, "color": s.color, "name": s.name, "left_after": left_after})
                })
                .collect(),
        )
    }

    /// The finished game, once a `game_over` has been applied.
    pub fn game_record(&self) -> Option<GameRecord> {
        let outcome = self.result?;
        Some(GameRecord {
            room_id: self.id,
            game: self.kind(),
            players: self.players(),
            winner: outcome.winner,
            reason: outcome.reason.as_str().to_owned(),
            start_position: self.start_position.clone(),
            final_position: self.game.position(),
            moves: self.moves.iter().map(|m| m.notation.clone()).collect(),
            display_moves: self.moves.iter().map(|m| m.display.clone()).collect(),
            extra: self.game.extra(),
            started_at: self.started_at,
            finished_at: self.finished_at.unwrap_or(self.created_at),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{apply_all, decide_events, three_player_room_after_placement};
    use crate::protocol::Command;

    #[test]
    fn the_record_of_a_game_that_went_on_says_who_left_and_when() {
        let mut room = three_player_room_after_placement();
        let events = decide_events(&room, 1, &Command::Resign).unwrap();
        apply_all(&mut room, &events);
        let events = decide_events(&room, 0, &Command::Resign).unwrap();
        apply_all(&mut room, &events);
        let record = room.game_record().unwrap();
        assert_eq!(
            (record.winner, record.reason.as_str()),
            (Some(2), "resignation")
        );
        assert_eq!(record.players[1]["left_after"], 36);
        assert_eq!(record.players[0]["left_after"], 36);
        assert_eq!(record.players[2]["left_after"], serde_json::Value::Null);
    }
}
