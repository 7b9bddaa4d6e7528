//! Command and chat budgets belong to the seat (a player) or the client address (a spectator), not
//! to the connection: reconnecting, however often, buys nothing.

mod support;

use serde_json::json;
use support::server::{sqlite_server_with, two_player_room};
use support::ws::Client;

/// Sends one chat on `client`: whether it was acked (else it must be a `rate_limited` reject).
async fn chat_acked(client: &mut Client, channel: &str, cid: &str) -> bool {
    client
        .command("chat", cid, json!({"channel": channel, "text": "hi"}))
        .await;
    let answer = client.answer(cid).await;
    if answer["t"] == "ack" {
        return true;
    }
    assert_eq!(answer["d"]["code"], "rate_limited", "{answer}");
    false
}

#[tokio::test]
async fn reconnecting_does_not_reset_a_player_s_or_a_spectator_s_chat_budget() {
    let (_db, server) = sqlite_server_with(|_| {}).await;
    let (_, code, white, _) = two_player_room(server.addr, json!({})).await;
    for (token, channel) in [(Some(white.as_str()), "players"), (None, "spectators")] {
        let mut acked = 0;
        for attempt in 0..6 {
            let (mut client, _) = Client::hello(server.addr, &code, token, None).await;
            client.next_of("snapshot").await;
            for i in 0..5 {
                if chat_acked(&mut client, channel, &format!("c{attempt}-{i}")).await {
                    acked += 1;
                }
            }
            client.close().await;
        }
        // A burst of 5, and one more every 2 s while the test runs; not 5 per connection (30).
        assert!(
            acked <= 8,
            "{channel}: {acked} of 30 chats acked across 6 connections"
        );
    }
    server.shutdown().await;
}

#[tokio::test]
async fn reconnecting_does_not_reset_a_seat_s_command_budget() {
    let (_db, server) = sqlite_server_with(|c| c.limits.commands_per_second = 1).await;
    let (_, code, white, _) = two_player_room(server.addr, json!({})).await;
    let mut acked = 0;
    for attempt in 0..6 {
        let (mut client, _) = Client::hello(server.addr, &code, Some(&white), None).await;
        client.next_of("snapshot").await;
        for i in 0..3 {
            let cid = format!("s{attempt}-{i}");
            client
                .command("set_spectator_chat", &cid, json!({"enabled": i % 2 == 0}))
                .await;
            let answer = client.answer(&cid).await;
            if answer["t"] == "ack" {
                acked += 1;
            } else {
                assert_eq!(answer["d"]["code"], "rate_limited", "{answer}");
            }
        }
        client.close().await;
    }
    // A burst of 2 and one a second: not 2 per connection (12).
    assert!(
        acked <= 6,
        "{acked} of 18 commands acked across 6 connections"
    );
    server.shutdown().await;
}
