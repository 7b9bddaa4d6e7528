//! A bot's seat at play: a task connected to its room like any client.
//!
//! The driver reads the frames the room sends its connection (`snapshot`, then events), keeps
//! its own copy of the game from them, and whenever its seat is on move asks the [`BotPool`] for
//! a move and sends it as a `move` command with the version it saw, through the same path as a
//! person's socket. A stale answer needs nothing: the events that made it stale follow. Draw
//! offers are declined and rematch offers accepted (the rematch room keeps its bot). The task
//! ends when the room closes its connection: the room task stopped, and a new one starts a new
//! driver.

use std::future::Future;
use std::pin::Pin;

use serde_json::Value;
use tokio::sync::mpsc;
use tracing::{Instrument, debug, info_span, warn};

use super::BotPool;
use crate::bot::Level;
use crate::protocol::Command;
use crate::room::{OUTBOUND_CAPACITY, Outbound, RoomHandle};
use crate::rules::{AnyGame, GameKind, GameOptions, Rules, Seat};

/// Starts the driver of the bot at `level` in `seat` of the room behind `handle`.
pub(in crate::room) fn spawn(handle: RoomHandle, seat: Seat, level: Level, pool: BotPool) {
    let span = info_span!("bot", room_id = %handle.id, seat, level = level.get());
    tokio::spawn(run(handle, seat, level, pool).instrument(span));
}

/// A search under way: the position version it answers, and the search.
type Thinking = (i64, Pin<Box<dyn Future<Output = Option<String>> + Send>>);

async fn run(handle: RoomHandle, seat: Seat, level: Level, pool: BotPool) {
    let (out, mut frames) = mpsc::channel(OUTBOUND_CAPACITY);
    let Ok(connected) = handle.connect_bot(seat, out).await else {
        debug!("the room is gone before its bot connected");
        return;
    };
    let mut view = View::new(handle.kind, seat);
    let mut thinking: Option<Thinking> = None;
    // The position version a move was last sent for: one move per position, whatever the answer.
    let mut sent_for: Option<i64> = None;
    loop {
        match view.to_think() {
            Some((v, _)) if sent_for == Some(v) => thinking = None,
            Some((v, game)) => {
                if thinking.as_ref().map(|(at, _)| *at) != Some(v) {
                    let seed = rand::random();
                    let pool = pool.clone();
                    thinking = Some((
                        v,
                        Box::pin(async move { pool.think(game, level, seed).await }),
                    ));
                }
            }
            None => thinking = None,
        }
        let mut commands = Vec::new();
        tokio::select! {
            frame = frames.recv() => match frame {
                Some(Outbound::Text(text)) => commands = view.read(&text),
                Some(Outbound::Close(..)) | None => break,
            },
            chosen = async {
                match thinking.as_mut() {
                    Some((_, search)) => search.as_mut().await,
                    None => std::future::pending().await,
                }
            } => {
                let v = thinking.take().map(|(v, _)| v);
                match (chosen, v) {
                    (Some(mv), Some(v)) => {
                        sent_for = Some(v);
                        commands.push(Command::Move { mv, v });
                    }
                    _ => warn!("the search gave no move"),
                }
            }
        }
        for command in commands {
            let cid = cid_of(&command);
            if !handle.command(connected.conn, cid, command).await {
                return;
            }
        }
    }
    debug!("bot disconnected");
}

/// The cid of a bot's command. The room remembers a seat's cids in its stored events, across
/// restarts, so a cid names what it answers: the move for a position version, the answer to an
/// offer. Sent again, it gets the same answer and changes nothing.
fn cid_of(command: &Command) -> String {
    match command {
        Command::Move { v, .. } => format!("bot-move-{v}"),
        Command::Accept { offer } => format!("bot-accept-{offer}"),
        Command::Decline { offer } => format!("bot-decline-{offer}"),
        other => format!("bot-{}", other.name()),
    }
}

/// What the driver knows of its room, read from the frames it gets.
struct View {
    kind: GameKind,
    seat: Seat,
    /// The game as of `position_version`; `None` before the snapshot.
    game: Option<AnyGame>,
    /// The version of the last event that changed the position.
    position_version: i64,
    /// Whether the game is being played (`game_started` seen, `game_over` not).
    playing: bool,
}

impl View {
    fn new(kind: GameKind, seat: Seat) -> Self {
        View {
            kind,
            seat,
            game: None,
            position_version: 0,
            playing: false,
        }
    }

    /// The game to search and its position version, when this seat is on move.
    fn to_think(&self) -> Option<(i64, AnyGame)> {
        let game = self.game.as_ref().filter(|_| self.playing)?;
        (game.to_move() == Some(self.seat)).then(|| (self.position_version, game.clone()))
    }

    /// Takes in one frame; returns the commands it calls for (answers to offers).
    fn read(&mut self, text: &str) -> Vec<Command> {
        let Ok(frame) = serde_json::from_str::<Value>(text) else {
            return Vec::new();
        };
        let v = frame["v"].as_i64();
        let d = &frame["d"];
        match frame["t"].as_str().unwrap_or_default() {
            "snapshot" => {
                self.playing = d["status"] == "playing";
                self.game = self.game_of_snapshot(d);
                self.position_version = v.unwrap_or_default();
                return d["offers"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|offer| self.answer_offer(offer))
                    .collect();
            }
            "game_started" => {
                self.playing = true;
                self.set_position(d["position"].as_str(), v);
            }
            "moved" => {
                let played = match (self.game.as_mut(), d["move"].as_str()) {
                    (Some(game), Some(mv)) => game.play(mv).is_ok(),
                    _ => false,
                };
                self.after_change(played, d["position"].as_str(), v);
            }
            "left" => {
                let resigned = match (self.game.as_mut(), d["seat"].as_u64()) {
                    (Some(game), Some(seat)) => Seat::try_from(seat)
                        .is_ok_and(|seat| game.resign(seat).is_ok() || game.outcome().is_some()),
                    _ => false,
                };
                self.after_change(resigned, d["position"].as_str(), v);
            }
            "game_over" => self.playing = false,
            "offer" => return self.answer_offer(d).into_iter().collect(),
            "reject" => {
                warn!(code = %d["code"], message = %d["message"], "the room refused the bot")
            }
            _ => {}
        }
        Vec::new()
    }

    /// After a position change at version `v`: keeps the game when `applied` gave the same
    /// position as the event, else reads the event's position text (losing only history such
    /// as repetitions, which a search can do without).
    fn after_change(&mut self, applied: bool, position: Option<&str>, v: Option<i64>) {
        let same = applied
            && position.is_none_or(|text| {
                self.game.as_ref().map(Rules::position).as_deref() == Some(text)
            });
        if same {
            self.position_version = v.unwrap_or(self.position_version);
        } else {
            self.set_position(position, v);
        }
    }

    fn set_position(&mut self, position: Option<&str>, v: Option<i64>) {
        if let Some(text) = position {
            self.game = self.game_from_text(text);
        }
        self.position_version = v.unwrap_or(self.position_version);
    }

    /// The game of a snapshot: its moves replayed from its start position, so the history the
    /// rules keep (repetitions, counting) is the room's; its current position alone when that
    /// cannot be (a Khan-Tsin player left part-way, which the move list does not show).
    fn game_of_snapshot(&self, d: &Value) -> Option<AnyGame> {
        let position = d["position"].as_str()?;
        let replayed = d["start_position"]
            .as_str()
            .and_then(|start| self.game_from_text(start))
            .and_then(|mut game| {
                for mv in d["moves"].as_array()? {
                    game.play(mv.as_str()?).ok()?;
                }
                Some(game)
            })
            .filter(|game| game.position() == position);
        replayed.or_else(|| self.game_from_text(position))
    }

    fn game_from_text(&self, text: &str) -> Option<AnyGame> {
        let setup = GameOptions {
            start_position: Some(text.to_owned()),
            ..GameOptions::default()
        };
        AnyGame::new(self.kind, &setup).ok()
    }

    /// A bot declines the others' draw offers and accepts their rematch offers.
    fn answer_offer(&self, offer: &Value) -> Option<Command> {
        let id = offer["id"].as_u64()?;
        if offer["by"].as_u64() == Some(u64::from(self.seat))
            || offer["accepted"].as_array().is_some_and(|seats| {
                seats
                    .iter()
                    .any(|s| s.as_u64() == Some(u64::from(self.seat)))
            })
        {
            return None;
        }
        match offer["kind"].as_str()? {
            "draw" => Some(Command::Decline { offer: id }),
            "rematch" => Some(Command::Accept { offer: id }),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(t: &str, v: i64, d: Value) -> String {
        serde_json::json!({"t": t, "v": v, "d": d}).to_string()
    }

    #[test]
    fn the_view_follows_the_snapshot_and_the_moves_and_knows_when_to_think() {
        let start = "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1";
        let mut view = View::new(GameKind::OukChatrang, 1);
        view.read(&frame(
            "snapshot",
            3,
            serde_json::json!({"status": "playing", "start_position": start, "position": start,
                               "moves": [], "offers": []}),
        ));
        assert!(
            view.to_think().is_none(),
            "white is on move, the bot plays black"
        );
        let mut game = AnyGame::new(GameKind::OukChatrang, &GameOptions::default()).unwrap();
        game.play("e3e4").unwrap();
        view.read(&frame(
            "moved",
            4,
            serde_json::json!({"seat": 0, "move": "e3e4", "position": game.position(), "to_move": 1}),
        ));
        let (v, thought) = view.to_think().expect("black is on move");
        assert_eq!((v, thought.position()), (4, game.position()));
        view.read(&frame(
            "game_over",
            5,
            serde_json::json!({"result": {"winner": 0, "reason": "resignation"}}),
        ));
        assert!(view.to_think().is_none());
    }

    #[test]
    fn a_bot_declines_draws_and_accepts_rematches_of_the_others_only() {
        let view = View::new(GameKind::Khan, 1);
        let offer = |kind: &str, by: u8| serde_json::json!({"id": 4, "kind": kind, "by": by, "accepted": []});
        assert_eq!(
            view.answer_offer(&offer("draw", 0)),
            Some(Command::Decline { offer: 4 })
        );
        assert_eq!(
            view.answer_offer(&offer("rematch", 0)),
            Some(Command::Accept { offer: 4 })
        );
        assert_eq!(view.answer_offer(&offer("draw", 1)), None);
    }
}
