//! A bot's seat at play: a task connected to its room like any client.
//!
//! The driver reads the frames the room sends its connection (`snapshot`, then events) as
//! [`ServerFrame`]s, matched exhaustively so that a new frame or event must be considered here, keeps
//! its own copy of the game from them, and whenever its seat is on move asks the [`BotPool`] for
//! a move and sends it as a `move` command with the version it saw, through the same path as a
//! person's socket. A stale answer needs nothing: the events that made it stale follow. Draw
//! offers are declined and rematch offers accepted (the rematch room keeps its bot); takeback
//! offers the room accepts for its bots itself, and a `taken_back` is followed by replaying the
//! driver's copy without the moves taken back. While a takeback offer its seat accepted is open
//! (in three-player Khan-Tsin, waiting for a person's answer) the bot holds its move: a move
//! would close the offer it agreed to. Each search's seed comes from the room, the seat and the
//! position version ([`search_seed`]): repeatable per room, and a position seen again after a
//! takeback (a new version) gets a new one, so a takeback does not replay the bot's choice. The task
//! ends when the room closes its connection: either the room task stopped (a new task starts a new
//! driver) or the room dropped the connection for a full queue (the room starts a new driver at
//! once).

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use tokio::sync::mpsc;
use tracing::{Instrument, debug, info_span, warn};

use super::BotPool;
use crate::bot::Level;
use crate::protocol::{ClockInfo, Command, Event, OfferInfo, OfferKind, ServerFrame};
use crate::room::{BotConnected, OUTBOUND_CAPACITY, Outbound, RoomHandle};
use crate::rules::{AnyGame, Rules, Seat};

/// How long a driver waits before searching again after a search gave no move (the engine
/// failed), or before reconnecting after its copy of the game went astray.
const RETRY: Duration = Duration::from_secs(1);

/// Starts the driver of the bot at `level` in `seat` of the room behind `handle`.
pub(in crate::room) fn spawn(handle: RoomHandle, seat: Seat, level: Level, pool: BotPool) {
    let span = info_span!("bot", room_id = %handle.id, seat, level = level.get());
    tokio::spawn(run(handle, seat, level, pool).instrument(span));
}

/// A search under way: the position version it answers, and the search.
type Thinking = (i64, Pin<Box<dyn Future<Output = Option<String>> + Send>>);

/// Why a connection of the driver ended.
enum Ended {
    /// The room task stopped (a new task starts a new driver) or dropped the connection for a
    /// full queue (the room starts a new driver at once).
    Gone,
    /// The driver's copy of the game no longer matches the room's: it reconnects.
    Astray,
}

async fn run(handle: RoomHandle, seat: Seat, level: Level, pool: BotPool) {
    loop {
        let (out, frames) = mpsc::channel(OUTBOUND_CAPACITY);
        let Ok(connected) = handle.connect_bot(seat, out).await else {
            debug!("the room is gone before its bot connected");
            return;
        };
        let conn = connected.conn;
        match play(&handle, seat, level, &pool, connected, frames).await {
            Ended::Gone => break,
            Ended::Astray => {
                warn!("the bot's copy of the game went astray; it reconnects");
                // Leaves the room before the frames' queue closes, so the room does not start
                // another driver for this seat.
                handle.disconnect(conn).await;
                tokio::time::sleep(RETRY).await;
            }
        }
    }
    debug!("bot disconnected");
}

/// Plays on one connection until it ends.
async fn play(
    handle: &RoomHandle,
    seat: Seat,
    level: Level,
    pool: &BotPool,
    connected: BotConnected,
    mut frames: mpsc::Receiver<Outbound>,
) -> Ended {
    let mut view = View::new(seat, &connected);
    let mut thinking: Option<Thinking> = None;
    // The position version a move was last sent for: one move per position, whatever the answer.
    let mut sent_for: Option<i64> = None;
    loop {
        match view.on_move().filter(|v| sent_for != Some(*v)) {
            Some(v) if thinking.as_ref().map(|(at, _)| *at) != Some(v) => {
                let seed = search_seed(handle.id, seat, v);
                let (game, cap) = (view.game.clone(), view.clock_cap());
                let pool = pool.clone();
                let search = async move { pool.think(game, level, seed, cap).await };
                thinking = Some((v, Box::pin(search)));
            }
            Some(_) => {}
            None => thinking = None,
        }
        let mut commands = Vec::new();
        tokio::select! {
            frame = frames.recv() => match frame {
                Some(Outbound::Text(text)) => match view.read(&text) {
                    Ok(answers) => commands = answers,
                    Err(Astray) => return Ended::Astray,
                },
                Some(Outbound::Close(..)) | None => return Ended::Gone,
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
                    _ => {
                        warn!("the search gave no move; searching again");
                        tokio::time::sleep(RETRY).await;
                    }
                }
            }
        }
        for command in commands {
            let cid = cid_of(&command);
            if !handle.command(view.conn, cid, command).await {
                return Ended::Gone;
            }
        }
    }
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

/// The seed of the search that answers position version `v` for `seat` of room `room`: the same
/// for the same room, seat and version (a driver reconnecting, or a room restored, searches the
/// same way), and another one at every other version: a position back on the board after a
/// takeback comes at a new version, so the bot does not pick the same random move again and again
/// as a player takes back and replays. The room id's halves and the version are spread over the
/// 64 bits with SplitMix64's finalizer (the engines seed their own generators from it).
pub(in crate::room) fn search_seed(room: uuid::Uuid, seat: Seat, v: i64) -> u64 {
    fn mix(mut z: u64) -> u64 {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    let (high, low) = room.as_u64_pair();
    let version = u64::from_ne_bytes(v.to_ne_bytes());
    mix(high ^ mix(low ^ mix(version ^ (u64::from(seat) << 56))))
}

/// The driver's copy of the game no longer matches an event of the room's.
struct Astray;

/// What changed the driver's copy of the game since it connected, in order.
enum Step {
    /// A move (its notation).
    Move(String),
    /// A seat left the game.
    Left(Seat),
}

/// What the driver knows of its room: the game the room gave it at connection, kept up to date
/// by the events that follow.
struct View {
    seat: Seat,
    conn: u64,
    game: AnyGame,
    /// The game as the room gave it at connection, and what changed it since: a takeback replays
    /// them without the moves taken back.
    start: AnyGame,
    steps: Vec<Step>,
    /// The version of the last event that changed the position.
    position_version: i64,
    /// Whether the game is being played (`game_started` seen, `game_over` not).
    playing: bool,
    /// A timed room's increment (from the snapshot), in milliseconds.
    increment_ms: u64,
    /// This seat's remaining time at the last event that carried the clocks.
    remaining_ms: Option<u64>,
    /// The open takeback offers this seat accepted: the bot holds its move while there is one.
    accepted_takebacks: Vec<u64>,
}

impl View {
    fn new(seat: Seat, connected: &BotConnected) -> Self {
        View {
            seat,
            conn: connected.conn,
            game: connected.game.clone(),
            start: connected.game.clone(),
            steps: Vec::new(),
            position_version: connected.position_version,
            playing: connected.playing,
            increment_ms: 0,
            remaining_ms: None,
            accepted_takebacks: Vec::new(),
        }
    }

    /// The position version to answer, when this seat is on move and no takeback it accepted is
    /// open.
    fn on_move(&self) -> Option<i64> {
        (self.playing
            && self.game.to_move() == Some(self.seat)
            && self.accepted_takebacks.is_empty())
        .then_some(self.position_version)
    }

    /// Keeps track of the takeback offers this seat accepted (the room accepts for it).
    fn note_offer(&mut self, offer: &OfferInfo) {
        if offer.kind == OfferKind::Takeback && offer.accepted.contains(&self.seat) {
            self.accepted_takebacks.push(offer.id);
        }
    }

    /// In a timed room, the most a search may take: a twentieth of the bot's remaining time plus
    /// most of its increment, so that a bot never loses on time by thinking.
    fn clock_cap(&self) -> Option<Duration> {
        let remaining = self.remaining_ms?;
        Some(Duration::from_millis(
            remaining / 20 + self.increment_ms * 3 / 4,
        ))
    }

    /// Takes in one frame; returns the commands it calls for (answers to offers), or `Astray`
    /// when an event does not apply to the driver's copy of the game.
    fn read(&mut self, text: &str) -> Result<Vec<Command>, Astray> {
        let Ok(frame) = ServerFrame::parse(text) else {
            warn!("the room sent a frame the bot cannot read");
            return Ok(Vec::new());
        };
        match frame {
            ServerFrame::Snapshot { snapshot, .. } => {
                if let Some(clock) = &snapshot.clock {
                    self.increment_ms = u64::from(clock.increment_s) * 1000;
                    self.read_clock(&clock.remaining_ms);
                }
                self.accepted_takebacks.clear();
                for offer in &snapshot.offers {
                    self.note_offer(offer);
                }
                return Ok(snapshot
                    .offers
                    .iter()
                    .filter_map(|offer| self.answer_offer(offer))
                    .collect());
            }
            ServerFrame::Event { v, event, .. } => return self.follow(v, event),
            ServerFrame::Reject(reject) => {
                warn!(code = reject.code.as_str(), message = %reject.message, "the room refused the bot");
            }
            ServerFrame::Welcome(_)
            | ServerFrame::Ack(_)
            | ServerFrame::Error(_)
            | ServerFrame::Presence(_)
            | ServerFrame::Spectators(_)
            | ServerFrame::Lag(_)
            | ServerFrame::Chat(_)
            | ServerFrame::ChatHistory(_)
            | ServerFrame::Pong => {}
        }
        Ok(Vec::new())
    }

    /// Follows the event at version `v`; returns the commands it calls for.
    fn follow(&mut self, v: i64, event: Event) -> Result<Vec<Command>, Astray> {
        match event {
            Event::GameStarted { clock, .. } => {
                self.read_event_clock(clock.as_ref());
                self.playing = true;
                self.position_version = v;
            }
            Event::Moved {
                mv,
                position,
                clock,
                ..
            } => {
                self.read_event_clock(clock.as_ref());
                let played = self.game.play(&mv).is_ok();
                self.steps.push(Step::Move(mv));
                self.after_change(played, &position, v)?;
            }
            Event::Left {
                seat,
                position,
                clock,
                ..
            } => {
                self.read_event_clock(clock.as_ref());
                let left = self.game.resign(seat).is_ok();
                self.steps.push(Step::Left(seat));
                self.after_change(left, &position, v)?;
            }
            Event::TakenBack {
                plies,
                position,
                clock,
                ..
            } => {
                self.read_event_clock(clock.as_ref());
                self.accepted_takebacks.clear();
                let replayed = self.take_back(plies);
                self.after_change(replayed, &position, v)?;
            }
            Event::GameOver { clock, .. } => {
                self.read_event_clock(clock.as_ref());
                self.accepted_takebacks.clear();
                self.playing = false;
            }
            Event::Offer(offer) => {
                self.note_offer(&offer);
                return Ok(self.answer_offer(&offer).into_iter().collect());
            }
            Event::OfferDeclined { id, .. } => self.accepted_takebacks.retain(|open| *open != id),
            Event::SeatTaken { .. }
            | Event::SeatAccount { .. }
            | Event::OfferAccepted { .. }
            | Event::Skipped { .. }
            | Event::Rematch(_)
            | Event::SpectatorChat { .. } => {}
        }
        Ok(Vec::new())
    }

    /// Replays the game from the connection's start without the last `plies` moves; false when
    /// they are not all moves seen since the connection (the driver then reconnects), or a step
    /// does not replay.
    fn take_back(&mut self, plies: u32) -> bool {
        let keep = self.steps.len().saturating_sub(plies as usize);
        let taken = &self.steps[keep..];
        if taken.len() != plies as usize || taken.iter().any(|s| matches!(s, Step::Left(_))) {
            return false;
        }
        self.steps.truncate(keep);
        let mut game = self.start.clone();
        let replayed = self.steps.iter().all(|step| match step {
            Step::Move(mv) => game.play(mv).is_ok(),
            Step::Left(seat) => game.resign(*seat).is_ok(),
        });
        self.game = game;
        replayed
    }

    fn read_event_clock(&mut self, clock: Option<&ClockInfo>) {
        if let Some(clock) = clock {
            self.read_clock(&clock.remaining_ms);
        }
    }

    /// Takes this seat's remaining time from a frame's clocks (one entry per seat).
    fn read_clock(&mut self, remaining_ms: &[u64]) {
        if let Some(remaining) = remaining_ms.get(usize::from(self.seat)) {
            self.remaining_ms = Some(*remaining);
        }
    }

    /// After an event that changed the position at version `v`: the change must have applied and
    /// given the event's position.
    fn after_change(&mut self, applied: bool, position: &str, v: i64) -> Result<(), Astray> {
        if !(applied && position == self.game.position()) {
            return Err(Astray);
        }
        self.position_version = v;
        Ok(())
    }

    /// A bot declines the others' draw offers and accepts their rematch offers (their takeback
    /// offers the room accepted for it as they were made).
    fn answer_offer(&self, offer: &OfferInfo) -> Option<Command> {
        if offer.by == self.seat || offer.accepted.contains(&self.seat) {
            return None;
        }
        match offer.kind {
            OfferKind::Draw => Some(Command::Decline { offer: offer.id }),
            OfferKind::Rematch => Some(Command::Accept { offer: offer.id }),
            OfferKind::Takeback => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{GameKind, GameOptions};
    use serde_json::{Value, json};

    fn frame(t: &str, v: i64, d: Value) -> String {
        json!({"t": t, "v": v, "d": d}).to_string()
    }

    fn offer(value: Value) -> OfferInfo {
        serde_json::from_value(value).expect("an offer")
    }

    fn connected(kind: GameKind, playing: bool) -> BotConnected {
        BotConnected {
            conn: 7,
            game: AnyGame::new(kind, &GameOptions::default()).expect("the standard start"),
            position_version: 3,
            playing,
        }
    }

    #[test]
    fn the_view_follows_the_moves_and_knows_when_its_seat_is_on_move() {
        let mut view = View::new(1, &connected(GameKind::OukChatrang, true));
        assert_eq!(
            view.on_move(),
            None,
            "White is on move, the bot plays Black"
        );
        let mut game = AnyGame::new(GameKind::OukChatrang, &GameOptions::default()).unwrap();
        game.play("e3e4").unwrap();
        let moved = json!({"seat": 0, "move": "e3e4", "display": "e4", "position": game.position(),
                           "to_move": 1, "clock": {"remaining_ms": [59000, 60000], "running": 1,
                                                   "at": "2026-12-01T10:00:00Z"}});
        assert!(view.read(&frame("moved", 4, moved)).is_ok());
        assert_eq!(view.on_move(), Some(4));
        assert_eq!(view.game.position(), game.position());
        assert_eq!(view.clock_cap(), Some(Duration::from_millis(3000)));
        let over = json!({"result": {"winner": 0, "reason": "resignation"}});
        assert!(view.read(&frame("game_over", 5, over)).is_ok());
        assert_eq!(view.on_move(), None);
    }

    #[test]
    fn a_move_that_does_not_give_the_rooms_position_sends_the_driver_astray() {
        let mut view = View::new(1, &connected(GameKind::OukChatrang, true));
        let moved = |mv: &str, position: &str| {
            let d = json!({"seat": 0, "move": mv, "display": mv, "position": position,
                           "to_move": 1});
            frame("moved", 4, d)
        };
        let wrong = moved("e3e4", "8/8/8/8/8/8/8/K6k w - - 0 1");
        assert!(view.read(&wrong).is_err());
        let start = view.game.position();
        assert!(
            view.read(&moved("e3e6", &start)).is_err(),
            "an illegal move"
        );
    }

    #[test]
    fn a_bot_declines_draws_and_accepts_rematches_of_the_others_only() {
        let view = View::new(1, &connected(GameKind::Khan, false));
        let open =
            |kind: &str, by: u8| offer(json!({"id": 4, "kind": kind, "by": by, "accepted": []}));
        assert_eq!(
            view.answer_offer(&open("draw", 0)),
            Some(Command::Decline { offer: 4 })
        );
        assert_eq!(
            view.answer_offer(&open("rematch", 0)),
            Some(Command::Accept { offer: 4 })
        );
        assert_eq!(view.answer_offer(&open("draw", 1)), None);
        let accepted = offer(json!({"id": 5, "kind": "rematch", "by": 0, "accepted": [1]}));
        assert_eq!(view.answer_offer(&accepted), None);
    }

    #[test]
    fn the_bot_holds_its_move_while_a_takeback_it_accepted_is_open() {
        let mut view = View::new(1, &connected(GameKind::KhanTsin, true));
        let mut game = view.game.clone();
        let mv = game.legal_moves()[0].clone();
        game.play(&mv).unwrap();
        let d = json!({"seat": 0, "move": mv, "display": mv, "position": game.position(),
                       "to_move": 1});
        assert!(view.read(&frame("moved", 4, d)).is_ok());
        assert_eq!(view.on_move(), Some(4));
        // Seat 0 asks to take back and the room accepted for the bot: until the `taken_back` that
        // follows (with three players: until the last person answers) the bot holds its move.
        let takeback = json!({"id": 3, "kind": "takeback", "by": 0, "accepted": [1], "plies": 1});
        assert!(view.read(&frame("offer", 5, takeback)).is_ok());
        assert_eq!(view.on_move(), None, "a move would close the offer");
        let declined = json!({"id": 3, "by": 0});
        assert!(view.read(&frame("offer_declined", 6, declined)).is_ok());
        assert_eq!(view.on_move(), Some(4));
        // Someone else's offer the bot has not accepted holds nothing.
        let draw = json!({"id": 4, "kind": "draw", "by": 0, "accepted": []});
        assert!(view.read(&frame("offer", 7, draw)).is_ok());
        assert_eq!(view.on_move(), Some(4));
    }

    #[test]
    fn a_seed_is_the_rooms_and_a_position_seen_again_gets_another() {
        let room = uuid::Uuid::from_u128(0x6f1d_2a0e_5b7c_4e8a_9d3f_2c1b_0a9e_8d7c);
        let other = uuid::Uuid::from_u128(0x6f1d_2a0e_5b7c_4e8a_9d3f_2c1b_0a9e_8d7d);
        assert_eq!(search_seed(room, 1, 4), search_seed(room, 1, 4));
        let seeds = [
            search_seed(room, 1, 4),
            search_seed(room, 1, 7),
            search_seed(room, 0, 4),
            search_seed(other, 1, 4),
        ];
        for (i, a) in seeds.iter().enumerate() {
            for b in &seeds[i + 1..] {
                assert_ne!(a, b, "{seeds:?}");
            }
        }
        // Level 1's random move from the same position at the versions before and after a
        // takeback brought it back: over a few takebacks, not always the same move.
        let game = AnyGame::new(GameKind::OukChatrang, &GameOptions::default()).unwrap();
        let limits = |v| {
            crate::bot::Limits::from_now(
                crate::bot::Level::new(1).unwrap(),
                Duration::from_secs(1),
                search_seed(room, 0, v),
            )
        };
        let chosen: std::collections::BTreeSet<_> = (0..8)
            .map(|k| crate::bot::choose_move(&game, &limits(3 + 2 * k)))
            .collect();
        assert!(chosen.len() > 1, "{chosen:?}");
    }

    #[test]
    fn a_taken_back_replays_the_view_without_the_moves_and_asks_for_none() {
        let mut view = View::new(1, &connected(GameKind::OukChatrang, true));
        let start = view.game.position();
        let mut game = view.game.clone();
        for (v, mv) in [(4, "e3e4"), (5, "d6d5")] {
            game.play(mv).unwrap();
            let d = json!({"seat": v - 4, "move": mv, "display": mv, "position": game.position(),
                           "to_move": 5 - v});
            assert!(view.read(&frame("moved", v, d)).is_ok());
        }
        let takeback = offer(
            json!({"id": 1, "kind": "takeback", "by": 0, "accepted": [1],
                                    "plies": 2}),
        );
        assert_eq!(
            view.answer_offer(&takeback),
            None,
            "the room accepted for the bot"
        );
        let back = |plies: u32, position: &str| {
            frame(
                "taken_back",
                7,
                json!({"plies": plies, "position": position, "to_move": 0}),
            )
        };
        assert!(view.read(&back(2, &start)).is_ok());
        assert_eq!(view.game.position(), start);
        assert_eq!(view.position_version, 7);
        assert_eq!(view.on_move(), None, "White is on move again");
        // More plies than the driver saw since it connected: it reconnects.
        assert!(view.read(&back(1, &start)).is_err());
    }
}
