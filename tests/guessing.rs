//! Invite codes cannot be guessed at speed: failed room look-ups (`GET /api/rooms/{code}`,
//! `POST /api/rooms/{code}/join`, the room page, a `hello` naming no room) are limited per client
//! address, after which every look-up from that address is refused (429 `rate_limited` with
//! `Retry-After`, or an `error` `rate_limited` frame), hits included, so the refusal tells nothing;
//! look-ups, joins and hellos also have a per-address budget. Other addresses are not affected.

mod support;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use support::server::{TestServer, sqlite_server_with};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

/// A request as if from `client` (the server trusts 127.0.0.1 as its proxy).
fn from(client: &str, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
    request.header("x-forwarded-for", client)
}

/// The first frame answering a spectator's hello to `room` from `client`.
async fn hello_answer(addr: std::net::SocketAddr, client: &str, room: &str) -> Value {
    let mut request = format!("ws://{addr}/ws").into_client_request().unwrap();
    request
        .headers_mut()
        .insert("x-forwarded-for", client.parse().unwrap());
    let (mut ws, _) = tokio_tungstenite::connect_async(request)
        .await
        .expect("upgrade");
    let hello = json!({"t": "hello", "d": {"protocol": 1, "room": room}});
    ws.send(Message::Text(hello.to_string().into()))
        .await
        .unwrap();
    loop {
        match ws.next().await.expect("a frame").expect("a frame") {
            Message::Text(text) => return serde_json::from_str(&text).unwrap(),
            _ => continue,
        }
    }
}

/// A Khan room created from `client` (through the trusted proxy); its invite code.
async fn khan_room_from(http: &reqwest::Client, server: &TestServer, client: &str) -> String {
    let created: Value = from(client, http.post(server.http("/api/rooms")))
        .json(&json!({"game": "khan"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    created["invite_code"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn failed_look_ups_are_limited_per_address_and_then_every_look_up_is_refused() {
    let (_db, server) = sqlite_server_with(|c| {
        c.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
        c.limits.failed_lookups_per_minute = 3;
    })
    .await;
    let http = reqwest::Client::new();
    let code = khan_room_from(&http, &server, "198.51.100.1").await;
    let guesser = "203.0.113.9";
    for guess in ["zzzzzzzz", "zzzzzzz2", "zzzzzzz3"] {
        let response = from(
            guesser,
            http.get(server.http(&format!("/api/rooms/{guess}"))),
        )
        .send()
        .await
        .unwrap();
        assert_eq!(response.status().as_u16(), 404);
    }
    let refused = [
        from(guesser, http.get(server.http("/api/rooms/zzzzzzz4"))),
        from(
            guesser,
            http.get(server.http(&format!("/api/rooms/{code}"))),
        ),
        from(
            guesser,
            http.post(server.http(&format!("/api/rooms/{code}/join"))),
        )
        .json(&json!({})),
        from(guesser, http.get(server.http("/r/zzzzzzz5"))),
    ];
    for request in refused {
        let response = request.send().await.unwrap();
        assert_eq!(response.status().as_u16(), 429, "{:?}", response.url());
        let retry: u64 = response.headers()["retry-after"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!((1..=60).contains(&retry), "Retry-After: {retry}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["code"], "rate_limited", "{body}");
    }
    let frame = hello_answer(server.addr, guesser, &code).await;
    assert_eq!(
        (&frame["t"], &frame["d"]["code"]),
        (&json!("error"), &json!("rate_limited")),
        "{frame}"
    );

    // Another address is not affected.
    let frame = hello_answer(server.addr, "198.51.100.2", &code).await;
    assert_eq!(frame["t"], "welcome", "{frame}");
    let response = from(
        "198.51.100.2",
        http.get(server.http(&format!("/api/rooms/{code}"))),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(response.status().as_u16(), 200);

    let metrics = http
        .get(server.http("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        metrics.contains("khanate_failed_lookups_total"),
        "{metrics}"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn look_ups_joins_and_hellos_share_a_budget_per_address() {
    let (_db, server) = sqlite_server_with(|c| {
        c.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
        c.limits.lookups_per_minute = 6;
    })
    .await;
    let http = reqwest::Client::new();
    let code = khan_room_from(&http, &server, "198.51.100.1").await;
    let busy = "203.0.113.10";
    for _ in 0..4 {
        let response = from(busy, http.get(server.http(&format!("/api/rooms/{code}"))))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 200);
    }
    assert_eq!(hello_answer(server.addr, busy, &code).await["t"], "welcome");
    let response = from(
        busy,
        http.post(server.http(&format!("/api/rooms/{code}/join"))),
    )
    .json(&json!({}))
    .send()
    .await
    .unwrap();
    assert_eq!(response.status().as_u16(), 200, "the sixth: a join");
    let response = from(busy, http.get(server.http(&format!("/api/rooms/{code}"))))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 429);
    assert!(response.headers().contains_key("retry-after"));
    let frame = hello_answer(server.addr, busy, &code).await;
    assert_eq!(frame["d"]["code"], "rate_limited", "{frame}");
    let response = from(
        "198.51.100.3",
        http.get(server.http(&format!("/api/rooms/{code}"))),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(
        response.status().as_u16(),
        200,
        "another address has its own budget"
    );
    server.shutdown().await;
}
