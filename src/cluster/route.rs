//! Reaching a room another node owned when it was looked up: the one policy of a relayed hello
//! (`api/ws.rs`) and of a forwarded REST request (`api/rest.rs`).
//!
//! Each round tries the owner once ([`Attempt`]); when that did not work it pauses
//! [`PAUSE`] and looks the room up here, which claims it once its owner's lease has run out
//! (the owner died) or it was released. Rounds go on until the lease could have run out and the
//! room been claimed by someone (lease TTL + [`SETTLE`]); a room that no longer exists, a
//! shutdown of this node and a client that left end the rounds at once.

use std::future::Future;
use std::time::Duration;

use tokio::sync::watch;
use tracing::debug;

use crate::room::RoomHandle;
use crate::store::StoreError;

/// The pause between two rounds.
pub const PAUSE: Duration = Duration::from_millis(200);

/// How long after the owner's lease could have run out a room is still looked for: the other
/// nodes' sweeps (one a renewal interval) and this node's own look-ups claim it within that.
pub const SETTLE: Duration = Duration::from_secs(2);

/// Why one try of the owner did not give an answer.
#[derive(Debug)]
pub enum Attempt {
    /// Nothing happened at the owner (no live owner, not reachable, the room moved): try again.
    Retry(String),
    /// The owner may have acted and its answer was lost: a request that is not idempotent must
    /// not be sent again. Ends the rounds.
    Unknown(String),
    /// The database failed. Ends the rounds.
    Store(StoreError),
}

/// Where the room was reached.
pub enum Routed<T> {
    /// The owner answered (a link, a response).
    Owner(T),
    /// This node claimed the room meanwhile: its task here.
    Here(RoomHandle),
}

/// Why the room could not be reached.
#[derive(Debug)]
pub enum RouteError {
    /// Still no node could serve it by the deadline: the client tries again later.
    Moving,
    /// The room no longer exists.
    Gone,
    /// This node is shutting down, or the client left.
    Stopped,
    /// The owner may have acted on a request whose answer was lost (see [`Attempt::Unknown`]).
    Unknown(String),
    /// The database failed.
    Store(StoreError),
}

/// Runs rounds of `attempt` (a try of the owner) and `here` (a look-up on this node, which may
/// claim the room: `Ok(None)` when it no longer exists, `OwnedElsewhere` while another node
/// serves it) until one gives the room, for at most `lease_ttl` + [`SETTLE`]; ends early when
/// `shutdown` turns true or `left` resolves (the client went away).
pub async fn route<T, A, AF, H, HF>(
    lease_ttl: Duration,
    mut shutdown: watch::Receiver<bool>,
    left: impl Future<Output = ()>,
    mut attempt: A,
    mut here: H,
) -> Result<Routed<T>, RouteError>
where
    A: FnMut() -> AF,
    AF: Future<Output = Result<T, Attempt>>,
    H: FnMut() -> HF,
    HF: Future<Output = Result<Option<RoomHandle>, StoreError>>,
{
    let deadline = tokio::time::Instant::now() + lease_ttl + SETTLE;
    let mut left = std::pin::pin!(left);
    loop {
        let tried = tokio::select! {
            tried = attempt() => tried,
            () = &mut left => return Err(RouteError::Stopped),
            _ = shutdown.wait_for(|stopping| *stopping) => return Err(RouteError::Stopped),
        };
        match tried {
            Ok(answer) => return Ok(Routed::Owner(answer)),
            Err(Attempt::Retry(why)) => debug!(%why, "the room's owner not reached yet"),
            Err(Attempt::Unknown(why)) => return Err(RouteError::Unknown(why)),
            Err(Attempt::Store(e)) => return Err(RouteError::Store(e)),
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(RouteError::Moving);
        }
        tokio::select! {
            () = tokio::time::sleep(PAUSE) => {}
            () = &mut left => return Err(RouteError::Stopped),
            _ = shutdown.wait_for(|stopping| *stopping) => return Err(RouteError::Stopped),
        }
        match here().await {
            Ok(Some(room)) => return Ok(Routed::Here(room)),
            Ok(None) => return Err(RouteError::Gone),
            Err(StoreError::OwnedElsewhere { .. }) => {}
            Err(e) => return Err(RouteError::Store(e)),
        }
    }
}
