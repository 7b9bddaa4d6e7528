//! The answers a room gives again to a repeated `(seat, cid)`: the heart of idempotent retries.
//!
//! A command that made events is remembered for the room's life, and after a restart too: its cid
//! is stored with its events and rebuilt from them. An accepted chat message is remembered the
//! same way: its cid and ack version are stored with its row (`chat_messages.cid`, `.v`). An answer that changed nothing (a reject, or an
//! ack of a command without effect) is only in memory, and only the latest
//! [`REMEMBERED_UNSTORED`] per seat, so one player cannot push another's answers out, and no client
//! can grow the map without bound.

use std::collections::{HashMap, VecDeque};

use crate::protocol::Code;
use crate::rules::Seat;

/// How many answers that changed nothing each seat's cids keep.
pub const REMEMBERED_UNSTORED: usize = 256;

/// The first answer given to a `(seat, cid)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Accepted; the room version after the command.
    Ack(i64),
    /// Refused, with its code and message.
    Reject(Code, String),
}

#[derive(Default)]
struct SeatAnswers {
    unstored: HashMap<String, Answer>,
    /// `unstored`'s keys, oldest first.
    order: VecDeque<String>,
}

/// The answers of one room.
#[derive(Default)]
pub struct Answers {
    /// Commands that made events, with the version of their last event.
    stored: HashMap<(Seat, String), i64>,
    seats: HashMap<Seat, SeatAnswers>,
}

impl Answers {
    /// Remembers that `(seat, cid)` was accepted and its last event is version `v`.
    pub fn remember_stored(&mut self, seat: Seat, cid: String, v: i64) {
        self.stored.insert((seat, cid), v);
    }

    /// Remembers an answer that changed nothing, forgetting the seat's oldest such answer beyond
    /// [`REMEMBERED_UNSTORED`].
    pub fn remember_unstored(&mut self, seat: Seat, cid: String, answer: Answer) {
        let mine = self.seats.entry(seat).or_default();
        if mine.order.len() == REMEMBERED_UNSTORED
            && let Some(old) = mine.order.pop_front()
        {
            mine.unstored.remove(&old);
        }
        if mine.unstored.insert(cid.clone(), answer).is_none() {
            mine.order.push_back(cid);
        }
    }

    /// The answer first given to `(seat, cid)`, if remembered.
    pub fn get(&self, seat: Seat, cid: &str) -> Option<Answer> {
        if let Some(v) = self.stored.get(&(seat, cid.to_owned())) {
            return Some(Answer::Ack(*v));
        }
        self.seats.get(&seat)?.unstored.get(cid).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unstored_answers_are_bounded_per_seat_and_stored_acks_are_kept() {
        let mut answers = Answers::default();
        answers.remember_stored(0, "move-1".into(), 4);
        answers.remember_unstored(
            0,
            "mine".into(),
            Answer::Reject(Code::NoSuchOffer, "no".into()),
        );
        for i in 0..=REMEMBERED_UNSTORED {
            answers.remember_unstored(1, format!("offer-{i}"), Answer::Ack(4));
        }
        assert_eq!(
            answers.get(1, "offer-0"),
            None,
            "the seat's oldest unstored answer is forgotten"
        );
        assert_eq!(
            answers.get(1, &format!("offer-{REMEMBERED_UNSTORED}")),
            Some(Answer::Ack(4))
        );
        assert_eq!(
            answers.get(0, "mine"),
            Some(Answer::Reject(Code::NoSuchOffer, "no".into())),
            "another seat's flood does not push this seat's answers out"
        );
        assert_eq!(answers.get(0, "move-1"), Some(Answer::Ack(4)));
        assert_eq!(answers.get(1, "move-1"), None, "cids are per seat");
    }
}
