//! Handing a room to the node its clients come through (cluster mode): a proxy that hashes each
//! room's requests to one node (`docs/deploy/nginx-cluster.conf`) sends its clients there, while
//! the room belongs to the node that created or last claimed it; so when every person connected
//! to the room comes through one other node, for [`HANDOFF_AFTER`] on end, the owner releases the
//! room to that node (one statement through PostgreSQL: the next epoch, that node named owner,
//! only while the room is still this node's at its epoch and that node's lease is alive) and
//! closes its connections with 1012: their clients reconnect, and the first hello at that node
//! claims the room there at an epoch of its own before its task loads the stored room. One decider
//! all along: the room task serves nothing while it hands off (its commits are awaited one by
//! one, so none is in flight), its epoch is fenced from the release on, and the other node serves
//! the room only after its own claim. Under round-robin the condition rarely holds, and a room
//! whose people come through several nodes, or one of them through its owner, stays.

use std::time::Duration;

use tokio::time::Instant;
use tracing::{debug, info, warn};
use uuid::Uuid;

use super::Authority;
use crate::store::RoomStatus;
use crate::store::postgres::HandOff;
use crate::telemetry;

/// How long every person of the room must have come through one other node, with nobody
/// connecting or leaving, before the room is handed to it: its clients arrive one by one (the
/// creator, the others, spectators).
pub(super) const HANDOFF_AFTER: Duration = Duration::from_secs(1);

/// How long a room stays where it just began being served (created, claimed, handed to this
/// node) before it may be handed on. Its clients reconnect one by one after a move, and where a
/// proxy spreads them (round-robin, or entrances tried in turn) they may all land on one other
/// node for a moment: without this, a room that had just moved could move again at once and
/// close its clients a second time (seen in tests/cluster_proxy.rs's rolling termination).
pub(super) const STAY: Duration = Duration::from_secs(5);

/// Returns when the planned hand-off is due; never without one.
pub(super) async fn due(handoff: Option<(Instant, Uuid)>) {
    match handoff {
        Some((at, _)) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

impl Authority {
    /// The node to hand the room to now: the one every person connected comes through, when
    /// this node owns the game in play (a finished room stays: its record is in the store).
    fn handoff_target(&self) -> Option<Uuid> {
        if self.ownership.is_none() || self.state.status == RoomStatus::Finished {
            return None;
        }
        self.fanout.relayed_from_one_node()
    }

    /// After the room's connections changed: plans a hand-off [`HANDOFF_AFTER`] from now (and
    /// no sooner than [`STAY`] after this task began serving the room) to the node every
    /// person comes through, or drops the plan. Every change starts the wait afresh: a client
    /// that just reconnected (a node stopped, a relay ended) is not closed again at once, and a
    /// room moves only once its people have settled.
    pub(super) fn plan_handoff(&mut self) {
        let at = (Instant::now() + HANDOFF_AFTER).max(self.began + STAY);
        self.handoff = self.handoff_target().map(|to| (at, to));
    }

    /// The planned hand-off is due: gives the room up if every person still comes through that
    /// node. Returns whether it did (the task must stop serving and close its connections with
    /// 1012). A room another node claimed meanwhile, or whose release may or may not have been
    /// written (the database failed), is marked stale: the task stops and the room is loaded
    /// afresh by whichever node owns it then.
    pub(super) async fn hand_off(&mut self) -> bool {
        let Some((_, to)) = self.handoff.take() else {
            return false;
        };
        let Some(ownership) = self.ownership.as_ref().filter(|_| {
            // Nothing changed since it was planned (a change re-plans it), but to be sure.
            self.fanout.relayed_from_one_node() == Some(to)
        }) else {
            return false;
        };
        match ownership.hand_off(self.state.id, to).await {
            Ok(HandOff::Done) => {
                telemetry::handoff();
                info!(node = %to, "room handed off to the node its clients come through");
                true
            }
            Ok(HandOff::TargetGone) => {
                debug!(node = %to, "the node to hand the room to is gone: the room stays");
                false
            }
            Ok(HandOff::NotOurs) => {
                // Another node claimed it: this task must not go on.
                self.stale = true;
                false
            }
            Err(e) => {
                warn!(error = %e, "the hand-off's outcome is unknown: the room reloads");
                self.stale = true;
                false
            }
        }
    }
}
