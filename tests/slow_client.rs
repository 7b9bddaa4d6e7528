//! A connection that cannot keep up never blocks its room: when its outbound queue is full during a
//! broadcast the room drops it (its queue closes, which makes the socket writer close with 1013 so
//! the client resyncs) and goes on serving everyone else; reconnecting with `last_v` resyncs it.

mod support;

use khanate::protocol::Command;
use khanate::room::registry::Registry;
use khanate::room::{Outbound, RoomSettings};
use khanate::store::Store;
use serde_json::Value;
use tokio::sync::mpsc;

fn text(out: Outbound) -> Value {
    match out {
        Outbound::Text(text) => serde_json::from_str(&text).expect("JSON"),
        Outbound::Close(code, reason) => panic!("close {code} {reason}"),
    }
}

#[tokio::test]
async fn a_connection_with_a_full_queue_is_dropped_and_the_room_goes_on() {
    let (_file, url) = support::db::fresh_sqlite_url();
    let registry = Registry::new(Store::connect(&url).await.unwrap(), RoomSettings::default());
    let (room, white_token, black_token) = support::rooms::two_player_room(&registry).await;
    // The players read everything.
    let (white_tx, mut white_rx) = mpsc::channel(64);
    let white = room
        .connect(Some(white_token), None, white_tx)
        .await
        .unwrap();
    let (black_tx, mut black_rx) = mpsc::channel(64);
    let black = room
        .connect(Some(black_token), None, black_tx)
        .await
        .unwrap();
    // A spectator that never reads, with room for welcome, snapshot, the spectator count its
    // arrival changed, and one event.
    let (slow_tx, mut slow_rx) = mpsc::channel(4);
    room.connect(None, None, slow_tx).await.unwrap();

    let moves = ["e3e4", "d6d5", "e4d5", "e8c7"];
    let mut v = 3;
    for (i, mv) in moves.iter().enumerate() {
        let (conn, rx) = if i % 2 == 0 {
            (white.conn, &mut white_rx)
        } else {
            (black.conn, &mut black_rx)
        };
        assert!(
            room.command(
                conn,
                format!("m{i}"),
                Command::Move {
                    mv: (*mv).into(),
                    v
                }
            )
            .await
        );
        loop {
            let frame = text(rx.recv().await.expect("the player's queue stays open"));
            if frame["t"] == "ack" {
                v = frame["d"]["v"].as_i64().unwrap();
                break;
            }
        }
    }
    assert_eq!(
        v, 7,
        "every move was accepted while the spectator did not read"
    );

    // The spectator got what fit, in order, and then the room closed its queue.
    assert_eq!(text(slow_rx.recv().await.unwrap())["t"], "welcome");
    assert_eq!(text(slow_rx.recv().await.unwrap())["v"], 3, "the snapshot");
    assert_eq!(text(slow_rx.recv().await.unwrap())["t"], "spectators");
    let moved = text(slow_rx.recv().await.unwrap());
    assert_eq!(
        (moved["t"].as_str(), moved["v"].as_i64()),
        (Some("moved"), Some(4))
    );
    assert!(
        slow_rx.recv().await.is_none(),
        "dropped at the event that did not fit"
    );

    // Reconnecting with the last version it saw resyncs it: versions 5 to 7, nothing missing.
    let (again_tx, mut again_rx) = mpsc::channel(64);
    room.connect(None, Some(4), again_tx).await.unwrap();
    assert_eq!(text(again_rx.recv().await.unwrap())["t"], "welcome");
    for expected in 5..=7 {
        assert_eq!(text(again_rx.recv().await.unwrap())["v"], expected);
    }
}
