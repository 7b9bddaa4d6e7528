//! An account's export, and what deleting an account leaves: two accounts play a game to its end;
//! the export (a `read` token) has it as `GET /api/games/{id}` gives it and its PGN exactly as
//! `GET /api/games/{id}/pgn`; after one player deletes the account the game stays, whole, for
//! the other, its player marked deleted.

mod support;

use serde_json::json;
use support::account::{Auth, api_token, delete_as, get_as, register, won_by_resignation};
use support::server::{get, get_text, sqlite_server_with};

#[tokio::test]
async fn the_export_holds_every_game_and_a_deleted_account_leaves_them_to_the_opponent() {
    let (_db, server) = sqlite_server_with(|_| {}).await;
    let dara = register(server.addr, "Dara").await;
    let sok = register(server.addr, "Sok").await;
    let room_id = won_by_resignation(server.addr, &dara, &sok, json!({})).await;

    let read = api_token(server.addr, &dara, &["read"]).await;
    let export = get_as(server.addr, "/api/account/export", Auth::Bearer(&read)).await;
    assert_eq!(export.status, 200, "{}", export.body);
    assert_eq!(export.body["account"]["name"], "Dara");
    let (_, record) = get(server.addr, &format!("/api/games/{room_id}")).await;
    assert_eq!(export.body["games"], json!([record.clone()]));
    assert_eq!(
        record["result"],
        json!({"winner": 0, "reason": "resignation"})
    );
    let (_, pgn) = get_text(server.addr, &format!("/api/games/{room_id}/pgn")).await;
    assert_eq!(export.body["pgn"], json!(pgn));
    assert!(
        pgn.contains("[White \"Dara\"]") && pgn.contains("[Black \"Sok\"]"),
        "{pgn}"
    );
    assert!(
        !export.body.to_string().contains(&read[4..]),
        "no secret in the export"
    );

    let body = json!({"password": "Dara-secret-pw"});
    let deleted = delete_as(
        server.addr,
        "/api/account",
        Auth::Cookie(&dara),
        Some(&body),
    )
    .await;
    assert_eq!(deleted.status, 204);
    let (status, after) = get(server.addr, &format!("/api/games/{room_id}")).await;
    assert_eq!(status, 200);
    // The game stays as it was, but for the deleted player's mark (pages show "deleted player").
    let mut unmarked = after.clone();
    let mark = unmarked["players"][0]
        .as_object_mut()
        .unwrap()
        .remove("deleted");
    assert_eq!(mark, Some(json!(true)), "{after}");
    assert_eq!(
        unmarked.to_string(),
        record.to_string(),
        "the game stays as it was"
    );
    let theirs = get_as(server.addr, "/api/account/export", Auth::Cookie(&sok)).await;
    assert_eq!(theirs.body["games"], json!([after]));
}
