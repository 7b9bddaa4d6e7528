//! Every example in `docs/protocol.md` is a real message: client examples are accepted by the
//! server's frame parser, server examples round-trip exactly through the server's own types (so a
//! renamed or missing field fails here) and parse as `ServerFrame`s, and HTTP examples are valid
//! JSON; the account examples are sent to a real server, which takes every request example and
//! answers with exactly the keys of every answer example.

mod support;

use khanate::protocol::{
    Ack, ChatHistory, ChatMessage, ErrorInfo, Event, Incoming, Presence, Reject, SeatLag,
    ServerFrame, Snapshot, SpectatorCount, Welcome, parse_incoming,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// The fenced blocks of the document, as (info string, body).
fn blocks(markdown: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in markdown.lines() {
        match (&mut current, line.strip_prefix("```")) {
            (None, Some(info)) => current = Some((info.trim().to_owned(), String::new())),
            (Some(_), Some(_)) => out.extend(current.take()),
            (Some((_, body)), None) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    out
}

/// `d` must deserialize into `T` and serialize back to exactly `d`.
fn round_trips<T: Serialize + DeserializeOwned>(d: &Value) {
    let typed: T = serde_json::from_value(d.clone()).unwrap_or_else(|e| panic!("{d}: {e}"));
    assert_eq!(&serde_json::to_value(typed).unwrap(), d);
}

fn check_server_frame(frame: &Value) {
    let t = frame["t"].as_str().expect("a type");
    let d = &frame["d"];
    // As a client of the server's own (its bots) reads it.
    let parsed = ServerFrame::parse(&frame.to_string()).unwrap_or_else(|e| panic!("{frame}: {e}"));
    assert_eq!(parsed.kind(), t);
    match t {
        "welcome" => round_trips::<Welcome>(d),
        "snapshot" => round_trips::<Snapshot>(d),
        "presence" => round_trips::<Presence>(d),
        "ack" => round_trips::<Ack>(d),
        "reject" => round_trips::<Reject>(d),
        "error" => round_trips::<ErrorInfo>(d),
        "pong" => assert_eq!(d, &json!({})),
        "chat" => round_trips::<ChatMessage>(d),
        "chat_history" => round_trips::<ChatHistory>(d),
        "spectators" => round_trips::<SpectatorCount>(d),
        "lag" => round_trips::<SeatLag>(d),
        _ => {
            let mut public = d.clone();
            if let Value::Object(map) = &mut public {
                map.remove("legal_moves");
            }
            let event =
                Event::from_parts(t, public.clone()).unwrap_or_else(|e| panic!("{frame}: {e}"));
            assert_eq!(event.data(), public, "{t} round trip");
            assert!(frame["v"].as_i64().is_some(), "{t} is versioned");
        }
    }
    let versioned = [
        "snapshot",
        "seat_taken",
        "seat_account",
        "game_started",
        "moved",
        "offer",
        "offer_declined",
        "offer_accepted",
        "skipped",
        "left",
        "game_over",
        "rematch",
        "spectator_chat",
        "taken_back",
    ];
    assert_eq!(
        frame.get("v").is_some(),
        versioned.contains(&t),
        "{t}: v present only on versioned frames"
    );
}

#[test]
fn every_example_in_the_protocol_doc_is_a_real_message() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/protocol.md");
    let text = std::fs::read_to_string(path).expect("docs/protocol.md");
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    for (info, body) in blocks(&text) {
        match info.as_str() {
            "json client" => {
                let parsed =
                    parse_incoming(&body).unwrap_or_else(|e| panic!("{body}: {}", e.message));
                let t = serde_json::from_str::<Value>(&body).unwrap()["t"]
                    .as_str()
                    .unwrap()
                    .to_owned();
                let parsed_as = match parsed {
                    Incoming::Hello(_) => "hello",
                    Incoming::Ping => "ping",
                    Incoming::Command { command, .. } => command.name(),
                };
                assert_eq!(parsed_as, t, "{body}");
                *seen.entry(format!("client {t}")).or_default() += 1;
            }
            "json server" => {
                let frame: Value =
                    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{body}: {e}"));
                check_server_frame(&frame);
                *seen
                    .entry(format!("server {}", frame["t"].as_str().unwrap()))
                    .or_default() += 1;
            }
            "json http" => {
                serde_json::from_str::<Value>(&body).unwrap_or_else(|e| panic!("{body}: {e}"));
                *seen.entry("http".into()).or_default() += 1;
            }
            _ => {}
        }
    }
    let client = [
        "hello",
        "move",
        "resign",
        "offer_draw",
        "accept",
        "decline",
        "claim_draw",
        "abort",
        "offer_rematch",
        "offer_takeback",
        "chat",
        "set_spectator_chat",
        "ping",
    ];
    let server = [
        "welcome",
        "snapshot",
        "seat_taken",
        "game_started",
        "moved",
        "offer",
        "offer_declined",
        "offer_accepted",
        "skipped",
        "left",
        "game_over",
        "rematch",
        "spectator_chat",
        "taken_back",
        "chat",
        "chat_history",
        "spectators",
        "lag",
        "presence",
        "ack",
        "reject",
        "error",
        "pong",
    ];
    for t in client {
        assert!(
            seen.contains_key(&format!("client {t}")),
            "no client example of {t}"
        );
    }
    for t in server {
        assert!(
            seen.contains_key(&format!("server {t}")),
            "no server example of {t}"
        );
    }
    assert!(seen["http"] >= 6, "REST examples");
}

/// The examples of kind `info` (`json http`: REST; `json site`: site channel frames) of the
/// section headed `### {title}`, in order.
fn section_examples(markdown: &str, title: &str, info: &str) -> Vec<Value> {
    let start = markdown
        .find(&format!("### {title}\n"))
        .unwrap_or_else(|| panic!("a section {title}"));
    let rest = &markdown[start + title.len() + 5..];
    let end = rest.find("\n### ").unwrap_or(rest.len());
    blocks(&rest[..end])
        .into_iter()
        .filter(|(kind, _)| kind == info)
        .map(|(_, body)| serde_json::from_str(&body).unwrap_or_else(|e| panic!("{body}: {e}")))
        .collect()
}

/// The keys of `v`, at every depth (the first element standing for an array's).
fn shape(v: &Value) -> Value {
    match v {
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), shape(v))).collect())
        }
        Value::Array(items) => Value::Array(items.first().map(shape).into_iter().collect()),
        _ => Value::Null,
    }
}

#[tokio::test]
async fn the_account_examples_are_what_the_server_takes_and_answers() {
    use reqwest::Method;
    use support::account::{Auth, send};

    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/protocol.md");
    let text = std::fs::read_to_string(path).expect("docs/protocol.md");
    let examples = section_examples(&text, "Accounts", "json http");
    let [
        register,
        account,
        limited,
        password,
        sessions,
        token_request,
        token,
        attach_request,
        attached,
        delete,
    ] = <[Value; 10]>::try_from(examples).expect("the ten examples of the Accounts section");
    let (_db, server) = support::server::sqlite_server_with(|_| {}).await;
    let addr = server.addr;
    let call = |method: Method, path: &'static str, auth: Auth<'static>, body: Option<Value>| async move {
        send(addr, method, path, auth, None, body.as_ref()).await
    };
    let created = call(
        Method::POST,
        "/api/account/register",
        Auth::None,
        Some(register.clone()),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.body);
    assert_eq!(shape(&created.body), shape(&account));
    let cookie: &'static str = Box::leak(created.session_token().into_boxed_str());
    let made = call(
        Method::POST,
        "/api/account/tokens",
        Auth::Cookie(cookie),
        Some(token_request.clone()),
    )
    .await;
    assert_eq!(made.status, 201, "{}", made.body);
    assert_eq!(shape(&made.body), shape(&token));
    assert_eq!(made.body["scopes"], token["scopes"]);
    let listed = call(
        Method::GET,
        "/api/account/sessions",
        Auth::Cookie(cookie),
        None,
    )
    .await;
    assert_eq!(shape(&listed.body), shape(&sessions));
    let attach = call(
        Method::POST,
        "/api/account/attach",
        Auth::Cookie(cookie),
        Some(attach_request.clone()),
    )
    .await;
    assert_eq!(shape(&attach.body)["refused"], shape(&attached)["refused"]);
    let changed = call(
        Method::POST,
        "/api/account/password",
        Auth::Cookie(cookie),
        Some(password.clone()),
    )
    .await;
    assert_eq!(changed.status, 204, "{}", changed.body);
    let mut wrong = register.clone();
    wrong["password"] = json!("not the password");
    let mut answer = call(
        Method::POST,
        "/api/account/login",
        Auth::None,
        Some(wrong.clone()),
    )
    .await;
    while answer.status == 401 {
        answer = call(
            Method::POST,
            "/api/account/login",
            Auth::None,
            Some(wrong.clone()),
        )
        .await;
    }
    assert_eq!(answer.status, 429);
    assert_eq!(shape(&answer.body), shape(&limited));
    let deleted = call(
        Method::DELETE,
        "/api/account",
        Auth::Cookie(cookie),
        Some(delete.clone()),
    )
    .await;
    assert_eq!(deleted.status, 204, "{}", deleted.body);
}

#[tokio::test]
async fn the_player_examples_are_what_the_server_answers() {
    use support::account::{Auth, get_as, register, won_by_resignation_after};

    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/protocol.md");
    let text = std::fs::read_to_string(path).expect("docs/protocol.md");
    let [profile, games, h2h, history] =
        <[Value; 4]>::try_from(section_examples(&text, "Players", "json http"))
            .expect("the four examples of the Players section");
    let [leaderboard] =
        <[Value; 1]>::try_from(section_examples(&text, "Leaderboards", "json http"))
            .expect("the example of the Leaderboards section");
    let ((_file, url), server) = support::server::sqlite_server_with(|_| {}).await;
    let dara = register(server.addr, "Dara").await;
    let sok = register(server.addr, "Sok").await;
    let options = json!({"visibility": "private", "rated": true,
                         "clock": {"initial_s": 300, "increment_s": 3}});
    won_by_resignation_after(server.addr, &dara, &sok, options, &["e3e4", "d6d5"]).await;
    let answer = get_as(server.addr, "/api/users/dara", Auth::Cookie(&dara)).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(shape(&answer.body), shape(&profile));
    let answer = get_as(server.addr, "/api/users/dara/games", Auth::Cookie(&dara)).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(shape(&answer.body), shape(&games));
    let answer = get_as(server.addr, "/api/users/dara/vs/sok", Auth::Cookie(&dara)).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(shape(&answer.body), shape(&h2h));
    assert_eq!(answer.body["opponent"], h2h["opponent"]);
    let answer = get_as(server.addr, "/api/users/dara/rating-history", Auth::None).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(shape(&answer.body), shape(&history));
    // One game leaves both provisional: settle them in the database, so that the leaderboard
    // lists them.
    {
        use sqlx::Connection;
        let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
        sqlx::query("UPDATE ratings SET rd = 62")
            .execute(&mut conn)
            .await
            .unwrap();
    }
    let answer = get_as(
        server.addr,
        "/api/leaderboard/ouk-chatrang?speed=blitz",
        Auth::None,
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(shape(&answer.body), shape(&leaderboard));
    assert_eq!(answer.body["speeds"]["blitz"][0]["name"], "Dara");
    assert_eq!(answer.body["speeds"]["blitz"][1]["name"], "Sok");
}

#[tokio::test]
async fn the_pairing_challenge_and_site_examples_are_what_the_server_takes_and_answers() {
    use support::account::{Auth, get_as, hello_as, post_as, register};
    use support::pairing::site;

    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/protocol.md");
    let text = std::fs::read_to_string(path).expect("docs/protocol.md");
    let [
        pools,
        pair_request,
        paired,
        challenge_request,
        challenge,
        listed,
        shown,
    ] = <[Value; 7]>::try_from(section_examples(
        &text,
        "Quick pairing and challenges",
        "json http",
    ))
    .expect("the seven examples of the Quick pairing and challenges section");
    let [welcome, told, gone, start, turn] = <[Value; 5]>::try_from(section_examples(
        &text,
        "Site channel `GET /ws/site`",
        "json site",
    ))
    .expect("the five frames of the Site channel section");
    let (_db, server) = support::server::sqlite_server_with(|_| {}).await;
    let addr = server.addr;
    let dara = register(addr, "Dara").await;
    let sok = register(addr, "Sok").await;

    let answer = get_as(addr, "/api/pairing/pools", Auth::None).await;
    assert_eq!(shape(&answer.body), shape(&pools), "{}", answer.body);
    let (a, b) = tokio::join!(
        post_as(addr, "/api/pairing", Auth::Cookie(&dara), &pair_request),
        post_as(addr, "/api/pairing", Auth::Cookie(&sok), &pair_request)
    );
    for answer in [&a, &b] {
        assert_eq!(answer.status, 200, "{}", answer.body);
        assert_eq!(shape(&answer.body), shape(&paired), "{}", answer.body);
    }

    let (mut dara_page, first) = site(addr, &dara).await;
    assert_eq!(shape(&first), shape(&welcome), "{first}");
    let (mut sok_page, _) = site(addr, &sok).await;
    let made = post_as(
        addr,
        "/api/challenges",
        Auth::Cookie(&dara),
        &challenge_request,
    )
    .await;
    assert_eq!(made.status, 201, "{}", made.body);
    assert_eq!(shape(&made.body), shape(&challenge), "{}", made.body);
    let answer = get_as(addr, "/api/challenges", Auth::Cookie(&dara)).await;
    assert_eq!(shape(&answer.body), shape(&listed), "{}", answer.body);
    let frame = sok_page.next_of("challenge").await;
    assert_eq!(shape(&frame), shape(&told), "{frame}");

    let path = format!(
        "/api/challenges/{}/accept",
        made.body["id"].as_str().unwrap()
    );
    let accepted = post_as(addr, &path, Auth::Cookie(&sok), &json!({})).await;
    assert_eq!(accepted.status, 200, "{}", accepted.body);
    assert_eq!(shape(&accepted.body), shape(&paired), "{}", accepted.body);
    let frame = dara_page.next_of("challenge_gone").await;
    assert_eq!(shape(&frame), shape(&gone), "{frame}");
    let frame = dara_page.next_of("game_start").await;
    assert_eq!(shape(&frame), shape(&start), "{frame}");
    assert_eq!(frame["d"]["via"], start["d"]["via"]);
    let path = format!("/api/challenges/{}", made.body["id"].as_str().unwrap());
    let answer = get_as(addr, &path, Auth::Cookie(&dara)).await;
    assert_eq!(shape(&answer.body), shape(&shown), "{}", answer.body);
    assert_eq!(answer.body["status"], "accepted");
    assert_eq!(answer.body["invite_code"], accepted.body["invite_code"]);

    let code = accepted.body["invite_code"].clone();
    let (mut white, hello) = hello_as(addr, Some(&dara), json!({"room": code})).await;
    let v = hello["d"]["version"].as_i64().unwrap();
    white.send_move("w1", "e3e4", v).await;
    assert_eq!(white.answer("w1").await["t"], "ack");
    let frame = sok_page.next_of("your_turn").await;
    assert_eq!(shape(&frame), shape(&turn), "{frame}");
}
