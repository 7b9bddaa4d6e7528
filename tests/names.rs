//! Player and spectator names are checked like chat text at every way in (`POST /api/rooms`,
//! `POST /api/rooms/{code}/join`, a spectator's `hello`): a bidirectional override or isolate, a
//! name of only blanks or invisible characters, or one over 32 characters is refused with a
//! typed error that says why; default-ignorable characters are removed and surrounding blanks
//! trimmed.

mod support;

use serde_json::{Value, json};
use support::server::{post, sqlite_server_with, two_player_room};
use support::ws::{Client, End};

/// Names that are refused everywhere, and why.
const BAD: [(&str, &str); 9] = [
    ("a\u{202E}lave", "a right-to-left override"),
    ("\u{202E}\u{200F}", "an override and a right-to-left mark"),
    (
        "\u{E0041}\u{17B4}\u{1BCA0}",
        "tags and other default-ignorables only",
    ),
    ("\u{2067}Dara", "a right-to-left isolate"),
    ("Dara\u{2069}", "a pop directional isolate"),
    ("   ", "blanks only"),
    ("\u{200B}\u{200D}\u{FEFF}", "zero-width characters only"),
    (
        " \u{200B} \u{2060} ",
        "blanks and zero-width characters only",
    ),
    ("a\u{7}b", "a control character"),
];

#[tokio::test]
async fn names_are_refused_or_trimmed_the_same_way_at_every_entry_point() {
    let (_db, server) = sqlite_server_with(|_| {}).await;
    let too_long = "ញ".repeat(33);
    let bad = BAD
        .iter()
        .copied()
        .chain([(too_long.as_str(), "33 characters")]);
    let (_, code, _, _) = two_player_room(server.addr, json!({})).await;
    for (name, what) in bad {
        let (status, body) = post(
            server.addr,
            "/api/rooms",
            &json!({"game": "khan", "name": name}),
        )
        .await;
        assert_eq!(
            (status, &body["error"]["code"]),
            (400, &json!("bad_name")),
            "create, {what}: {body}"
        );
        let (status, body) = post(
            server.addr,
            &format!("/api/rooms/{code}/join"),
            &json!({"name": name}),
        )
        .await;
        assert_eq!(
            (status, &body["error"]["code"]),
            (400, &json!("bad_name")),
            "join, {what}: {body}"
        );

        let mut spectator = Client::open(server.addr).await;
        spectator
            .send(&json!({"t": "hello", "d": {"protocol": 1, "room": code, "name": name}}))
            .await;
        let error = spectator.recv().await;
        assert_eq!(
            (&error["t"], &error["d"]["code"]),
            (&json!("error"), &json!("bad_hello")),
            "hello, {what}: {error}"
        );
        assert_eq!(spectator.next().await, Err(End::Closed(Some(4000))));
    }

    // 32 characters (not bytes), with blanks around, is fine, and kept trimmed.
    let longest = "ញ".repeat(32);
    let (status, body) = post(
        server.addr,
        "/api/rooms",
        &json!({"game": "khan", "seat": 0, "name": format!("  {longest}\u{3000}")}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let (_, summary) = support::server::get(
        server.addr,
        &format!("/api/rooms/{}", body["room_id"].as_str().unwrap()),
    )
    .await;
    assert_eq!(summary["seats"][0]["name"], json!(longest), "{summary}");
    // Default-ignorable characters inside a name (an emoji sequence's joiner, a mark, a tag) draw
    // nothing: they go, and the name is kept as people see it.
    let (status, body) = post(
        server.addr,
        "/api/rooms",
        &json!({"game": "khan", "seat": 0, "name": "👩\u{200D}👧 Da\u{200F}ra\u{E0041}"}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let (_, summary) = support::server::get(
        server.addr,
        &format!("/api/rooms/{}", body["room_id"].as_str().unwrap()),
    )
    .await;
    assert_eq!(summary["seats"][0]["name"], "👩👧 Dara", "{summary}");
    let (mut spectator, _) = spectator_hello(&server, &code, " Sok ").await;
    spectator
        .command(
            "chat",
            "c1",
            json!({"channel": "spectators", "text": "hello"}),
        )
        .await;
    let chat = spectator.next_of("chat").await;
    assert_eq!(chat["d"]["name"], "Sok", "{chat}");
    server.shutdown().await;
}

async fn spectator_hello(
    server: &support::server::TestServer,
    code: &str,
    name: &str,
) -> (Client, Value) {
    let mut client = Client::open(server.addr).await;
    client
        .send(&json!({"t": "hello", "d": {"protocol": 1, "room": code, "name": name}}))
        .await;
    let welcome = client.recv().await;
    assert_eq!(welcome["t"], "welcome", "{welcome}");
    (client, welcome)
}
