//! Running in production, on the embedded store: each limit refuses the request over it with its
//! documented answer while the rest of the server goes on serving; the Origin check; server pings
//! and the dropping of silent peers; forwarded client addresses from trusted proxies only; a path
//! prefix; waiting rooms expiring; idle rooms leaving memory and coming back (on a manual clock,
//! without sleeping); metrics.

mod support;

use std::time::Duration;

use futures_util::StreamExt;
use khanate::clock::Clock;
use serde_json::{Value, json};
use support::server::{
    TestServer, eventually, get, get_text, post, sqlite_server_with, two_player_room,
};
use support::ws::Client;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

/// `POST /api/rooms` with extra headers; (status, JSON).
async fn create(server: &TestServer, headers: &[(&str, &str)]) -> (u16, Value) {
    let mut request = reqwest::Client::new()
        .post(format!("http://{}/api/rooms", server.addr))
        .json(&json!({"game": "ouk-chatrang"}));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Upgrades `/ws` with extra headers; the HTTP status of a refusal, or 101.
async fn upgrade_status(server: &TestServer, headers: &[(&'static str, &str)]) -> u16 {
    let mut request = format!("ws://{}/ws", server.addr)
        .into_client_request()
        .unwrap();
    for (name, value) in headers {
        request.headers_mut().insert(*name, value.parse().unwrap());
    }
    match tokio_tungstenite::connect_async(request).await {
        Ok((_, response)) => response.status().as_u16(),
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => response.status().as_u16(),
        Err(e) => panic!("{e}"),
    }
}

#[tokio::test]
async fn room_creation_is_limited_per_client_address_seen_through_trusted_proxies() {
    let (_db, server) = sqlite_server_with(|c| {
        c.limits.rooms_per_minute = 2;
        c.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    })
    .await;
    let alice = [("x-forwarded-for", "203.0.113.7")];
    assert_eq!(create(&server, &alice).await.0, 201);
    assert_eq!(create(&server, &alice).await.0, 201);
    let (status, body) = create(&server, &alice).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (429, Some("rate_limited"))
    );
    // When to come back: two rooms a minute, so one more in at most 30 s.
    let retry_after = body["error"]["retry_after"].as_u64().expect("retry_after");
    assert!((29..=30).contains(&retry_after), "{body}");
    // Another client behind the same proxy is not affected, nor is the rest of the server.
    assert_eq!(
        create(&server, &[("x-forwarded-for", "203.0.113.8")])
            .await
            .0,
        201
    );
    assert_eq!(get(server.addr, "/healthz").await.0, 200);
    let (_, whoami) = get(server.addr, "/api/whoami").await;
    assert_eq!(whoami["ip"], "127.0.0.1");
    server.shutdown().await;
}

#[tokio::test]
async fn a_forged_forwarded_for_from_an_untrusted_peer_is_ignored() {
    let (_db, server) = sqlite_server_with(|c| c.limits.rooms_per_minute = 1).await;
    assert_eq!(
        create(&server, &[("x-forwarded-for", "203.0.113.7")])
            .await
            .0,
        201
    );
    // Claiming to be someone else does not get around the limit: the peer's own address counts.
    assert_eq!(
        create(&server, &[("x-forwarded-for", "198.51.100.9")])
            .await
            .0,
        429
    );
    let response = reqwest::Client::new()
        .get(format!("http://{}/api/whoami", server.addr))
        .header("x-forwarded-for", "198.51.100.9")
        .send()
        .await
        .unwrap();
    assert_eq!(response.json::<Value>().await.unwrap()["ip"], "127.0.0.1");
    server.shutdown().await;
}

#[tokio::test]
async fn open_websockets_are_limited_per_client_address() {
    let (_db, server) = sqlite_server_with(|c| c.limits.connections_per_ip = 2).await;
    let (_, code, _, _) = two_player_room(server.addr, json!({})).await;
    let (first, _) = Client::hello(server.addr, &code, None, None).await;
    let (_second, _) = Client::hello(server.addr, &code, None, None).await;
    assert_eq!(
        upgrade_status(&server, &[]).await,
        429,
        "a third socket from the same address"
    );
    assert_eq!(
        get(server.addr, &format!("/api/rooms/{code}")).await.0,
        200,
        "REST still answers"
    );
    first.close().await;
    // The slot comes back once the server has seen the first socket end.
    let mut status = 0;
    for _ in 0..50 {
        status = upgrade_status(&server, &[]).await;
        if status == 101 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(status, 101);
    server.shutdown().await;
}

#[tokio::test]
async fn a_room_holds_a_limited_number_of_connections() {
    let (_db, server) = sqlite_server_with(|c| c.limits.connections_per_room = 2).await;
    let (_, code, white_token, _) = two_player_room(server.addr, json!({})).await;
    let (_white, _) = Client::hello(server.addr, &code, Some(&white_token), None).await;
    let (_watcher, _) = Client::hello(server.addr, &code, None, None).await;
    let mut third = Client::open(server.addr).await;
    third
        .send(&json!({"t": "hello", "d": {"protocol": 1, "room": code}}))
        .await;
    let error = third.recv().await;
    assert_eq!(
        (error["t"].as_str(), error["d"]["code"].as_str()),
        (Some("error"), Some("room_crowded"))
    );
    assert_eq!(third.closed().await, Some(4029));
    // Another room is not affected.
    let (_, other, _, _) = two_player_room(server.addr, json!({})).await;
    let (_, welcome) = Client::hello(server.addr, &other, None, None).await;
    assert_eq!(welcome["t"], "welcome");
    server.shutdown().await;
}

#[tokio::test]
async fn commands_are_limited_per_seat() {
    let (_db, server) = sqlite_server_with(|c| c.limits.commands_per_second = 2).await;
    let (_, code, white_token, black_token) = two_player_room(server.addr, json!({})).await;
    let (mut white, _) = Client::hello(server.addr, &code, Some(&white_token), None).await;
    // Twelve commands at once: the burst of four goes through, the rest is refused.
    for i in 0..12 {
        white
            .command("offer_draw", &format!("o{i}"), json!({}))
            .await;
    }
    let mut limited = 0;
    for i in 0..12 {
        let answer = white.answer(&format!("o{i}")).await;
        if answer["d"]["code"] == "rate_limited" {
            limited += 1;
            assert_eq!(answer["t"], "reject");
        }
    }
    assert!(limited >= 6, "{limited} of 12 refused");
    // The other player's seat has its own allowance.
    let (mut black, _) = Client::hello(server.addr, &code, Some(&black_token), None).await;
    black.command("offer_draw", "b", json!({})).await;
    assert_eq!(black.answer("b").await["t"], "ack");
    server.shutdown().await;
}

#[tokio::test]
async fn websocket_upgrades_from_other_origins_are_refused() {
    let (_db, server) = sqlite_server_with(|_| {}).await;
    let own = format!("http://{}", server.addr);
    assert_eq!(upgrade_status(&server, &[("origin", &own)]).await, 101);
    assert_eq!(
        upgrade_status(&server, &[]).await,
        101,
        "non-browser clients send no Origin"
    );
    assert_eq!(
        upgrade_status(&server, &[("origin", "https://evil.example")]).await,
        403
    );
    // DNS rebinding: a page of a name re-pointed at this server sends that name as its host and
    // origin; without a public URL only an address names the server for sure.
    let port = server.addr.port();
    for (host, status) in [
        (format!("rebound.example:{port}"), 403),
        (format!("localhost:{port}"), 101),
    ] {
        let origin = format!("http://{host}");
        let headers = [("host", host.as_str()), ("origin", origin.as_str())];
        assert_eq!(upgrade_status(&server, &headers).await, status, "{host}");
    }
    server.shutdown().await;
    let (_db, server) =
        sqlite_server_with(|c| c.allowed_origins = vec!["https://games.example.org".into()]).await;
    assert_eq!(
        upgrade_status(&server, &[("origin", "https://games.example.org")]).await,
        101
    );
    let own = format!("http://{}", server.addr);
    assert_eq!(
        upgrade_status(&server, &[("origin", &own)]).await,
        403,
        "the list replaces the default"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn the_server_pings_and_drops_a_peer_that_stops_answering() {
    let (_db, server) = sqlite_server_with(|c| {
        c.heartbeat_ms = 1_000;
        c.silence_limit_ms = 3_000;
    })
    .await;
    let (_, code, white_token, black_token) = two_player_room(server.addr, json!({})).await;
    // A raw client sees the pings (and, reading, answers them).
    let (mut raw, _) = tokio_tungstenite::connect_async(format!("ws://{}/ws", server.addr))
        .await
        .unwrap();
    let hello = json!({"t": "hello", "d": {"protocol": 1, "room": code}}).to_string();
    futures_util::SinkExt::send(&mut raw, Message::Text(hello.into()))
        .await
        .unwrap();
    let ping = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            if let Some(Ok(Message::Ping(_))) = raw.next().await {
                return;
            }
        }
    })
    .await;
    assert!(ping.is_ok(), "a ping within 5 s");
    // White keeps reading; Black's client stops reading altogether, so it never answers a ping.
    let (mut white, _) = Client::hello(server.addr, &code, Some(&white_token), None).await;
    let (silent, _) = Client::hello(server.addr, &code, Some(&black_token), None).await;
    assert_eq!(
        white.next_of("presence").await["d"],
        json!({"seat": 0, "connected": true})
    );
    assert_eq!(
        white.next_of("presence").await["d"],
        json!({"seat": 1, "connected": true})
    );
    // Kept alive by answering pings, White stays; silent Black is dropped after the silence
    // limit.
    let gone = white.next_of("presence").await;
    assert_eq!(gone["d"], json!({"seat": 1, "connected": false}));
    drop(silent);
    white.send(&json!({"t": "ping"})).await;
    assert_eq!(white.next_of("pong").await["t"], "pong");
    server.shutdown().await;
}

#[tokio::test]
async fn a_waiting_room_nobody_joins_expires_and_leaves_the_lobby() {
    let clock = Clock::manual();
    let (_db, server) = sqlite_server_with(|c| {
        c.limits.waiting_room_ttl_s = 60;
        c.clock = clock.clone();
    })
    .await;
    let (status, created) = post(
        server.addr,
        "/api/rooms",
        &json!({"game": "khan", "visibility": "public"}),
    )
    .await;
    assert_eq!(status, 201);
    let room_id = created["room_id"].as_str().unwrap().to_owned();
    let (_, lobby) = get(server.addr, "/api/rooms").await;
    assert_eq!(lobby["rooms"].as_array().unwrap().len(), 1);
    clock.advance(Duration::from_millis(59_999));
    let (_, summary) = get(server.addr, &format!("/api/rooms/{room_id}")).await;
    assert_eq!(
        summary["status"], "waiting",
        "a millisecond before its time is up"
    );
    clock.advance(Duration::from_millis(1));
    let summary = eventually(|| async {
        let (_, summary) = get(server.addr, &format!("/api/rooms/{room_id}")).await;
        (summary["status"] == "finished").then_some(summary)
    })
    .await;
    assert_eq!(summary["status"], "finished");
    let (status, game) = get(server.addr, &format!("/api/games/{room_id}")).await;
    assert_eq!(
        (status, game["result"].clone()),
        (200, json!({"winner": null, "reason": "aborted"}))
    );
    let (_, lobby) = get(server.addr, "/api/rooms").await;
    assert_eq!(lobby["rooms"], json!([]));
    let (status, joined) = post(
        server.addr,
        &format!(
            "/api/rooms/{}/join",
            created["invite_code"].as_str().unwrap()
        ),
        &json!({}),
    )
    .await;
    assert_eq!(
        (status, joined["error"]["code"].as_str()),
        (409, Some("room_full"))
    );
    server.shutdown().await;
}

#[tokio::test]
async fn an_idle_room_leaves_memory_and_comes_back_as_it_was() {
    let clock = Clock::manual();
    let (_db, server) = sqlite_server_with(|c| {
        c.limits.room_idle_s = 60;
        c.clock = clock.clone();
    })
    .await;
    let (_, code, white_token, _) = two_player_room(server.addr, json!({})).await;
    let (mut white, _) = Client::hello(server.addr, &code, Some(&white_token), None).await;
    white.send_move("m", "e3e4", 3).await;
    assert_eq!(white.answer("m").await["d"]["v"], 4);
    white.close().await;
    let evictions = |text: &str| -> f64 {
        text.lines()
            .filter(|l| l.starts_with("khanate_evictions_total{why=\"idle\"}"))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum()
    };
    let before = evictions(&get_text(server.addr, "/metrics").await.1);
    clock.advance(Duration::from_secs(60));
    let after = eventually(|| async {
        let after = evictions(&get_text(server.addr, "/metrics").await.1);
        (after > before).then_some(after)
    })
    .await;
    assert!(
        after > before,
        "the idle room left memory ({before} -> {after})"
    );
    let (mut white, welcome) = Client::hello(server.addr, &code, Some(&white_token), Some(4)).await;
    assert_eq!(
        welcome["d"]["version"], 4,
        "loaded again from the database, as it was"
    );
    white.send(&json!({"t": "ping"})).await;
    loop {
        let frame = white.recv().await;
        assert!(frame.get("v").is_none(), "nothing to replay: {frame}");
        if frame["t"] == "pong" {
            break;
        }
    }
    server.shutdown().await;
}

#[tokio::test]
async fn metrics_count_connections_rooms_commands_and_latencies() {
    let (_db, server) = sqlite_server_with(|_| {}).await;
    let (_, code, white_token, _) = two_player_room(server.addr, json!({})).await;
    let (mut white, _) = Client::hello(server.addr, &code, Some(&white_token), None).await;
    white.send_move("m", "e3e4", 3).await;
    white.answer("m").await;
    white.send_move("x", "e4e9", 4).await;
    white.answer("x").await;
    let (status, text) = get_text(server.addr, "/metrics").await;
    assert_eq!(status, 200);
    for needle in [
        "khanate_connections_open ",
        "khanate_rooms_live{game=\"ouk-chatrang\",status=\"playing\"}",
        "khanate_commands_total{type=\"move\",result=\"ack\"}",
        "khanate_rejects_total{code=\"not_your_turn\"}",
        "khanate_move_seconds_bucket{stage=\"committed\",le=\"",
        "khanate_move_seconds_bucket{stage=\"broadcast\",le=\"",
        "khanate_db_write_seconds_count ",
        "khanate_resyncs_total{kind=\"snapshot\"}",
    ] {
        assert!(text.contains(needle), "{needle} missing from\n{text}");
    }
    server.shutdown().await;
}

#[tokio::test]
async fn a_path_prefix_moves_every_route_and_the_links() {
    let (_db, server) = sqlite_server_with(|c| c.path_prefix = "/games".into()).await;
    assert_eq!(
        get_text(server.addr, "/games/healthz").await,
        (200, "ok".into())
    );
    assert_eq!(get(server.addr, "/healthz").await.0, 404);
    let (status, created) = post(
        server.addr,
        "/games/api/rooms",
        &json!({"game": "khan-tsin", "seats": 3}),
    )
    .await;
    assert_eq!(status, 201);
    let code = created["invite_code"].as_str().unwrap();
    assert_eq!(
        created["invite_url"],
        format!("http://{}/games/r/{code}", server.addr)
    );
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/games/ws", server.addr))
        .await
        .unwrap();
    let hello = json!({"t": "hello", "d": {"protocol": 1, "room": code}}).to_string();
    futures_util::SinkExt::send(&mut ws, Message::Text(hello.into()))
        .await
        .unwrap();
    let Some(Ok(Message::Text(welcome))) = ws.next().await else {
        panic!("no welcome")
    };
    assert!(welcome.contains("\"welcome\""), "{welcome}");
    server.shutdown().await;
}
