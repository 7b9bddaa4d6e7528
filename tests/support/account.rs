//! A client of the account API for tests: requests with a session cookie, a bearer token or an
//! `Origin`, answered as (status, headers, JSON).

use std::net::SocketAddr;

use reqwest::Method;
use reqwest::header::HeaderMap;
use serde_json::{Value, json};

/// One answer: status, headers, JSON body (`Null` when there is none).
pub struct Answer {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Value,
}

impl Answer {
    /// The `Set-Cookie` header, as sent.
    pub fn set_cookie(&self) -> &str {
        self.headers
            .get("set-cookie")
            .and_then(|v| v.to_str().ok())
            .expect("a Set-Cookie header")
    }

    /// The session token the `Set-Cookie` header sets.
    pub fn session_token(&self) -> String {
        let pair = self.set_cookie().split(';').next().unwrap();
        pair.split_once('=').unwrap().1.to_owned()
    }

    /// The error code of an error answer.
    pub fn code(&self) -> &str {
        self.body["error"]["code"].as_str().unwrap_or("")
    }
}

/// How a request authenticates.
#[derive(Clone, Copy)]
pub enum Auth<'a> {
    None,
    /// `Cookie: khanate_session=...`.
    Cookie(&'a str),
    /// `Authorization: Bearer ...`.
    Bearer(&'a str),
}

/// Sends `method path` with `auth`, an `Origin` when given, and a JSON body when given.
pub async fn send(
    addr: SocketAddr,
    method: Method,
    path: &str,
    auth: Auth<'_>,
    origin: Option<&str>,
    body: Option<&Value>,
) -> Answer {
    let mut request = reqwest::Client::new().request(method, format!("http://{addr}{path}"));
    request = match auth {
        Auth::None => request,
        Auth::Cookie(token) => request.header("cookie", format!("khanate_session={token}")),
        Auth::Bearer(token) => request.header("authorization", format!("Bearer {token}")),
    };
    if let Some(origin) = origin {
        request = request.header("origin", origin);
    }
    if let Some(body) = body {
        request = request.json(body);
    }
    let response = request.send().await.expect("request");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response.json().await.unwrap_or(Value::Null);
    Answer {
        status,
        headers,
        body,
    }
}

/// `POST /api/account/register` (or `login`) with a name and password.
pub async fn credentials(addr: SocketAddr, action: &str, name: &str, password: &str) -> Answer {
    let body = json!({"name": name, "password": password});
    let path = format!("/api/account/{action}");
    send(addr, Method::POST, &path, Auth::None, None, Some(&body)).await
}

/// Registers `name` (password `name` + "-secret-pw") and returns its session token.
pub async fn register(addr: SocketAddr, name: &str) -> String {
    let answer = credentials(addr, "register", name, &format!("{name}-secret-pw")).await;
    assert_eq!(answer.status, 201, "{}", answer.body);
    answer.session_token()
}

/// `GET /api/account` with `auth`.
pub async fn whoami(addr: SocketAddr, auth: Auth<'_>) -> Answer {
    send(addr, Method::GET, "/api/account", auth, None, None).await
}

/// A new API token of the session `cookie` with `scopes`.
pub async fn api_token(addr: SocketAddr, cookie: &str, scopes: &[&str]) -> String {
    let body = json!({"description": "test", "scopes": scopes});
    let path = "/api/account/tokens";
    let answer = send(
        addr,
        Method::POST,
        path,
        Auth::Cookie(cookie),
        None,
        Some(&body),
    )
    .await;
    assert_eq!(answer.status, 201, "{}", answer.body);
    answer.body["token"].as_str().unwrap().to_owned()
}

/// `GET path` with `auth`.
pub async fn get_as(addr: SocketAddr, path: &str, auth: Auth<'_>) -> Answer {
    send(addr, Method::GET, path, auth, None, None).await
}

/// `POST path` with `auth` and `body`.
pub async fn post_as(addr: SocketAddr, path: &str, auth: Auth<'_>, body: &Value) -> Answer {
    send(addr, Method::POST, path, auth, None, Some(body)).await
}

/// `DELETE path` with `auth` and, when given, `body`.
pub async fn delete_as(
    addr: SocketAddr,
    path: &str,
    auth: Auth<'_>,
    body: Option<&Value>,
) -> Answer {
    send(addr, Method::DELETE, path, auth, None, body).await
}

/// Opens `/ws` with the session `cookie` (if any) on the upgrade and says `hello` with `d`
/// (`protocol` 1 added); returns the client and its first frame.
pub async fn hello_as(
    addr: SocketAddr,
    cookie: Option<&str>,
    mut d: Value,
) -> (crate::support::ws::Client, Value) {
    let cookie = cookie.map(|token| format!("khanate_session={token}"));
    let headers: Vec<(&str, &str)> = cookie.iter().map(|c| ("cookie", c.as_str())).collect();
    let mut client = crate::support::ws::Client::open_with(addr, &headers).await;
    d["protocol"] = json!(1);
    client.send(&json!({"t": "hello", "d": d})).await;
    let first = client.recv().await;
    (client, first)
}

/// An Ouk Chatrang game between two accounts played to its end: `winner` (a session cookie)
/// creates the room as white with the keys of `options` (`visibility`, `clock`, ...) added
/// (private unless told),
/// `loser` joins as black, white plays `e3e4` and black resigns. Returns the room id.
pub async fn won_by_resignation(
    addr: SocketAddr,
    winner: &str,
    loser: &str,
    options: Value,
) -> String {
    won_by_resignation_after(addr, winner, loser, options, &["e3e4"]).await
}

/// [`won_by_resignation`] after `moves` (white's first, then in turn) instead of `e3e4` alone:
/// a rated game is rated only once both players moved.
pub async fn won_by_resignation_after(
    addr: SocketAddr,
    winner: &str,
    loser: &str,
    options: Value,
    moves: &[&str],
) -> String {
    let mut body = json!({"game": "ouk-chatrang", "seat": "white"});
    if let (Value::Object(body), Value::Object(options)) = (&mut body, options) {
        body.extend(options);
    }
    let created = post_as(addr, "/api/rooms", Auth::Cookie(winner), &body).await;
    assert_eq!(created.status, 201, "{}", created.body);
    let code = created.body["invite_code"].as_str().unwrap().to_owned();
    let path = format!("/api/rooms/{code}/join");
    let joined = post_as(addr, &path, Auth::Cookie(loser), &json!({})).await;
    assert_eq!(joined.status, 200, "{}", joined.body);
    let (white, welcome) = hello_as(addr, Some(winner), json!({"room": code})).await;
    assert_eq!(welcome["d"]["seat"], 0, "{welcome}");
    let (black, _) = hello_as(addr, Some(loser), json!({"room": code})).await;
    let mut v = welcome["d"]["version"].as_i64().unwrap();
    let mut players = [white, black];
    for (ply, mv) in moves.iter().enumerate() {
        let cid = format!("m{ply}");
        let mover = &mut players[ply % 2];
        mover.send_move(&cid, mv, v).await;
        let ack = mover.answer(&cid).await;
        assert_eq!(ack["t"], "ack", "{mv}: {ack}");
        v = ack["d"]["v"].as_i64().unwrap();
    }
    let black = &mut players[1];
    black.command("resign", "b1", json!({})).await;
    assert_eq!(black.answer("b1").await["t"], "ack");
    created.body["room_id"].as_str().unwrap().to_owned()
}
