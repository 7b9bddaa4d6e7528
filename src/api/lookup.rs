//! Finding a room by id or invite code for a client, within that client's budgets: one path for
//! every entry point (a summary, the room page, a join, a hello), so none of them is an oracle for
//! invite-code guessing that the others are not.

use std::net::IpAddr;
use std::time::Duration;

use super::AppState;
use super::error::retry_after_secs;
use crate::room::RoomHandle;
use crate::store::StoreError;
use crate::telemetry;

/// What a look-up found.
pub enum Lookup {
    /// The room.
    Found(RoomHandle),
    /// No room has this id or invite code.
    Missing,
    /// Refused without looking: the address is over its look-up budget, or barred after too
    /// many misses; it may try again after this long.
    Limited(Duration),
}

/// Looks `reference` up for `client` (counted against its budgets; a miss against its failed
/// look-ups, and the miss that goes over them is answered [`Lookup::Limited`] too).
pub async fn find_room(
    state: &AppState,
    client: IpAddr,
    reference: &str,
) -> Result<Lookup, StoreError> {
    if let Err(retry_after) = state.limiters.allow_lookup(client) {
        telemetry::failed_lookup("rate_limited");
        return Ok(Lookup::Limited(retry_after));
    }
    if let Some(room) = state.registry.find(reference).await? {
        return Ok(Lookup::Found(room));
    }
    telemetry::failed_lookup("not_found");
    Ok(match state.limiters.lookup_missed(client) {
        Ok(()) => Lookup::Missing,
        Err(retry_after) => Lookup::Limited(retry_after),
    })
}

/// The message of a refused look-up.
pub fn limited_message(retry_after: Duration) -> String {
    format!(
        "too many room look-ups from this address; try again in {} s",
        retry_after_secs(retry_after)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_names_the_same_wait_as_the_retry_after_header() {
        let wait = Duration::from_millis(3_200);
        assert_eq!(retry_after_secs(wait), 4);
        assert_eq!(
            limited_message(wait),
            "too many room look-ups from this address; try again in 4 s"
        );
        assert_eq!(retry_after_secs(Duration::ZERO), 1);
    }
}
