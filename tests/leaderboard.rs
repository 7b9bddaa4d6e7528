//! The leaderboards on a real server over SQLite and PostgreSQL (`GET /api/leaderboard/{game}`
//! and the page `/leaderboard/{game}`): the top 50 players of a pool by rating, each rating not
//! provisional (deviation at most 110; Weng-Lin's 42σ), each player active in the last 30 days,
//! no deleted or disabled account; ratings of another speed or game elsewhere. The ratings are
//! written straight into the database: 52 rated players take no 52 × 15 games to make.

mod support;

use chrono::{Duration, Utc};
use serde_json::{Value, json};
use support::server::{TestServer, get, get_text};
use uuid::Uuid;

/// Runs `sql` on the database of `url` (PostgreSQL or SQLite).
async fn execute(url: &str, sql: String) {
    use sqlx::Connection;
    let sql = sqlx::AssertSqlSafe(sql);
    if url.starts_with("sqlite:") {
        let mut conn = sqlx::SqliteConnection::connect(url).await.unwrap();
        sqlx::raw_sql(sql).execute(&mut conn).await.unwrap();
    } else {
        let mut conn = sqlx::PgConnection::connect(url).await.unwrap();
        sqlx::raw_sql(sql).execute(&mut conn).await.unwrap();
    }
}

/// A time `days` ago as the stores write it.
fn days_ago(days: i64) -> String {
    (Utc::now() - Duration::days(days))
        .format("%Y-%m-%dT%H:%M:%S%.6fZ")
        .to_string()
}

/// The SQL that makes an account `name` (`state`: `active`, `disabled` or `deleted`) with a
/// rating row of `values` (`game, players, speed, rating, rd, volatility, mu, sigma, games`)
/// whose last game was `days` ago.
fn player(name: &str, state: &str, values: &str, days: i64) -> String {
    let id = Uuid::new_v4();
    let created = days_ago(100);
    let (hash, disabled, deleted) = match state {
        "active" => ("'x'", "NULL".to_owned(), "NULL".to_owned()),
        "disabled" => ("'x'", format!("'{created}'"), "NULL".to_owned()),
        _ => ("NULL", "NULL".to_owned(), format!("'{created}'")),
    };
    format!(
        "INSERT INTO users (id, name, name_key, password_hash, created_at, disabled_at, deleted_at) \
         VALUES ('{id}', '{name}', '{key}', {hash}, '{created}', {disabled}, {deleted}); \
         INSERT INTO ratings (user_id, game, players, speed, rating, rd, volatility, mu, sigma, \
                              games, rated_at) \
         VALUES ('{id}', {values}, '{at}');",
        key = name.to_lowercase(),
        at = days_ago(days),
    )
}

/// The names of a leaderboard's entries, in order.
fn names(board: &Value) -> Vec<String> {
    board
        .as_array()
        .unwrap_or_else(|| panic!("a board: {board}"))
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_owned())
        .collect()
}

async fn scenario(url: &str) {
    let server = TestServer::start(url).await;
    let addr = server.addr;
    let mut sql = String::new();
    // 52 settled, active blitz players: P00 rated 1800, P01 1790, ...; only the top 50 show.
    for i in 0..52 {
        let rating = 1800 - 10 * i;
        let values = format!("'ouk-chatrang', 2, 'blitz', {rating}.4, 60, 0.06, NULL, NULL, 20");
        sql.push_str(&player(&format!("P{i:02}"), "active", &values, i % 29));
    }
    // Better rated than all of them, but left out: provisional, away 31 days, disabled, deleted.
    let top = "'ouk-chatrang', 2, 'blitz', 2500, 60, 0.06, NULL, NULL, 20";
    sql.push_str(&player(
        "Unsettled",
        "active",
        "'ouk-chatrang', 2, 'blitz', 2500, 110.5, 0.06, NULL, NULL, 3",
        0,
    ));
    sql.push_str(&player("Away", "active", top, 31));
    sql.push_str(&player("Barred", "disabled", top, 0));
    sql.push_str(&player("Gone", "deleted", top, 0));
    // Another speed, and three-player Khan-Tsin: settled (42σ = 105) and not (42σ = 126).
    sql.push_str(&player(
        "Rapido",
        "active",
        "'ouk-chatrang', 2, 'rapid', 1700, 110, 0.06, NULL, NULL, 9",
        1,
    ));
    sql.push_str(&player(
        "Trio",
        "active",
        "'khan-tsin', 3, 'rapid', 1584, NULL, NULL, 27, 2.5, 30",
        2,
    ));
    sql.push_str(&player(
        "Newcomer",
        "active",
        "'khan-tsin', 3, 'rapid', 1600, NULL, NULL, 27.4, 3.0, 4",
        2,
    ));
    execute(url, sql).await;

    let (status, answer) = get(addr, "/api/leaderboard/ouk-chatrang?speed=blitz").await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["game"], "ouk-chatrang");
    assert_eq!(
        answer["speeds"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["blitz"]
    );
    let blitz = &answer["speeds"]["blitz"];
    let expected: Vec<String> = (0..50).map(|i| format!("P{i:02}")).collect();
    assert_eq!(names(blitz), expected);
    assert_eq!(blitz[0]["rank"], 1);
    assert_eq!(blitz[0]["rating"], 1800);
    assert_eq!(blitz[0]["deviation"], 60);
    assert_eq!(blitz[0]["games"], 20);
    assert_eq!(
        (&blitz[49]["rank"], &blitz[49]["rating"]),
        (&json!(50), &json!(1310))
    );

    // Without `speed`, every speed; each pool on its own.
    let (_, answer) = get(addr, "/api/leaderboard/ouk-chatrang").await;
    assert_eq!(names(&answer["speeds"]["blitz"]).len(), 50);
    assert_eq!(names(&answer["speeds"]["rapid"]), ["Rapido"]);
    assert_eq!(answer["speeds"]["classical"], json!([]));
    assert_eq!(answer["speeds"]["correspondence"], json!([]));
    let (_, answer) = get(addr, "/api/leaderboard/khan-tsin-3?speed=rapid").await;
    assert_eq!(names(&answer["speeds"]["rapid"]), ["Trio"]);
    assert_eq!(answer["speeds"]["rapid"][0]["deviation"], 105);
    let (_, answer) = get(addr, "/api/leaderboard/khan-tsin?speed=rapid").await;
    assert_eq!(answer["speeds"]["rapid"], json!([]));

    for (path, status, code) in [
        ("/api/leaderboard/chess", 400, "unknown_game"),
        ("/api/leaderboard/khan-3", 400, "unknown_game"),
        ("/api/leaderboard/khan?speed=bullet", 400, "bad_speed"),
        (
            "/api/leaderboard/khan?speed=blitz&speed=rapid",
            400,
            "bad_request",
        ),
        ("/api/leaderboard/khan?limit=3", 400, "bad_request"),
    ] {
        let (got, answer) = get(addr, path).await;
        assert_eq!(
            (got, answer["error"]["code"].as_str()),
            (status, Some(code)),
            "{path}"
        );
    }
    let (status, page) = get_text(addr, "/leaderboard/khan-tsin-3").await;
    assert_eq!(status, 200);
    assert!(page.contains("assets/js/leaderboard.js"), "{page}");
    let (status, _) = get_text(addr, "/leaderboard/chess").await;
    assert_eq!(status, 404);
    server.shutdown().await;
}

#[tokio::test]
async fn leaderboards_on_sqlite() {
    let (_file, url) = support::db::fresh_sqlite_url();
    scenario(&url).await;
}

#[tokio::test]
async fn leaderboards_on_postgres() {
    let database = support::db::fresh_postgres().await;
    scenario(&database.url).await;
}
