//! Players for the pairing and challenge tests: accounts written straight into the store with a
//! session each (no password hashing: forty of them take milliseconds), and the requests of
//! quick pairing.

use std::net::SocketAddr;
use std::time::Duration;

use khanate::accounts::secrets::new_secret;
use khanate::store::{RoomRef, SessionRow, Store, UserRow};
use serde_json::{Value, json};
use uuid::Uuid;

/// An account and the token of its session cookie.
#[derive(Clone, Debug)]
pub struct Player {
    pub id: Uuid,
    pub name: String,
    pub cookie: String,
}

/// A new account `name` with a session.
pub async fn player(store: &Store, name: &str) -> Player {
    let now = khanate::store::now();
    let user = UserRow {
        id: Uuid::new_v4(),
        name: name.to_owned(),
        password_hash: Some("$argon2id$v=19$m=19456,t=2,p=1$not-a-real-hash".to_owned()),
        created_at: now,
        disabled_at: None,
        deleted_at: None,
    };
    store.create_user(&user).await.expect("a new account");
    let (cookie, token_hash) = new_secret("");
    let session = SessionRow {
        id: Uuid::new_v4(),
        token_hash,
        user_id: user.id,
        created_at: now,
        last_used_at: now,
        user_agent: None,
    };
    store.insert_session(&session).await.expect("a session");
    Player {
        id: user.id,
        name: name.to_owned(),
        cookie,
    }
}

/// `n` new accounts named `{prefix}{i}`.
pub async fn players(store: &Store, prefix: &str, n: usize) -> Vec<Player> {
    let mut all = Vec::with_capacity(n);
    for i in 0..n {
        all.push(player(store, &format!("{prefix}{i}")).await);
    }
    all
}

/// The body of a request for `pool` (`GAME[:PLAYERS]@MIN+INC`, as the server's pool ids).
pub fn body_for(pool: &str, rated: bool) -> Value {
    let (game, clock) = pool.split_once('@').expect("GAME@CLOCK");
    let (game, seats) = game.split_once(':').unwrap_or((game, "2"));
    let clock = match clock.strip_suffix('d') {
        Some(days) => json!({"days_per_move": days.parse::<u32>().unwrap()}),
        None => {
            let (min, inc) = clock.split_once('+').expect("MIN+INC");
            json!({"initial_s": min.parse::<u32>().unwrap() * 60, "increment_s": inc.parse::<u32>().unwrap()})
        }
    };
    json!({"game": game, "seats": seats.parse::<u8>().unwrap(), "clock": clock, "rated": rated})
}

/// `POST /api/pairing` with `body`, as `cookie`'s account (anonymous without), waiting at most
/// `within` for the answer: (status, body); `None` when no answer came in time.
pub async fn pair_within(
    addr: SocketAddr,
    cookie: Option<&str>,
    body: &Value,
    within: Duration,
) -> Option<(u16, Value)> {
    let mut request = reqwest::Client::new()
        .post(format!("http://{addr}/api/pairing"))
        .timeout(within)
        .json(body);
    if let Some(cookie) = cookie {
        request = request.header("cookie", format!("khanate_session={cookie}"));
    }
    let response = request.send().await.ok()?;
    let status = response.status().as_u16();
    Some((status, response.json().await.unwrap_or(Value::Null)))
}

/// [`pair_within`] a minute.
pub async fn pair(addr: SocketAddr, cookie: Option<&str>, body: &Value) -> (u16, Value) {
    pair_within(addr, cookie, body, Duration::from_secs(60))
        .await
        .expect("an answer within a minute")
}

/// The accounts seated in `room_id`, by seat (`None` for an anonymous seat).
pub async fn seated(store: &Store, room_id: &str) -> Vec<Option<Uuid>> {
    let id = Uuid::parse_str(room_id).expect("a room id");
    let room = store
        .load_room(RoomRef::Id(id))
        .await
        .expect("reads the room")
        .expect("the room exists");
    room.seats.iter().map(|seat| seat.user_id).collect()
}

/// `GET /api/pairing/pools`: how many wait in `pool`'s side (`casual` or `rated`).
pub async fn waiting(addr: SocketAddr, pool: &str, side: &str) -> u64 {
    let (status, pools) = crate::support::server::get(addr, "/api/pairing/pools").await;
    assert_eq!(status, 200, "{pools}");
    pools["pools"]
        .as_array()
        .expect("pools")
        .iter()
        .find(|p| p["id"] == pool)
        .unwrap_or_else(|| panic!("no pool {pool}: {pools}"))["waiting"][side]
        .as_u64()
        .expect("a count")
}

/// Gives `user` the rating `rating` in the two-player rating pool (`game`, `speed`), as if it
/// had played ten rated games there (deviation 60), straight into the database at `url`.
pub async fn set_rating(url: &str, user: Uuid, game: &str, speed: &str, rating: f64) {
    use sqlx::Connection;
    let sql = "INSERT INTO ratings (user_id, game, players, speed, rating, rd, volatility, games, \
                                    rated_at) VALUES ($1, $2, 2, $3, $4, 60.0, 0.06, 10, $5)";
    if url.starts_with("postgres") {
        let mut conn = sqlx::PgConnection::connect(url).await.expect("connects");
        sqlx::query(sql)
            .bind(user)
            .bind(game)
            .bind(speed)
            .bind(rating)
            .bind(khanate::store::now())
            .execute(&mut conn)
            .await
            .expect("a rating");
    } else {
        let mut conn = sqlx::SqliteConnection::connect(url).await.expect("opens");
        sqlx::query(sql)
            .bind(user.to_string())
            .bind(game)
            .bind(speed)
            .bind(rating)
            .bind("2026-01-01T00:00:00.000000Z")
            .execute(&mut conn)
            .await
            .expect("a rating");
    }
}

/// Opens `/ws/site` at `addr` as the session `cookie` and reads its `welcome`.
pub async fn site(addr: SocketAddr, cookie: &str) -> (crate::support::ws::Client, Value) {
    let cookie = format!("khanate_session={cookie}");
    let mut page = crate::support::ws::Client::connect_with(
        &format!("ws://{addr}/ws/site"),
        &[("cookie", &cookie)],
    )
    .await
    .expect("the site channel opens");
    let welcome = page.recv().await;
    assert_eq!(welcome["t"], "welcome", "{welcome}");
    (page, welcome)
}
