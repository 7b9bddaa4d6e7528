//! `POST /api/my-games` on SQLite and PostgreSQL: the rooms of the seat tokens a client holds,
//! each as its seat sees it (whose turn, the result, a correspondence deadline), games in progress
//! with the seat's turn first, then the finished ones; a forged or foreign token is left out
//! exactly as an unknown room is; too many seats or a bad body is `bad_request`.

mod support;

use serde_json::{Value, json};
use support::server::{TestServer, post, room_with_every_seat};
use support::ws::Client;

/// `{"room_id", "seat_token"}` of a seat.
fn held(room_id: &str, token: &str) -> Value {
    json!({"room_id": room_id, "seat_token": token})
}

/// The room ids and `your_turn` of a list of the answer.
fn turns(list: &Value) -> Vec<(String, bool)> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let id = g["room_id"].as_str().unwrap().to_owned();
            (id, g["your_turn"].as_bool().unwrap())
        })
        .collect()
}

async fn a_browsers_games(url: &str) {
    let server = TestServer::start(url).await;
    // Room B: a correspondence game, White (held here) on move. Room A, changed since: White
    // (held here) has moved, Black is on move. Room C: finished, White resigned.
    let clock = json!({"clock": {"days_per_move": 3}});
    let (b, _, tokens_b) = room_with_every_seat(server.addr, "ouk-chatrang", clock).await;
    let (a, code_a, tokens_a) = room_with_every_seat(server.addr, "ouk-chatrang", json!({})).await;
    let (mut white, _) = Client::hello(server.addr, &code_a, Some(&tokens_a[0]), None).await;
    white.send_move("m1", "e3e4", 3).await;
    assert_eq!(white.answer("m1").await["t"], "ack");
    let (c, code_c, tokens_c) = room_with_every_seat(server.addr, "khan", json!({})).await;
    let (mut loser, _) = Client::hello(server.addr, &code_c, Some(&tokens_c[0]), None).await;
    loser.command("resign", "r1", json!({})).await;
    assert_eq!(loser.answer("r1").await["t"], "ack");

    let forged = "0".repeat(32);
    let body = json!({"seats": [
        held(&a, &tokens_a[0]),
        held(&b, &tokens_b[0]),
        held(&c, &tokens_c[0]),
        held(&b, &tokens_b[0]),
        held(&a, &forged),
        held(&c, &tokens_a[1]),
        held("7d3c1a0e-0000-4000-8000-000000000000", &tokens_a[0]),
    ]});
    let (status, games) = post(server.addr, "/api/my-games", &body).await;
    assert_eq!(status, 200, "{games}");
    assert_eq!(
        turns(&games["in_progress"]),
        [(b.clone(), true), (a.clone(), false)],
        "your turn first, each room once, forged and foreign tokens left out"
    );
    assert_eq!(turns(&games["finished"]), [(c.clone(), false)]);
    let room_b = &games["in_progress"][0];
    assert_eq!(room_b["status"], "playing");
    assert_eq!(
        (room_b["seat"].clone(), room_b["to_move"].clone()),
        (json!(0), json!(0))
    );
    assert_eq!(room_b["clock"], json!({"days_per_move": 3}));
    let deadline = chrono::DateTime::parse_from_rfc3339(room_b["deadline"].as_str().unwrap())
        .unwrap()
        .with_timezone(&chrono::Utc);
    let from_now = deadline - chrono::Utc::now();
    assert!(
        from_now <= chrono::Duration::days(3)
            && from_now > chrono::Duration::days(3) - chrono::Duration::minutes(1),
        "{deadline}"
    );
    let room_a = &games["in_progress"][1];
    assert_eq!(room_a["to_move"], 1);
    assert_eq!(room_a["deadline"], Value::Null);
    assert_eq!(room_a["invite_code"], code_a.as_str());
    assert_eq!(
        room_a["players"],
        json!([{"seat": 0, "name": null}, {"seat": 1, "name": null}])
    );
    let room_c = &games["finished"][0];
    assert_eq!(
        room_c["result"],
        json!({"winner": 1, "reason": "resignation"})
    );
    assert_eq!(room_c["to_move"], Value::Null);

    // Black's view of room A: its turn.
    let (_, games) = post(
        server.addr,
        "/api/my-games",
        &json!({"seats": [held(&a, &tokens_a[1])]}),
    )
    .await;
    assert_eq!(turns(&games["in_progress"]), [(a.clone(), true)]);

    // Nothing held: empty lists. Too many seats, a bad room id or an unknown key: bad_request.
    let (status, games) = post(server.addr, "/api/my-games", &json!({"seats": []})).await;
    assert_eq!(status, 200);
    assert_eq!(games, json!({"in_progress": [], "finished": []}));
    let many: Vec<Value> = (0..101).map(|_| held(&a, &forged)).collect();
    for bad in [
        json!({"seats": many}),
        json!({"seats": [{"room_id": "not-a-uuid", "seat_token": forged}]}),
        json!({"seats": [], "user": "dara"}),
    ] {
        let (status, answer) = post(server.addr, "/api/my-games", &bad).await;
        assert_eq!(
            (status, answer["error"]["code"].as_str()),
            (400, Some("bad_request")),
            "{answer}"
        );
    }
    white.close().await;
    loser.close().await;
    server.shutdown().await;
}

#[tokio::test]
async fn a_browsers_games_on_sqlite() {
    let (_file, url) = support::db::fresh_sqlite_url();
    a_browsers_games(&url).await;
}

#[tokio::test]
async fn a_browsers_games_on_postgres() {
    let db = support::db::fresh_postgres().await;
    a_browsers_games(&db.url).await;
}

#[tokio::test]
async fn each_request_counts_as_a_room_look_up() {
    let (_db, server) =
        support::server::sqlite_server_with(|c| c.limits.lookups_per_minute = 2).await;
    let body = json!({"seats": []});
    for _ in 0..2 {
        assert_eq!(post(server.addr, "/api/my-games", &body).await.0, 200);
    }
    let (status, answer) = post(server.addr, "/api/my-games", &body).await;
    assert_eq!(
        (status, answer["error"]["code"].as_str()),
        (429, Some("rate_limited"))
    );
    server.shutdown().await;
}
