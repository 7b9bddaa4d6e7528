//! Every game a player played (`GET /api/users/{username}` and `.../games`), on a real server
//! over SQLite and over PostgreSQL: three accounts play three games to their ends, one of them in
//! a private room; each list holds exactly its user's games newest first, the private one only
//! for its own two players (by session or `read` token), never in a third user's view of either
//! profile, nor in an anonymous one; the filters, the pages and the typed errors.

mod support;

use serde_json::{Value, json};
use support::account::{Auth, api_token, get_as, register, won_by_resignation};
use support::server::TestServer;

/// The room ids of a games answer, in order.
fn rooms(answer: &Value) -> Vec<String> {
    answer["games"]
        .as_array()
        .unwrap_or_else(|| panic!("a games list: {answer}"))
        .iter()
        .map(|g| g["room_id"].as_str().unwrap().to_owned())
        .collect()
}

/// `path` as `auth` sees it: 200 and its body.
async fn seen(server: &TestServer, path: &str, auth: Auth<'_>) -> Value {
    let answer = get_as(server.addr, path, auth).await;
    assert_eq!(answer.status, 200, "{path}: {}", answer.body);
    answer.body
}

/// The profile's tallies, as `[[game, played, wins, draws, losses]]`.
fn tallies(profile: &Value) -> Vec<Value> {
    profile["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| json!([t["game"], t["played"], t["wins"], t["draws"], t["losses"]]))
        .collect()
}

async fn scenario(url: &str) {
    let server = TestServer::start(url).await;
    let addr = server.addr;
    let dara = register(addr, "Dara").await;
    let sok = register(addr, "Sok").await;
    let vann = register(addr, "Vann").await;
    // Rooms are private unless told.
    let g1 = won_by_resignation(addr, &dara, &sok, json!({})).await;
    let clock = json!({"visibility": "public", "clock": {"initial_s": 300, "increment_s": 3}});
    let g2 = won_by_resignation(addr, &sok, &dara, clock).await;
    let g3 = won_by_resignation(addr, &dara, &vann, json!({"visibility": "public"})).await;

    let all = seen(&server, "/api/users/dara/games", Auth::Cookie(&dara)).await;
    assert_eq!(rooms(&all), [g3.as_str(), g2.as_str(), g1.as_str()]);
    assert_eq!(all["next"], Value::Null);
    let first = &all["games"][2];
    assert_eq!(first["visibility"], "private");
    assert_eq!(first["seat"], 0);
    assert_eq!(first["outcome"], "win");
    assert_eq!(first["clock"], Value::Null);
    assert_eq!(
        first["result"],
        json!({"winner": 0, "reason": "resignation"})
    );
    assert_eq!(first["players"][1]["name"], "Sok");
    assert_eq!(first["moves"], 1);
    let second = &all["games"][1];
    assert_eq!(
        (&second["seat"], &second["outcome"], &second["visibility"]),
        (&json!(1), &json!("loss"), &json!("public"))
    );
    assert_eq!(second["clock"], json!({"initial_s": 300, "increment_s": 3}));
    let (_, record) = support::server::get(addr, &format!("/api/games/{g2}")).await;
    assert_eq!(second["players"], record["players"]);
    assert_eq!(second["finished_at"], record["finished_at"]);

    // The private game is in both of its players' lists, by session or by `read` token ...
    let read = api_token(addr, &sok, &["read"]).await;
    let theirs = seen(&server, "/api/users/Sok/games", Auth::Bearer(&read)).await;
    assert_eq!(rooms(&theirs), [g2.as_str(), g1.as_str()]);
    let as_sok = seen(&server, "/api/users/dara/games", Auth::Cookie(&sok)).await;
    assert_eq!(rooms(&as_sok), [g3.as_str(), g2.as_str(), g1.as_str()]);
    // ... and nowhere for a third user or nobody: neither list nor profile.
    for auth in [Auth::Cookie(&vann), Auth::None] {
        let dara_seen = seen(&server, "/api/users/dara/games", auth).await;
        assert_eq!(rooms(&dara_seen), [g3.as_str(), g2.as_str()]);
        let sok_seen = seen(&server, "/api/users/sok/games", auth).await;
        assert_eq!(rooms(&sok_seen), [g2.as_str()]);
        let profile = seen(&server, "/api/users/DARA", auth).await;
        assert_eq!(tallies(&profile), [json!(["ouk-chatrang", 2, 1, 0, 1])]);
        let profile = seen(&server, "/api/users/sok", auth).await;
        assert_eq!(tallies(&profile), [json!(["ouk-chatrang", 1, 1, 0, 0])]);
    }
    let own = seen(&server, "/api/users/dara", Auth::Cookie(&dara)).await;
    assert_eq!(own["name"], "Dara");
    assert_eq!(own["deleted"], false);
    assert_eq!(tallies(&own), [json!(["ouk-chatrang", 3, 2, 0, 1])]);
    let account = get_as(addr, "/api/account", Auth::Cookie(&dara)).await;
    assert_eq!(own["member_since"], account.body["created_at"]);
    let play_only = api_token(addr, &dara, &["play"]).await;
    let refused = get_as(addr, "/api/users/dara/games", Auth::Bearer(&play_only)).await;
    assert_eq!((refused.status, refused.code()), (403, "missing_scope"));

    // Head to head, one game, and the pages.
    let path = "/api/users/dara/games?vs=SOK";
    assert_eq!(
        rooms(&seen(&server, path, Auth::Cookie(&dara)).await),
        [g2.as_str(), g1.as_str()]
    );
    assert_eq!(rooms(&seen(&server, path, Auth::None).await), [g2.as_str()]);
    let path = "/api/users/dara/games?vs=vann";
    assert_eq!(
        rooms(&seen(&server, path, Auth::Cookie(&dara)).await),
        [g3.as_str()]
    );
    let path = "/api/users/dara/games?game=khan";
    assert!(rooms(&seen(&server, path, Auth::Cookie(&dara)).await).is_empty());
    let path = "/api/users/dara/games?game=ouk-chatrang&vs=sok&limit=1";
    let page = seen(&server, path, Auth::Cookie(&dara)).await;
    assert_eq!(
        (rooms(&page), &page["next"]),
        (vec![g2.clone()], &json!(g2))
    );
    let mut before = Value::Null;
    let mut walked = Vec::new();
    loop {
        let cursor = before
            .as_str()
            .map(|b| format!("&before={b}"))
            .unwrap_or_default();
        let path = format!("/api/users/dara/games?limit=1{cursor}");
        let page = seen(&server, &path, Auth::Cookie(&dara)).await;
        walked.extend(rooms(&page));
        before = page["next"].clone();
        if before.is_null() {
            break;
        }
    }
    assert_eq!(walked, [g3.as_str(), g2.as_str(), g1.as_str()]);

    for (path, status, code) in [
        ("/api/users/nobody", 404, "not_found"),
        ("/api/users/nobody/games", 404, "not_found"),
        ("/api/users/dara/games?vs=nobody", 404, "not_found"),
        ("/api/users/dara/games?limit=0", 400, "bad_request"),
        ("/api/users/dara/games?limit=51", 400, "bad_request"),
        ("/api/users/dara/games?game=chess", 400, "bad_request"),
        ("/api/users/dara/games?page=2", 400, "bad_request"),
        ("/api/users/dara/games?before=x", 400, "bad_request"),
        (
            "/api/users/dara/games?before=0b6f3c1e-7d2a-4c39-9a51-2f0e8d6b4a17",
            400,
            "bad_request",
        ),
    ] {
        let answer = get_as(addr, path, Auth::None).await;
        assert_eq!((answer.status, answer.code()), (status, code), "{path}");
    }
    server.shutdown().await;
}

#[tokio::test]
async fn a_players_games_on_sqlite() {
    let (_file, url) = support::db::fresh_sqlite_url();
    scenario(&url).await;
}

#[tokio::test]
async fn a_players_games_on_postgres() {
    let database = support::db::fresh_postgres().await;
    scenario(&database.url).await;
}
