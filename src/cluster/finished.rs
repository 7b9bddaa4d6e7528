//! Finished rooms need no owner: their record is in the store, and a node that looks one up
//! serves it from there without claiming it (no epoch bump, no notification to every node).
//!
//! What may still change after the end (chat, rematch offers) must keep one decider, so a task
//! serving a finished room unclaimed ([`Unclaimed`]) writes nothing: before its first write it
//! claims the room, only if nobody claimed it since the task read it ([`Unclaimed::claim`]), and
//! only with its copy still equal to the store (version and last chat `seq`); from then on it
//! is the room's owner like any other, fenced by its epoch. The claim's notification ends every
//! other node's unclaimed task of the room ([`Unclaimed::moved`]): their clients reconnect and
//! are relayed to the new owner, so post-game chat is never split between nodes. A look-up of
//! a finished room another live node owns is relayed there, as for any room: that node may be
//! holding the room's post-game conversation in memory.

use std::sync::Arc;

use uuid::Uuid;

use super::moves::MoveWatch;
use super::{Node, Ownership};
use crate::store::StoreError;

/// What a look-up of a room found before claiming anything (see [`Node::look_up`]).
pub enum Standing {
    /// The game is over and no other live node owns the room: served here, unclaimed.
    Finished(Unclaimed),
    /// Another live node owns the finished room: relayed to it.
    OwnedElsewhere,
    /// The game is not over: claimed as ever.
    Unfinished,
    /// No such room.
    Missing,
}

/// A finished room served by this node without a claim.
#[derive(Debug)]
pub struct Unclaimed {
    node: Arc<Node>,
    room_id: Uuid,
    /// The owner epoch when the room was read: a claim at any other ends this copy.
    epoch: i64,
    watch: MoveWatch,
}

/// Why an unclaimed room could not be claimed for a write: it changed since it was read (or
/// this node is fenced). The task stops and its clients reconnect, to the new owner or to a
/// fresh copy.
#[derive(Debug, thiserror::Error)]
pub enum Stale {
    /// Another node claimed it since, or owns it, or this node's lease is not alive.
    #[error("the room was claimed since it was read, or this node is fenced")]
    Claimed,
    /// This node claimed it, but the store holds writes the copy lacks.
    #[error("the stored room is ahead of this copy")]
    Behind,
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Node {
    /// Reads where `room_id` stands before a look-up claims it: a finished room no other live
    /// node owns comes back [`Standing::Finished`], watched from before the read so that a claim
    /// from then on is not missed. Errors: the database failed.
    pub async fn look_up(self: &Arc<Self>, room_id: Uuid) -> Result<Standing, StoreError> {
        let mut watch = self.moves.watch(room_id);
        let Some(standing) = self.store.room_standing(self.id, room_id).await? else {
            return Ok(Standing::Missing);
        };
        Ok(match standing {
            s if !s.finished => Standing::Unfinished,
            s if s.owned_elsewhere => Standing::OwnedElsewhere,
            s => {
                watch.link(s.epoch);
                Standing::Finished(Unclaimed {
                    node: self.clone(),
                    room_id,
                    epoch: s.epoch,
                    watch,
                })
            }
        })
    }
}

impl Unclaimed {
    /// Returns once another node (or this one, for another task) claimed the room: this copy
    /// must stop serving. Cancel-safe.
    pub async fn moved(&mut self) {
        self.watch.moved().await;
    }

    /// Claims the room for a write of the task holding this copy, whose room is at `version`
    /// with its last chat message at `chat_seq`: the ownership the task carries from then on.
    /// Errors: see [`Stale`].
    pub async fn claim(self, version: i64, chat_seq: i64) -> Result<Ownership, Stale> {
        let lease = *self.node.lease.borrow();
        if !lease.serving {
            return Err(Stale::Claimed);
        }
        let (claim, stored_version, stored_seq) = self
            .node
            .store
            .claim_unchanged(self.node.id, self.room_id, self.epoch)
            .await?
            .ok_or(Stale::Claimed)?;
        tracing::debug!(room_id = %self.room_id, epoch = claim.epoch, "claimed a finished room to write");
        if (stored_version, stored_seq) != (version, chat_seq) {
            return Err(Stale::Behind);
        }
        Ok(self.node.ownership(claim.epoch, lease.generation))
    }
}
