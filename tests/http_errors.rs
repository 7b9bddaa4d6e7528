//! Every error of the HTTP API is the typed body `{"error": {"code", "message"}}` with its status,
//! whatever refused the request (a handler, the router, an extractor, a body limit), and every
//! such (status, code) is listed in `docs/protocol.md`. JSON with a key twice is refused, over REST
//! and over the WebSocket, so a filtering proxy and the server never read different requests.

mod support;

use reqwest::Method;
use serde_json::{Value, json};
use support::server::{sqlite_server_with, two_player_room};
use support::ws::Client;

/// The (status, code) of an error answer, after checking it is the typed JSON body.
async fn typed_error(response: reqwest::Response) -> (u16, String) {
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let text = response.text().await.expect("a body");
    assert!(
        content_type.starts_with("application/json"),
        "{status}: {content_type:?} {text:?}"
    );
    let body: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    let code = body["error"]["code"]
        .as_str()
        .unwrap_or_else(|| panic!("{body}"));
    assert!(body["error"]["message"].is_string(), "{body}");
    (status, code.to_owned())
}

/// The status and codes the doc's REST error table lists, as `(status, code)`.
fn documented_errors() -> Vec<(u16, String)> {
    let doc = include_str!("../docs/protocol.md");
    let rest = doc.split("### Errors").nth(1).expect("an Errors section");
    rest.lines()
        .take_while(|line| !line.starts_with("## "))
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let status = cells.get(1)?.parse().ok()?;
            Some((status, cells.get(2)?.trim_matches('`').to_owned()))
        })
        .collect()
}

#[tokio::test]
async fn every_refusal_is_a_typed_json_error_listed_in_the_protocol_doc() {
    let (_db, server) = sqlite_server_with(|_| {}).await;
    let (_, code, _, _) = two_player_room(server.addr, json!({})).await;
    let client = reqwest::Client::new();
    let url = |path: &str| server.http(path);
    let json_post = |path: &str, body: String| {
        client
            .post(url(path))
            .header("content-type", "application/json")
            .body(body)
    };
    let cases: Vec<(&str, reqwest::RequestBuilder, u16, &str)> = vec![
        (
            "a body over 16 KiB",
            json_post(
                "/api/rooms",
                format!("{{\"game\": \"{}\"}}", "x".repeat(20_000)),
            ),
            413,
            "body_too_large",
        ),
        (
            "a method the path does not have",
            client.request(Method::DELETE, url("/api/rooms")),
            405,
            "method_not_allowed",
        ),
        (
            "PUT on a page",
            client.put(url("/")),
            405,
            "method_not_allowed",
        ),
        (
            "an unknown asset",
            client.get(url("/assets/nothing.js")),
            404,
            "not_found",
        ),
        (
            "an unknown path",
            client.get(url("/no/such/path")),
            404,
            "not_found",
        ),
        (
            "a path that is not UTF-8",
            client.get(url("/r/%ff%fe")),
            404,
            "not_found",
        ),
        (
            "an API path that is not UTF-8",
            client.get(url("/api/rooms/%ff%fe")),
            404,
            "not_found",
        ),
        (
            "a create without a JSON content type",
            client.post(url("/api/rooms")).body(r#"{"game": "khan"}"#),
            415,
            "unsupported_media_type",
        ),
        (
            "a create sent as a form",
            client
                .post(url("/api/rooms"))
                .header("content-type", "application/x-www-form-urlencoded")
                .body("game=khan"),
            415,
            "unsupported_media_type",
        ),
        (
            "a join sent as text",
            client
                .post(url(&format!("/api/rooms/{code}/join")))
                .header("content-type", "text/plain")
                .body("{}"),
            415,
            "unsupported_media_type",
        ),
        (
            "an empty join without a content type",
            client.post(url(&format!("/api/rooms/{code}/join"))),
            415,
            "unsupported_media_type",
        ),
        (
            "a key given twice",
            json_post(
                "/api/rooms",
                r#"{"game": "khan", "game": "ouk-chatrang"}"#.into(),
            ),
            400,
            "bad_request",
        ),
        (
            "a key given twice inside options",
            json_post(
                "/api/rooms",
                r#"{"game": "khan", "options": {"layout": "a", "layout": "b"}}"#.into(),
            ),
            400,
            "bad_request",
        ),
        (
            "a WebSocket path without an upgrade",
            client.get(url("/ws")),
            400,
            "bad_request",
        ),
        (
            "an unknown room",
            client.get(url("/api/rooms/zzzzzzzz")),
            404,
            "not_found",
        ),
    ];
    let documented = documented_errors();
    for (what, request, status, code) in cases {
        let answer = typed_error(request.send().await.expect("an answer")).await;
        assert_eq!(answer, (status, code.to_owned()), "{what}");
        assert!(
            documented.contains(&answer),
            "{what}: {answer:?} is not in docs/protocol.md's REST error table {documented:?}"
        );
    }
    let (status, created) = support::server::post(
        server.addr,
        "/api/rooms",
        &json!({"game": "khan", "options": {}}),
    )
    .await;
    assert_eq!(
        status, 201,
        "a JSON create with its content type: {created}"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn a_websocket_frame_with_a_key_twice_is_a_bad_message() {
    let (_db, server) = sqlite_server_with(|_| {}).await;
    let (_, code, white, _) = two_player_room(server.addr, json!({})).await;
    let (mut client, _) = Client::hello(server.addr, &code, Some(&white), None).await;
    client.next_of("snapshot").await;
    client
        .send_text(r#"{"t": "chat", "cid": "c1", "d": {"channel": "players", "text": "hi", "text": "bye"}}"#)
        .await;
    let reject = client.next_of("reject").await;
    assert_eq!(reject["d"]["code"], "bad_message", "{reject}");
    assert_eq!(reject["d"]["cid"], Value::Null);
    client.send_text(r#"{"t": "resign", "t": "ping"}"#).await;
    assert_eq!(client.next_of("reject").await["d"]["code"], "bad_message");
    // The connection goes on: the same chat said once is played.
    client
        .command("chat", "c2", json!({"channel": "players", "text": "hi"}))
        .await;
    assert_eq!(client.answer("c2").await["t"], "ack");
    server.shutdown().await;
}
