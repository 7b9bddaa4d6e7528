//! The tool's players: each task plays one room after another with real WebSocket clients, one
//! per seat, choosing random moves from the server's own `legal_moves` at a paced rate, and its
//! spectators follow the room without sending anything.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};
use tokio::sync::{mpsc, watch};
use tokio::time::{Instant, sleep_until};

use super::conn::{self, Incoming, Sender};
use super::stats::Recorder;

/// What every room task shares.
pub struct Plan {
    pub addr: SocketAddr,
    pub http: reqwest::Client,
    /// `ouk-chatrang`, `khan` or `khan-tsin`.
    pub game: String,
    /// Seats per room (Khan-Tsin: 2 or 3).
    pub players: u8,
    /// Time between two moves of one room: rooms / target rate.
    pub interval: Duration,
    pub recorder: Arc<Recorder>,
    pub seed: u64,
}

/// Plays rooms until `stop` turns true. `ready` gets the first room's invite code once its seats
/// are connected (spectators then join it), and is dropped unused if that first room cannot be
/// set up; later rooms that cannot be set up are counted as errors and tried again every second.
pub async fn play_rooms(
    plan: Arc<Plan>,
    index: u64,
    mut stop: watch::Receiver<bool>,
    ready: mpsc::UnboundedSender<String>,
) {
    let mut rng = StdRng::seed_from_u64(plan.seed.wrapping_add(index));
    let mut ready = Some(ready);
    let mut slot = Instant::now() + plan.interval.mul_f64(rng.random::<f64>());
    while !*stop.borrow() {
        let room = match Room::open(&plan).await {
            Ok(room) => room,
            Err(e) => {
                plan.recorder
                    .error(conn::short(&format!("room set-up: {e:#}")));
                if ready.is_some() {
                    // The first room failed: the server is unreachable or refuses us; dropping
                    // `ready` ends the run at once with the error.
                    return;
                }
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_secs(1)) => continue,
                    _ = stop.changed() => break,
                }
            }
        };
        if let Some(ready) = ready.take() {
            let _ = ready.send(room.code.clone());
        }
        room.play(&plan, &mut rng, &mut slot, &mut stop).await;
    }
}

/// A room whose seats are all taken by this task's clients.
struct Room {
    code: String,
    tokens: Vec<String>,
    seats: Vec<Sender>,
    /// Where every seat's reading task hands its frames, for a reconnected seat's.
    to: mpsc::UnboundedSender<Incoming>,
    frames: mpsc::UnboundedReceiver<Incoming>,
}

/// A move sent and not yet acknowledged, and its frame (sent again, same cid, after its seat
/// reconnects).
struct InFlight {
    seat: usize,
    cid: String,
    sent: Instant,
    frame: Value,
}

impl Room {
    /// Creates a room over REST, takes every seat (the creator's and one join per other seat),
    /// and connects one WebSocket per seat.
    async fn open(plan: &Plan) -> anyhow::Result<Room> {
        let created = post(
            plan,
            "/api/rooms",
            json!({"game": plan.game, "seats": plan.players, "seat": 0, "name": "load-0"}),
        )
        .await?;
        let code = created["invite_code"]
            .as_str()
            .context("invite_code")?
            .to_owned();
        let mut tokens = vec![
            created["seat_token"]
                .as_str()
                .context("seat_token")?
                .to_owned(),
        ];
        for seat in 1..plan.players {
            let joined = post(
                plan,
                &format!("/api/rooms/{code}/join"),
                json!({"name": format!("load-{seat}")}),
            )
            .await?;
            tokens.push(
                joined["seat_token"]
                    .as_str()
                    .context("seat_token")?
                    .to_owned(),
            );
        }
        let (to, frames) = mpsc::unbounded_channel();
        let mut seats = Vec::new();
        for (seat, token) in tokens.iter().enumerate() {
            let socket = conn::open(plan.addr, Some(&code), &plan.recorder)
                .await
                .context("connect")?;
            let mut sender = conn::split(socket, seat, to.clone(), plan.recorder.clone());
            let hello = json!({"t": "hello", "d": {"protocol": 1, "room": code, "token": token}});
            if !sender.send(&hello).await {
                bail!("hello not sent");
            }
            seats.push(sender);
        }
        Ok(Room {
            code,
            tokens,
            seats,
            to,
            frames,
        })
    }

    /// Reopens seat `seat`'s connection, which the server closed with 1012 (the room moved to
    /// another node, or the server restarts), with a hello naming `last_v`, the last version it
    /// saw: the server replays what it missed.
    async fn reconnect(&mut self, plan: &Plan, seat: usize, last_v: i64) -> bool {
        let Some(socket) = conn::open(plan.addr, Some(&self.code), &plan.recorder).await else {
            return false;
        };
        let mut sender = conn::split(socket, seat, self.to.clone(), plan.recorder.clone());
        let hello = json!({"t": "hello", "d": {
            "protocol": 1, "room": self.code, "token": self.tokens[seat], "last_v": last_v,
        }});
        if !sender.send(&hello).await {
            return false;
        }
        plan.recorder.reconnect();
        self.seats[seat] = sender;
        true
    }

    /// Plays until the game ends, something goes wrong, or `stop`. One move per `slot`: a move is
    /// sent at its slot or, when the room is behind (waiting for the server), as soon as it can.
    async fn play(
        mut self,
        plan: &Plan,
        rng: &mut StdRng,
        slot: &mut Instant,
        stop: &mut watch::Receiver<bool>,
    ) {
        let recorder = &plan.recorder;
        // The seat on move, with the version it saw and its legal moves.
        let mut pending: Option<(usize, i64, Value)> = None;
        let mut in_flight: Option<InFlight> = None;
        // When the last move was sent, and which other seats have not yet received it.
        let mut last_sent = Instant::now();
        let mut awaiting = vec![false; self.seats.len()];
        // The last version each seat saw, for its reconnection's `last_v`.
        let mut seen = vec![0i64; self.seats.len()];
        let mut cids = 0u64;
        loop {
            let can_send = pending.is_some() && in_flight.is_none();
            tokio::select! {
                _ = stop.changed() => break,
                _ = sleep_until(*slot), if can_send => {
                    let (seat, v, moves) = pending.take().expect("a pending move");
                    let Some(mv) = pick(&moves, rng) else {
                        recorder.error("an empty legal_moves");
                        break;
                    };
                    cids += 1;
                    let cid = format!("m{cids}");
                    let frame = json!({"t": "move", "cid": cid, "d": {"move": mv, "v": v}});
                    last_sent = Instant::now();
                    if !self.seats[seat].send(&frame).await {
                        recorder.error("send failed");
                        break;
                    }
                    in_flight = Some(InFlight { seat, cid, sent: last_sent, frame });
                    awaiting.iter_mut().enumerate().for_each(|(i, a)| *a = i != seat);
                    *slot = (*slot + plan.interval).max(last_sent - plan.interval);
                }
                incoming = self.frames.recv() => {
                    let Some(Incoming { from, frame, at }) = incoming else {
                        break;
                    };
                    let at = Instant::from_std(at);
                    let d = &frame["d"];
                    if let Some(v) = frame["v"].as_i64() {
                        seen[from] = seen[from].max(v);
                    }
                    match frame["t"].as_str().unwrap_or_default() {
                        conn::CLOSED_RESTART => {
                            if !self.reconnect(plan, from, seen[from]).await {
                                recorder.error("reconnect after 1012 failed");
                                break;
                            }
                            if let Some(f) = in_flight.as_ref().filter(|f| f.seat == from)
                                && !self.seats[from].send(&f.frame).await
                            {
                                recorder.error("send failed");
                                break;
                            }
                        }
                        conn::CLOSED => break,
                        // The room is moving to another node: the seat's connection is closed
                        // with 1012 next, and the move is sent again, same cid, on the new one.
                        "reject" if d["code"] == "unavailable" => {}
                        "ack" => {
                            if let Some(f) = in_flight.take_if(|f| f.seat == from && d["cid"] == f.cid.as_str()) {
                                recorder.ack(at - f.sent);
                            }
                        }
                        "reject" => {
                            recorder.reject(d["code"].as_str().unwrap_or("?"));
                            break;
                        }
                        "error" => {
                            recorder.error(format!("error {}", d["code"].as_str().unwrap_or("?")));
                            break;
                        }
                        "game_over" => {
                            recorder.game_finished();
                            break;
                        }
                        kind => {
                            if kind == "moved" && std::mem::take(&mut awaiting[from]) {
                                recorder.broadcast(at - last_sent);
                            }
                            update_pending(&mut pending, from, kind, &frame);
                        }
                    }
                }
            }
        }
        for seat in self.seats {
            seat.close().await;
        }
    }
}

/// Keeps `pending` (the seat on move, the version it saw, its legal moves) up to date with `frame`
/// (an event of kind `kind`) received by seat `from`: its `legal_moves` put that seat on move; a
/// later `moved`, `left` or `game_started` without them, received by the pending seat, means it
/// is no longer on move; a `skipped` does so only for the seat it skips (it follows the `moved`
/// that already gave the seat on move its moves).
fn update_pending(
    pending: &mut Option<(usize, i64, Value)>,
    from: usize,
    kind: &str,
    frame: &Value,
) {
    let v = frame["v"].as_i64().unwrap_or(-1);
    let d = &frame["d"];
    if d.get("legal_moves").is_some() {
        *pending = Some((from, v, d["legal_moves"].clone()));
    } else if matches!(kind, "moved" | "left" | "game_started") {
        pending.take_if(|(seat, seen, _)| *seat == from && *seen < v);
    } else if kind == "skipped" {
        pending.take_if(|(seat, seen, _)| {
            *seat == from && *seen < v && d["seat"].as_u64() == Some(*seat as u64)
        });
    }
}

/// A random legal move: an element of a list of move strings, or in Khan a random path down the
/// tree of `docs/protocol.md` ("Legal moves in Khan"): a piece, a first square, then a coin toss
/// at each node with children whether the jump chain goes on.
pub fn pick(moves: &Value, rng: &mut StdRng) -> Option<String> {
    match moves {
        Value::Array(list) => list.choose(rng)?.as_str().map(str::to_owned),
        Value::Object(tree) => {
            let keys: Vec<&String> = tree.keys().collect();
            let from = *keys.choose(rng)?;
            let mut path = vec![from.clone()];
            let mut node = &tree[from.as_str()];
            loop {
                let next: Vec<&String> = node.as_object()?.keys().collect();
                let stop_here = path.len() >= 2 && (next.is_empty() || rng.random_bool(0.5));
                if stop_here {
                    return Some(path.join("-"));
                }
                let square = *next.choose(rng)?;
                path.push(square.clone());
                node = &node[square.as_str()];
            }
        }
        _ => None,
    }
}

/// A room that waits for players (only its creator's seat is taken, by nobody connected), for
/// idle connections; its invite code.
pub async fn waiting_room(plan: &Plan) -> anyhow::Result<String> {
    let created = post(
        plan,
        "/api/rooms",
        json!({"game": plan.game, "seats": plan.players}),
    )
    .await?;
    Ok(created["invite_code"]
        .as_str()
        .context("invite_code")?
        .to_owned())
}

/// Follows a room as a spectator until `stop`, counting the frames it receives; `welcomed` is
/// told when the server's `welcome` arrives.
pub async fn spectate(
    addr: SocketAddr,
    code: String,
    recorder: Arc<Recorder>,
    mut stop: watch::Receiver<bool>,
    welcomed: mpsc::UnboundedSender<()>,
) {
    let (to, mut frames) = mpsc::unbounded_channel();
    let follow = |last_v: Option<i64>| {
        let (code, recorder, to) = (&code, recorder.clone(), to.clone());
        async move {
            let socket = conn::open(addr, Some(code), &recorder).await?;
            let mut sender = conn::split(socket, 0, to, recorder.clone());
            let mut hello = json!({"t": "hello", "d": {"protocol": 1, "room": code}});
            if let Some(last_v) = last_v {
                hello["d"]["last_v"] = json!(last_v);
            }
            if sender.send(&hello).await {
                Some(sender)
            } else {
                recorder.error("hello not sent");
                None
            }
        }
    };
    let Some(mut sender) = follow(None).await else {
        return;
    };
    let mut seen = 0;
    loop {
        tokio::select! {
            _ = stop.changed() => break,
            frame = frames.recv() => match frame {
                Some(Incoming { frame, .. }) => {
                    seen = frame["v"].as_i64().unwrap_or(seen).max(seen);
                    match frame["t"].as_str().unwrap_or_default() {
                        "welcome" => {
                            let _ = welcomed.send(());
                        }
                        // Closed with 1012: follow the room again from where it was left.
                        conn::CLOSED_RESTART => match follow(Some(seen)).await {
                            Some(again) => {
                                recorder.reconnect();
                                sender = again;
                            }
                            None => return,
                        },
                        conn::CLOSED => return,
                        _ => recorder.spectator_frame(),
                    }
                }
                None => break,
            }
        }
    }
    sender.close().await;
}

async fn post(plan: &Plan, path: &str, body: Value) -> anyhow::Result<Value> {
    let response = plan
        .http
        .post(format!("http://{}{path}", plan.addr))
        .json(&body)
        .send()
        .await?;
    let status = response.status();
    let body: Value = response.json().await?;
    if !status.is_success() {
        bail!("POST {path}: {status} {}", body["error"]["code"]);
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Khan-Tsin seat that moves again because the other was skipped keeps its legal moves:
    /// the `skipped` event after its `moved` once dropped them and the room stalled for good.
    #[test]
    fn a_skip_of_the_other_seat_keeps_the_moves_of_the_seat_on_move() {
        let mut pending = None;
        let moved =
            json!({"t": "moved", "v": 73, "d": {"seat": 1, "to_move": 1, "legal_moves": ["4:1+"]}});
        update_pending(&mut pending, 1, "moved", &moved);
        let skipped = json!({"t": "skipped", "v": 74, "d": {"seat": 0}});
        update_pending(&mut pending, 1, "skipped", &skipped);
        assert_eq!(pending, Some((1, 73, json!(["4:1+"]))));

        let skipped_self = json!({"t": "skipped", "v": 75, "d": {"seat": 1}});
        update_pending(&mut pending, 1, "skipped", &skipped_self);
        assert_eq!(pending, None);
    }

    #[test]
    fn a_move_without_legal_moves_ends_the_seats_turn() {
        let mut pending = Some((0, 5, json!(["a3a4"])));
        update_pending(
            &mut pending,
            1,
            "moved",
            &json!({"t": "moved", "v": 6, "d": {"seat": 0}}),
        );
        assert!(pending.is_some(), "another seat's frame changes nothing");
        update_pending(
            &mut pending,
            0,
            "moved",
            &json!({"t": "moved", "v": 6, "d": {"seat": 0}}),
        );
        assert_eq!(pending, None);
    }

    #[test]
    fn picks_only_listed_moves() {
        let mut rng = StdRng::seed_from_u64(1);
        let list = json!(["e3e4", "a3a4"]);
        for _ in 0..20 {
            let mv = pick(&list, &mut rng).expect("a move");
            assert!(mv == "e3e4" || mv == "a3a4", "{mv}");
        }
        // The example tree of docs/protocol.md and the moves it stands for.
        let tree = json!({"a1": {"a2": {}, "b1": {}, "b2": {}, "c3": {"a5": {}}},
                          "b2": {"a2": {}, "a3": {}, "b1": {}, "b3": {}, "c1": {}, "c2": {}, "c3": {}}});
        let listed = [
            "a1-a2", "a1-b1", "a1-b2", "a1-c3", "a1-c3-a5", "b2-a2", "b2-a3", "b2-b1", "b2-b3",
            "b2-c1", "b2-c2", "b2-c3",
        ];
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..2000 {
            let mv = pick(&tree, &mut rng).expect("a move");
            assert!(listed.contains(&mv.as_str()), "{mv}");
            seen.insert(mv);
        }
        assert_eq!(seen.len(), listed.len());
        assert_eq!(pick(&json!([]), &mut rng), None);
    }
}
