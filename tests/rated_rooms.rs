//! Rated rooms on a real server over SQLite and PostgreSQL: `"rated": true` is only for a
//! logged-in creator, with a clock, from the standard start, without bots (each refusal typed,
//! nothing created); the room summary and the snapshot say `rated`; every seat is a different
//! logged-in player's (an anonymous join is 401 `login_required`, the creator's own account 409
//! `already_seated`, a bot `cannot_add_bot`), a takeback is `rated_game`, and `Store::ratings_of` gives a player without a
//! rated game the default rating and a player with stored ratings those, per pool.

mod support;

use khanate::ratings::{RatingPool, Skill, Speed};
use khanate::rules::GameKind;
use serde_json::{Value, json};
use support::account::{Auth, hello_as, post_as, register};
use support::server::{TestServer, get};

const BLITZ: &str = r#"{"initial_s": 300, "increment_s": 2}"#;

/// A create body for a rated room of `game` with `extra` keys.
fn rated(game: &str, extra: Value) -> Value {
    let clock: Value = serde_json::from_str(BLITZ).unwrap();
    let mut body = json!({"game": game, "rated": true, "clock": clock});
    if let (Value::Object(body), Value::Object(extra)) = (&mut body, extra) {
        body.extend(extra);
    }
    body
}

async fn scenario(url: &str) {
    let server = TestServer::start(url).await;
    let addr = server.addr;
    let dara = register(addr, "Dara").await;
    let sok = register(addr, "Sok").await;

    // Each refusal is typed, and creates nothing.
    let refusals = [
        (Auth::None, rated("khan", json!({})), 401, "login_required"),
        (
            Auth::Cookie(&dara),
            rated("khan", json!({"clock": null})),
            400,
            "rated_needs_clock",
        ),
        (
            Auth::Cookie(&dara),
            json!({"game": "khan", "rated": true}),
            400,
            "rated_needs_clock",
        ),
        (
            Auth::Cookie(&dara),
            rated(
                "ouk-chatrang",
                json!({"options": {"start_position": "8/8/4k3/8/2R5/4K3/8/8 w - - 0 1"}}),
            ),
            400,
            "rated_start_position",
        ),
        (
            Auth::Cookie(&dara),
            rated(
                "khan",
                json!({"seat": 0, "bots": [{"seat": 1, "level": 1}]}),
            ),
            400,
            "rated_bots",
        ),
        (
            Auth::Cookie(&dara),
            rated("khan", json!({"rated": "yes"})),
            400,
            "bad_request",
        ),
        (
            Auth::Cookie(&dara),
            rated("khan", json!({"options": {"rated": true}})),
            400,
            "bad_request",
        ),
    ];
    for (auth, body, status, code) in refusals {
        let answer = post_as(addr, "/api/rooms", auth, &body).await;
        assert_eq!((answer.status, answer.code()), (status, code), "{body}");
    }
    let (_, lobby) = get(addr, "/api/rooms").await;
    assert_eq!(lobby["rooms"], json!([]));

    // A rated room, and an unrated one beside it.
    let created = post_as(
        addr,
        "/api/rooms",
        Auth::Cookie(&dara),
        &rated("ouk-chatrang", json!({"seat": "white"})),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.body);
    let code = created.body["invite_code"].as_str().unwrap().to_owned();
    let (_, summary) = get(addr, &format!("/api/rooms/{code}")).await;
    assert_eq!(summary["rated"], true);
    let casual = post_as(
        addr,
        "/api/rooms",
        Auth::Cookie(&dara),
        &json!({"game": "khan"}),
    )
    .await;
    let casual_code = casual.body["invite_code"].as_str().unwrap();
    let (_, summary) = get(addr, &format!("/api/rooms/{casual_code}")).await;
    assert_eq!(summary["rated"], false);

    // Nobody anonymous, and not the creator's own account again, takes the other seat.
    let join = format!("/api/rooms/{code}/join");
    let anonymous = post_as(addr, &join, Auth::None, &json!({"name": "Guest"})).await;
    assert_eq!(
        (anonymous.status, anonymous.code()),
        (401, "login_required")
    );
    let again = post_as(addr, &join, Auth::Cookie(&dara), &json!({})).await;
    assert_eq!((again.status, again.code()), (409, "already_seated"));
    let (_, summary) = get(addr, &format!("/api/rooms/{code}")).await;
    assert_eq!(
        (
            &summary["status"],
            &summary["version"],
            &summary["seats"][1]["taken"]
        ),
        (&json!("waiting"), &json!(1), &json!(false))
    );
    let joined = post_as(addr, &join, Auth::Cookie(&sok), &json!({})).await;
    assert_eq!(joined.status, 200, "{}", joined.body);
    let (_, summary) = get(addr, &format!("/api/rooms/{code}")).await;
    assert_eq!(summary["status"], "playing");
    // Moves are not taken back in a rated game.
    let (mut white, welcome) = hello_as(addr, Some(&dara), json!({"room": code})).await;
    assert_eq!(welcome["d"]["seat"], 0, "{welcome}");
    let v = welcome["d"]["version"].as_i64().unwrap();
    white.send_move("m1", "e3e4", v).await;
    assert_eq!(white.answer("m1").await["t"], "ack");
    white.command("offer_takeback", "t1", json!({})).await;
    let answer = white.answer("t1").await;
    assert_eq!(answer["d"]["code"], "rated_game", "{answer}");

    // No bot takes a seat of a rated room that waits.
    let three = post_as(
        addr,
        "/api/rooms",
        Auth::Cookie(&dara),
        &rated("khan-tsin", json!({"seats": 3, "seat": 0})),
    )
    .await;
    assert_eq!(three.status, 201, "{}", three.body);
    let three_code = three.body["invite_code"].as_str().unwrap();
    let (mut client, welcome) = hello_as(addr, Some(&dara), json!({"room": three_code})).await;
    assert_eq!(welcome["t"], "welcome", "{welcome}");
    let snapshot = client.next_of("snapshot").await;
    assert_eq!(snapshot["d"]["rated"], true, "{snapshot}");
    client
        .command("add_bot", "b1", json!({"seat": 1, "level": 2}))
        .await;
    let answer = client.answer("b1").await;
    assert_eq!(
        (&answer["t"], &answer["d"]["code"]),
        (&json!("reject"), &json!("cannot_add_bot")),
        "{answer}"
    );

    // Neither player has a rated game: both have the default rating.
    let mut users = Vec::new();
    for name in ["dara", "sok"] {
        users.push(server.store.user_by_name(name).await.unwrap().unwrap().id);
    }
    let pool = RatingPool {
        game: GameKind::OukChatrang,
        players: 2,
        speed: Speed::Blitz,
    };
    let ratings = server.store.ratings_of(&users, pool).await.unwrap();
    assert_eq!(ratings.len(), 2);
    for user in &users {
        let rating = ratings[user];
        assert_eq!(
            (
                rating.rating,
                rating.deviation,
                rating.provisional,
                rating.games
            ),
            (1500.0, 350.0, true, 0)
        );
        assert!(matches!(rating.skill, Skill::Glicko2(_)));
        assert_eq!(rating.rated_at, None);
    }

    // Stored ratings read back, each in its own pool: Glicko-2 and Weng-Lin.
    let (dara_id, sok_id) = (users[0], users[1]);
    execute(
        url,
        &format!(
            "INSERT INTO ratings (user_id, game, players, speed, rating, rd, volatility, games, \
                                  rated_at) \
             VALUES ('{dara_id}', 'ouk-chatrang', 2, 'blitz', 1623.5, 80.25, 0.0599, 12, \
                     '2026-12-01T10:00:00.000000Z')"
        ),
    )
    .await;
    execute(
        url,
        &format!(
            "INSERT INTO ratings (user_id, game, players, speed, rating, mu, sigma, games, \
                                  rated_at) \
             VALUES ('{sok_id}', 'khan-tsin', 3, 'rapid', 1584.0, 27.0, 2.5, 30, \
                     '2026-12-02T10:00:00.000000Z')"
        ),
    )
    .await;
    let ratings = server.store.ratings_of(&users, pool).await.unwrap();
    let dara_blitz = ratings[&dara_id];
    assert_eq!(
        (
            dara_blitz.rating,
            dara_blitz.deviation,
            dara_blitz.provisional,
            dara_blitz.games
        ),
        (1623.5, 80.25, false, 12)
    );
    assert_eq!(
        dara_blitz.rated_at.map(|t| t.to_rfc3339()),
        Some("2026-12-01T10:00:00+00:00".to_owned())
    );
    assert_eq!(ratings[&sok_id].games, 0);
    let three = RatingPool {
        game: GameKind::KhanTsin,
        players: 3,
        speed: Speed::Rapid,
    };
    let ratings = server.store.ratings_of(&users, three).await.unwrap();
    let sok_three = ratings[&sok_id];
    // 1500 + 42 × (27 − 25) = 1584, deviation 42 × 2.5 = 105.
    assert_eq!(
        (
            sok_three.rating,
            sok_three.deviation,
            sok_three.provisional,
            sok_three.games
        ),
        (1584.0, 105.0, false, 30)
    );
    assert!(matches!(sok_three.skill, Skill::WengLin(_)));
    assert_eq!(
        (ratings[&dara_id].rating, ratings[&dara_id].provisional),
        (1500.0, true)
    );
    server.shutdown().await;
}

/// Runs `sql` on the database of `url` (PostgreSQL or SQLite).
async fn execute(url: &str, sql: &str) {
    use sqlx::Connection;
    if url.starts_with("sqlite:") {
        let mut conn = sqlx::SqliteConnection::connect(url).await.unwrap();
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_owned()))
            .execute(&mut conn)
            .await
            .unwrap();
    } else {
        let mut conn = sqlx::PgConnection::connect(url).await.unwrap();
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_owned()))
            .execute(&mut conn)
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn rated_rooms_on_sqlite() {
    let (_file, url) = support::db::fresh_sqlite_url();
    scenario(&url).await;
}

#[tokio::test]
async fn rated_rooms_on_postgres() {
    let database = support::db::fresh_postgres().await;
    scenario(&database.url).await;
}
