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
    assert_eq!(first["players"][1]["user"], "Sok");
    assert_eq!(first["players"][1].get("deleted"), None);
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
    // A page that holds the last game says so: `next` is null, not a cursor to an empty page.
    let path = "/api/users/dara/games?vs=vann&limit=1";
    let page = seen(&server, path, Auth::Cookie(&dara)).await;
    assert_eq!(
        (rooms(&page), &page["next"]),
        (vec![g3.clone()], &Value::Null)
    );
    let path = "/api/users/dara/games?limit=3";
    assert_eq!(
        seen(&server, path, Auth::Cookie(&dara)).await["next"],
        Value::Null
    );
    let mut before = Value::Null;
    let mut walked = Vec::new();
    let mut pages = 0;
    loop {
        pages += 1;
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
    assert_eq!(pages, 3, "three games, one a page: three pages");

    // Head to head counts what the list shows each viewer: the private game only for its players.
    let h2h = seen(&server, "/api/users/dara/vs/SOK", Auth::Cookie(&sok)).await;
    assert_eq!(
        h2h,
        json!({"user": "Dara", "opponent": "Sok", "games": 2, "wins": 1, "draws": 0, "losses": 1})
    );
    for auth in [Auth::Cookie(&vann), Auth::None] {
        let h2h = seen(&server, "/api/users/sok/vs/dara", auth).await;
        assert_eq!(
            h2h,
            json!({"user": "Sok", "opponent": "Dara", "games": 1, "wins": 1, "draws": 0, "losses": 0})
        );
    }
    let h2h = seen(&server, "/api/users/vann/vs/sok", Auth::None).await;
    assert_eq!((&h2h["games"], &h2h["losses"]), (&json!(0), &json!(0)));

    for (path, status, code) in [
        ("/api/users/nobody", 404, "not_found"),
        ("/api/users/dara/vs/nobody", 404, "not_found"),
        ("/api/users/nobody/vs/dara", 404, "not_found"),
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

    // A deleted account keeps its name and its games, and its profile says it is deleted.
    let record_path = format!("/api/games/{g3}");
    let (_, record_before) = support::server::get(addr, &record_path).await;
    let list_before = seen(&server, "/api/users/dara/games?vs=vann", Auth::None).await;
    assert_eq!(record_before["players"][1]["user"], "Vann");
    let body = json!({"password": "Vann-secret-pw"});
    let path = "/api/account";
    let deleted = support::account::delete_as(addr, path, Auth::Cookie(&vann), Some(&body)).await;
    assert_eq!(deleted.status, 204, "{}", deleted.body);
    let profile = seen(&server, "/api/users/vann", Auth::None).await;
    assert_eq!(
        (&profile["name"], &profile["deleted"]),
        (&json!("Vann"), &json!(true))
    );
    assert_eq!(tallies(&profile), [json!(["ouk-chatrang", 1, 0, 0, 1])]);
    let theirs = seen(&server, "/api/users/vann/games", Auth::None).await;
    assert_eq!(rooms(&theirs), [g3.as_str()]);
    let path = "/api/users/dara/games?vs=vann";
    let list_after = seen(&server, path, Auth::None).await;
    assert_eq!(rooms(&list_after), [g3.as_str()]);
    // The other player's record says the account was deleted, and is otherwise as it was.
    let (_, mut record_after) = support::server::get(addr, &record_path).await;
    let mut game_after = list_after["games"][0].clone();
    for deleted_player in [
        &mut record_after["players"][1],
        &mut game_after["players"][1],
    ] {
        let marked = deleted_player.as_object_mut().unwrap().remove("deleted");
        assert_eq!(marked, Some(json!(true)));
    }
    assert_eq!(record_after.to_string(), record_before.to_string());
    assert_eq!(game_after.to_string(), list_before["games"][0].to_string());
    assert_eq!(record_after["players"][0].get("deleted"), None);
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

/// The body of `GET path` as `auth` sees it, as text.
async fn text_of(server: &TestServer, path: &str, auth: Auth<'_>) -> String {
    let mut request = reqwest::Client::new().get(server.http(path));
    if let Auth::Cookie(token) = auth {
        request = request.header("cookie", format!("khanate_session={token}"));
    }
    let response = request.send().await.expect("request");
    assert_eq!(response.status(), 200, "{path}");
    response.text().await.expect("a body")
}

/// More games than one export page: games.ndjson is every game of the paged list, in its order,
/// a record a line; games.pgn is every game's own PGN, in that order, apart by a blank line.
#[tokio::test]
async fn the_exports_stream_every_game_over_several_pages() {
    let (_db, server) = support::server::sqlite_server_with(|_| {}).await;
    let addr = server.addr;
    let dara = register(addr, "Dara").await;
    let sok = register(addr, "Sok").await;
    for i in 0..52 {
        let options = json!({"visibility": if i % 2 == 0 { "public" } else { "private" }});
        match i % 3 {
            0 => won_by_resignation(addr, &sok, &dara, options).await,
            _ => won_by_resignation(addr, &dara, &sok, options).await,
        };
    }
    for auth in [Auth::Cookie(&dara), Auth::None] {
        let mut listed = Vec::new();
        let mut cursor = String::new();
        loop {
            let page = seen(&server, &format!("/api/users/dara/games?{cursor}"), auth).await;
            listed.extend(page["games"].as_array().unwrap().iter().cloned());
            match page["next"].as_str() {
                Some(next) => cursor = format!("before={next}"),
                None => break,
            }
        }
        assert_eq!(
            listed.len(),
            if matches!(auth, Auth::None) { 26 } else { 52 }
        );
        let ndjson = text_of(&server, "/api/users/dara/games.ndjson", auth).await;
        let lines: Vec<Value> = ndjson
            .lines()
            .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}")))
            .collect();
        assert_eq!(lines.len(), listed.len(), "one line a game");
        assert_eq!(lines, listed);
        let mut want = Vec::new();
        for game in &listed {
            let id = game["room_id"].as_str().unwrap();
            let (_, pgn) = support::server::get_text(addr, &format!("/api/games/{id}/pgn")).await;
            want.push(pgn);
        }
        let pgn = text_of(&server, "/api/users/dara/games.pgn", auth).await;
        assert_eq!(pgn, want.join("\n"));
    }
    for (path, status, code) in [
        ("/api/users/nobody/games.ndjson", 404, "not_found"),
        ("/api/users/dara/games.pgn?vs=nobody", 404, "not_found"),
        ("/api/users/dara/games.ndjson?limit=5", 400, "bad_request"),
        ("/api/users/dara/games.pgn?game=khan", 400, "bad_request"),
    ] {
        let answer = get_as(addr, path, Auth::None).await;
        assert_eq!((answer.status, answer.code()), (status, code), "{path}");
    }
    // games.pgn takes no game= either, so the refusal of a page names only what both refuse.
    let answer = get_as(addr, "/api/users/dara/games.pgn?limit=1", Auth::None).await;
    assert_eq!(
        answer.body["error"]["message"], "an export is every game: it takes no limit= or before=",
        "{}",
        answer.body
    );
    server.shutdown().await;
}

/// "My games" of a logged-in player comes from the account's seats too: with no seat token in
/// the body, the session (or a `read` token) finds the account's games in progress and
/// finished; another account's session or none finds nothing, a token without `read` is 403.
#[tokio::test]
async fn my_games_of_a_logged_in_player_come_from_the_account() {
    let (_db, server) = support::server::sqlite_server_with(|_| {}).await;
    let addr = server.addr;
    let dara = register(addr, "Dara").await;
    let sok = register(addr, "Sok").await;
    let vann = register(addr, "Vann").await;
    let finished = won_by_resignation(addr, &dara, &sok, json!({})).await;
    let body = json!({"game": "khan"});
    let waiting = support::account::post_as(addr, "/api/rooms", Auth::Cookie(&dara), &body).await;
    assert_eq!(waiting.status, 201, "{}", waiting.body);
    let waiting = waiting.body["room_id"].as_str().unwrap().to_owned();
    let body = json!({"seats": []});
    let ids = |list: &Value| -> Vec<String> {
        list.as_array()
            .unwrap()
            .iter()
            .map(|g| g["room_id"].as_str().unwrap().to_owned())
            .collect()
    };
    let read = api_token(addr, &dara, &["read"]).await;
    for auth in [Auth::Cookie(&dara), Auth::Bearer(&read)] {
        let mine = support::account::post_as(addr, "/api/my-games", auth, &body).await;
        assert_eq!(mine.status, 200, "{}", mine.body);
        assert_eq!(ids(&mine.body["in_progress"]), [waiting.as_str()]);
        assert_eq!(ids(&mine.body["finished"]), [finished.as_str()]);
        assert_eq!(mine.body["finished"][0]["seat"], 0);
    }
    let theirs = support::account::post_as(addr, "/api/my-games", Auth::Cookie(&sok), &body).await;
    assert_eq!(ids(&theirs.body["finished"]), [finished.as_str()]);
    assert_eq!(theirs.body["finished"][0]["seat"], 1);
    assert!(ids(&theirs.body["in_progress"]).is_empty());
    for auth in [Auth::Cookie(&vann), Auth::None] {
        let none = support::account::post_as(addr, "/api/my-games", auth, &body).await;
        assert_eq!(none.body, json!({"in_progress": [], "finished": []}));
    }
    let play_only = api_token(addr, &dara, &["play"]).await;
    let refused =
        support::account::post_as(addr, "/api/my-games", Auth::Bearer(&play_only), &body).await;
    assert_eq!((refused.status, refused.code()), (403, "missing_scope"));
    server.shutdown().await;
}
