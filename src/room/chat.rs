//! A room's chat: the recent messages per channel, spectators' names, and storing and sending a
//! message that was accepted.
//!
//! Chat makes no versioned event: a message is stored in its own table with a per-room `seq`, sent
//! to the connections that may read its channel, and kept here for the `snapshot` and
//! `chat_history` of later connections. Whether a message may be written at all, and its cleaned
//! text, is the room state's decision (`RoomState::decide` gives a `Decision::Chat`), made before
//! the message gets here.

use std::collections::VecDeque;
use std::sync::Arc;

use uuid::Uuid;

use super::fanout::{Fanout, Gone};
use super::state::RoomState;
use crate::protocol::{self, ChatChannel, ChatMessage};
use crate::rules::Seat;
use crate::store::{ChatAnswer, ChatRow, Store, StoreError};

/// How many recent messages per channel a room keeps for `snapshot` and `chat_history`.
pub(super) const CHAT_HISTORY: usize = 50;

/// The longest spectator name, in characters (as for seat names).
const MAX_NAME_CHARS: usize = 32;

/// The recent chat of one room: per channel, the latest [`CHAT_HISTORY`] messages with their
/// `seq`, oldest first.
#[derive(Default)]
pub(super) struct RecentChat {
    players: VecDeque<(i64, ChatMessage)>,
    spectators: VecDeque<(i64, ChatMessage)>,
    /// The `seq` of the last message stored (or tried).
    last_seq: i64,
}

impl RecentChat {
    /// The history read back from the store: both channels' latest rows, and the last `seq`.
    pub fn from_rows(rows: Vec<ChatRow>, last_seq: i64) -> Self {
        let mut chat = RecentChat {
            last_seq,
            ..RecentChat::default()
        };
        for row in rows {
            let seq = row.seq;
            if let Some(message) = message_of(row) {
                chat.push(seq, message);
            }
        }
        chat
    }

    fn push(&mut self, seq: i64, message: ChatMessage) {
        let queue = match message.channel {
            ChatChannel::Players => &mut self.players,
            ChatChannel::Spectators => &mut self.spectators,
        };
        queue.push_back((seq, message));
        while queue.len() > CHAT_HISTORY {
            queue.pop_front();
        }
    }

    /// The `seq` of the last message stored (or tried).
    pub fn last_seq(&self) -> i64 {
        self.last_seq
    }

    /// The messages a connection of `seat` may read, oldest first.
    pub fn readable(&self, seat: Option<Seat>) -> Vec<ChatMessage> {
        let mut all: Vec<&(i64, ChatMessage)> = self.players.iter().collect();
        if RoomState::may_read_chat(seat, ChatChannel::Spectators) {
            all.extend(self.spectators.iter());
        }
        all.sort_by_key(|(seq, _)| *seq);
        all.into_iter().map(|(_, m)| m.clone()).collect()
    }

    /// Stores an accepted `message` of room `room_id`, then sends it to every connection of
    /// `fanout` that reads its channel (the writer's included) and keeps it. A player's message
    /// is stored with its `answer` (cid and the version its ack carries; `None` for a
    /// spectator's). When that cid is already stored, by an earlier try whose outcome was
    /// unknown, nothing is stored and the stored message is the one sent (it was not sent then).
    /// Returns the connections it could not be sent to (dropped) and the stored answer (the
    /// first's). Errors: the store did not take it; nothing was sent, and its `seq` is not used
    /// again (the insert may still have been stored).
    pub async fn post(
        &mut self,
        store: &Store,
        room_id: Uuid,
        message: ChatMessage,
        answer: Option<ChatAnswer>,
        epoch: Option<i64>,
        fanout: &mut Fanout,
    ) -> Result<(Vec<Gone>, Option<ChatAnswer>), StoreError> {
        self.last_seq += 1;
        let mut row = ChatRow {
            seq: self.last_seq,
            channel: message.channel.as_str().to_owned(),
            seat: message.seat,
            name: message.name.clone(),
            text: message.text.clone(),
            created_at: message.at,
            answer,
        };
        let mut message = message;
        let stored = store.insert_chat(room_id, &row, epoch).await?;
        if let (false, Some(seat), Some(answer)) = (stored, row.seat, row.answer.clone()) {
            let cid = answer.cid;
            row = store
                .chat_by_cid(room_id, seat, &cid)
                .await?
                .ok_or_else(|| StoreError::Corrupt(format!("chat cid {cid:?} is not stored")))?;
            message = message_of(row.clone())
                .ok_or_else(|| StoreError::Corrupt(format!("chat channel {}", row.channel)))?;
        }
        let frame: Arc<str> = protocol::frame("chat", None, &message).into();
        let channel = message.channel;
        let gone = fanout.send_where(|seat| RoomState::may_read_chat(seat, channel), &frame);
        self.push(row.seq, message);
        Ok((gone, row.answer))
    }
}

/// A stored message as it is sent; `None` for an unknown channel.
fn message_of(row: ChatRow) -> Option<ChatMessage> {
    let channel = match row.channel.as_str() {
        "players" => ChatChannel::Players,
        "spectators" => ChatChannel::Spectators,
        _ => return None,
    };
    Some(ChatMessage {
        channel,
        seat: row.seat,
        name: row.name,
        text: row.text,
        at: row.created_at,
    })
}

/// A spectator's name from its hello: control characters removed, trimmed, at most
/// [`MAX_NAME_CHARS`] characters; `None` when nothing is left.
pub(super) fn spectator_name(name: Option<String>) -> Option<String> {
    let name: String = name?.chars().filter(|c| !c.is_control()).collect();
    let name: String = name.trim().chars().take(MAX_NAME_CHARS).collect();
    let name = name.trim();
    (!name.is_empty()).then(|| name.to_owned())
}
