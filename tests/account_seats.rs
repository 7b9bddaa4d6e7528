//! Seats that belong to accounts: a room created or joined logged in stores the account on the
//! seat and shows the username; the player resumes the seat from another device by logging in
//! (the session cookie on the WebSocket upgrade, or an API token with `play` in the hello),
//! without the seat token; a `read` token cannot play; an anonymous player cannot take a
//! username.

mod support;

use reqwest::Method;
use serde_json::{Value, json};
use support::account::{Auth, api_token, credentials, hello_as, post_as, register, send};
use support::server::{TestServer, get, sqlite_server_with};
use uuid::Uuid;

async fn create(server: &TestServer, auth: Auth<'_>, body: Value) -> (u16, Value) {
    let answer = send(
        server.addr,
        Method::POST,
        "/api/rooms",
        auth,
        None,
        Some(&body),
    )
    .await;
    (answer.status, answer.body)
}

async fn join(server: &TestServer, code: &str, auth: Auth<'_>, body: Value) -> (u16, Value) {
    let path = format!("/api/rooms/{code}/join");
    let answer = send(server.addr, Method::POST, &path, auth, None, Some(&body)).await;
    (answer.status, answer.body)
}

/// The account id stored on each seat of the room, by seat.
async fn seat_users(server: &TestServer, room_id: &str) -> Vec<Option<Uuid>> {
    let room = Uuid::parse_str(room_id).unwrap();
    let stored = server
        .store
        .load_room(khanate::store::RoomRef::Id(room))
        .await
        .unwrap()
        .unwrap();
    stored.seats.iter().map(|s| s.user_id).collect()
}

#[tokio::test]
async fn a_logged_in_player_resumes_the_seat_on_another_device_without_its_token() {
    let (_db, server) = sqlite_server_with(|_| {}).await;
    let dara = register(server.addr, "Dara").await;
    let sok = register(server.addr, "Sok").await;
    let body = json!({"game": "ouk-chatrang", "seat": "white", "name": "ignored"});
    let (status, created) = create(&server, Auth::Cookie(&dara), body).await;
    assert_eq!(status, 201, "{created}");
    let code = created["invite_code"].as_str().unwrap().to_owned();
    let room_id = created["room_id"].as_str().unwrap().to_owned();
    let (status, joined) = join(&server, &code, Auth::Cookie(&sok), json!({})).await;
    assert_eq!(status, 200, "{joined}");
    let (_, summary) = get(server.addr, &format!("/api/rooms/{code}")).await;
    assert_eq!(
        summary["seats"][0]["name"], "Dara",
        "the username, not the name given"
    );
    assert_eq!(summary["seats"][1]["name"], "Sok");
    let ids = |name: &str| {
        let store = server.store.clone();
        let name = name.to_owned();
        async move { store.user_by_name(&name).await.unwrap().unwrap().id }
    };
    assert_eq!(
        seat_users(&server, &room_id).await,
        [Some(ids("dara").await), Some(ids("sok").await)]
    );

    // Another device: log in, open the room with the cookie only.
    let phone = credentials(server.addr, "login", "dara", "Dara-secret-pw").await;
    let phone = phone.session_token();
    let (mut socket, welcome) = hello_as(server.addr, Some(&phone), json!({"room": code})).await;
    assert_eq!(welcome["t"], "welcome", "{welcome}");
    assert_eq!(
        (welcome["d"]["seat"].clone(), welcome["d"]["role"].clone()),
        (json!(0), json!("player"))
    );
    socket
        .send_move("m1", "e3e4", welcome["d"]["version"].as_i64().unwrap())
        .await;
    assert_eq!(
        socket.answer("m1").await["t"],
        "ack",
        "the resumed seat plays"
    );

    // A program with a play token does the same; a stranger's cookie is a spectator.
    let play = api_token(server.addr, &sok, &["play"]).await;
    let (_bot, welcome) =
        hello_as(server.addr, None, json!({"room": code, "api_token": play})).await;
    assert_eq!(welcome["d"]["seat"], 1, "{welcome}");
    let stranger = register(server.addr, "Vanna").await;
    let (_s, welcome) = hello_as(server.addr, Some(&stranger), json!({"room": code})).await;
    assert_eq!(welcome["d"]["role"], "spectator", "{welcome}");
}

#[tokio::test]
async fn a_read_token_cannot_play_and_a_forged_token_is_refused() {
    let (_db, server) = sqlite_server_with(|_| {}).await;
    let dara = register(server.addr, "Dara").await;
    let read = api_token(server.addr, &dara, &["read"]).await;
    let body = json!({"game": "khan"});
    let (status, refused) = create(&server, Auth::Bearer(&read), body.clone()).await;
    assert_eq!(
        (status, &refused["error"]["code"]),
        (403, &json!("missing_scope"))
    );
    let (status, created) = create(&server, Auth::None, body.clone()).await;
    assert_eq!(status, 201);
    let code = created["invite_code"].as_str().unwrap().to_owned();
    let (status, refused) = join(&server, &code, Auth::Bearer(&read), json!({})).await;
    assert_eq!(
        (status, &refused["error"]["code"]),
        (403, &json!("missing_scope"))
    );
    let (status, forged) = join(
        &server,
        &code,
        Auth::Bearer(&format!("khn_{}", "0".repeat(64))),
        json!({}),
    )
    .await;
    assert_eq!(
        (status, &forged["error"]["code"]),
        (401, &json!("not_logged_in"))
    );
    for token in [read.clone(), format!("khn_{}", "1".repeat(64))] {
        let (mut socket, frame) =
            hello_as(server.addr, None, json!({"room": code, "api_token": token})).await;
        assert_eq!(
            (frame["t"].clone(), frame["d"]["code"].clone()),
            (json!("error"), json!("bad_token")),
            "{frame}"
        );
        assert_eq!(socket.closed().await, Some(4003));
    }
    let (_, summary) = get(server.addr, &format!("/api/rooms/{code}")).await;
    let taken = summary["seats"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["taken"] == true)
        .count();
    assert_eq!(taken, 1, "nobody but the creator: {summary}");
}

#[tokio::test]
async fn an_anonymous_player_cannot_take_a_username_in_any_case() {
    let (_db, server) = sqlite_server_with(|_| {}).await;
    register(server.addr, "Dara").await;
    for name in ["dara", " DARA "] {
        let body = json!({"game": "khan", "name": name});
        let (status, refused) = create(&server, Auth::None, body).await;
        assert_eq!(
            (status, &refused["error"]["code"]),
            (400, &json!("bad_name")),
            "{name}"
        );
    }
    let (status, created) =
        create(&server, Auth::None, json!({"game": "khan", "name": "Sok"})).await;
    assert_eq!(status, 201);
    let code = created["invite_code"].as_str().unwrap();
    let (status, refused) = join(&server, code, Auth::None, json!({"name": "Dara"})).await;
    assert_eq!(
        (status, &refused["error"]["code"]),
        (400, &json!("bad_name"))
    );
    let (status, _) = join(&server, code, Auth::None, json!({"name": "Dara2"})).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn an_anonymous_browser_attaches_its_games_on_registering_and_a_forged_token_is_refused() {
    let (_db, server) = sqlite_server_with(|_| {}).await;
    let mut tokens = Vec::new();
    let mut rooms = Vec::new();
    for game in ["ouk-chatrang", "khan"] {
        let body = json!({"game": game, "seat": 0, "name": "guest"});
        let (status, created) = create(&server, Auth::None, body).await;
        assert_eq!(status, 201);
        tokens.push(created["seat_token"].as_str().unwrap().to_owned());
        rooms.push((
            created["room_id"].as_str().unwrap().to_owned(),
            created["invite_code"].as_str().unwrap().to_owned(),
        ));
    }
    // Someone watches the first room while it is live in memory.
    let (mut watcher, welcome) = hello_as(server.addr, None, json!({"room": rooms[0].1})).await;
    assert_eq!(welcome["t"], "welcome", "{welcome}");
    let dara = register(server.addr, "Dara").await;
    let forged = "0".repeat(32);
    let body = json!({"seat_tokens": [tokens[0], tokens[1], forged]});
    let answer = post_as(
        server.addr,
        "/api/account/attach",
        Auth::Cookie(&dara),
        &body,
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(
        answer.body,
        json!({
            "attached": [{"index": 0, "room_id": rooms[0].0}, {"index": 1, "room_id": rooms[1].0}],
            "refused": [{"index": 2, "reason": "no seat has this token"}],
        })
    );
    assert!(
        !answer.body.to_string().contains(&tokens[0]),
        "tokens are never repeated"
    );
    let id = server.store.user_by_name("dara").await.unwrap().unwrap().id;
    for (room_id, _) in &rooms {
        assert_eq!(seat_users(&server, room_id).await, [Some(id)]);
    }
    // The live room announced the account at once: its seat now shows the username.
    let announced = support::ws::within(watcher.next_of("seat_account")).await;
    assert_eq!(
        announced["d"],
        json!({"seat": 0, "user": "Dara"}),
        "{announced}"
    );
    let (_, summary) = get(server.addr, &format!("/api/rooms/{}", rooms[0].1)).await;
    assert_eq!(
        (&summary["seats"][0]["name"], &summary["seats"][0]["user"]),
        (&json!("guest"), &json!("Dara"))
    );
    // The attached seat is resumed by logging in, without the token.
    let (_socket, welcome) = hello_as(server.addr, Some(&dara), json!({"room": rooms[0].1})).await;
    assert_eq!(welcome["d"]["seat"], 0, "{welcome}");
    // Nobody else can take it over.
    let sok = register(server.addr, "Sok").await;
    let body = json!({"seat_tokens": [tokens[0]]});
    let answer = post_as(
        server.addr,
        "/api/account/attach",
        Auth::Cookie(&sok),
        &body,
    )
    .await;
    assert_eq!(
        answer.body["refused"],
        json!([{"index": 0, "reason": "this seat belongs to another account"}])
    );
    assert_eq!(seat_users(&server, &rooms[0].0).await, [Some(id)]);
}

#[tokio::test]
async fn a_spectator_cannot_chat_under_a_username() {
    let (_db, server) = sqlite_server_with(|_| {}).await;
    register(server.addr, "Dara").await;
    let (status, created) = create(&server, Auth::None, json!({"game": "khan"})).await;
    assert_eq!(status, 201);
    let code = created["invite_code"].as_str().unwrap();
    let (mut socket, frame) =
        hello_as(server.addr, None, json!({"room": code, "name": "DARA"})).await;
    assert_eq!(
        (&frame["t"], &frame["d"]["code"]),
        (&json!("error"), &json!("bad_hello")),
        "{frame}"
    );
    assert_eq!(socket.closed().await, Some(4000));
    let (_ok, welcome) = hello_as(server.addr, None, json!({"room": code, "name": "Vanna"})).await;
    assert_eq!(welcome["t"], "welcome");
}

/// An account deleted while a room of its is live: every connection of the room is told at once
/// (`seat_account` with `deleted`), and the room's summary and a later snapshot say so.
#[tokio::test]
async fn a_deleted_account_shows_as_deleted_in_its_live_room() {
    let (_db, server) = sqlite_server_with(|_| {}).await;
    let dara = register(server.addr, "Dara").await;
    let sok = register(server.addr, "Sok").await;
    let body = json!({"game": "ouk-chatrang", "seat": "white"});
    let (status, created) = create(&server, Auth::Cookie(&dara), body).await;
    assert_eq!(status, 201, "{created}");
    let code = created["invite_code"].as_str().unwrap().to_owned();
    let (status, _) = join(&server, &code, Auth::Cookie(&sok), json!({})).await;
    assert_eq!(status, 200);
    let (mut black, welcome) = hello_as(server.addr, Some(&sok), json!({"room": code})).await;
    assert_eq!(welcome["d"]["seat"], 1, "{welcome}");
    let snapshot = black.next_of("snapshot").await;
    assert_eq!(snapshot["d"]["seats"][0]["user"], "Dara", "{snapshot}");
    assert_eq!(snapshot["d"]["seats"][0].get("deleted"), None);

    let password = json!({"password": "Dara-secret-pw"});
    let gone = support::account::delete_as(
        server.addr,
        "/api/account",
        Auth::Cookie(&dara),
        Some(&password),
    )
    .await;
    assert_eq!(gone.status, 204, "{}", gone.body);
    let announced = support::ws::within(black.next_of("seat_account")).await;
    assert_eq!(
        announced["d"],
        json!({"seat": 0, "user": "Dara", "deleted": true}),
        "{announced}"
    );
    let (_, summary) = get(server.addr, &format!("/api/rooms/{code}")).await;
    assert_eq!(summary["seats"][0]["deleted"], true, "{summary}");
    assert_eq!(summary["seats"][1].get("deleted"), None, "{summary}");
    let (mut late, _) = hello_as(server.addr, None, json!({"room": code})).await;
    let snapshot = late.next_of("snapshot").await;
    assert_eq!(snapshot["d"]["seats"][0]["deleted"], true, "{snapshot}");
}
