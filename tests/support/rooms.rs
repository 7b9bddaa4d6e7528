//! Rooms driven in-process through the registry, without sockets: for tests of the room task's
//! queues and ordering.

use khanate::room::RoomHandle;
use khanate::room::registry::{NewRoom, Registry};
use khanate::room::state::SeatChoice;
use khanate::rules::{GameKind, GameOptions};
use khanate::store::Visibility;
use serde_json::json;

/// A new Ouk Chatrang room in `registry` with both seats taken: (room, White's token, Black's token).
pub async fn two_player_room(registry: &Registry) -> (RoomHandle, String, String) {
    let created = registry
        .create(NewRoom {
            kind: GameKind::OukChatrang,
            setup: GameOptions::default(),
            options: json!({}),
            visibility: Visibility::Private,
            seat: SeatChoice::Number(0),
            name: None,
            user: None,
            bots: Vec::new(),
        })
        .await
        .expect("the room is created");
    let black = created
        .room
        .join(SeatChoice::Random, None, None, None)
        .await
        .expect("black joins");
    (created.room, created.joined.seat_token, black.seat_token)
}
