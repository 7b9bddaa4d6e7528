//! Rated games played to their ends on a real server, over WebSockets, on SQLite and on
//! PostgreSQL: each end's rating changes equal an independent computation (Glickman's Glicko-2
//! steps written out below, not skillratings'; Plackett-Luce by hand for three new players), are
//! stored once with the game, and show in `game_over` (to players and spectators), in the
//! snapshot after it, in `GET /api/games/{id}`, in the PGN's tags and in the profile's
//! `ratings`. An aborted rated game, one a player never moved in, and a casual game change no
//! rating.

mod support;

use std::f64::consts::PI;
use std::time::Duration;

use chrono::{DateTime, Utc};
use khanate::clock::Clock;
use khanate::config::Config;
use khanate::ratings::{PlayerRating, RatingPool, Skill, Speed};
use khanate::rules::{AnyGame, GameKind, Rules};
use khanate::store::Store;
use serde_json::{Value, json};
use support::account::{Auth, get_as, hello_as, post_as, register};
use support::server::{TestServer, get, get_text};
use support::ws::Client;
use uuid::Uuid;

/// Glicko-2's scale factor (Glickman: 400 / ln 10).
const SCALE: f64 = 173.7178;

/// A Glicko-2 rating on Glickman's display scale: (rating, RD, volatility).
#[derive(Clone, Copy, Debug)]
struct G2 {
    r: f64,
    rd: f64,
    sigma: f64,
}

/// One game as one rating period, by Glickman's "Example of the Glicko-2 system" step by step
/// (an independent computation, not the server's), with τ = 0.75 and, before it, the deviation
/// grown by `periods` periods of inactivity of the player and `opponent_periods` of the opponent
/// (`φ² + t·σ²`, at most 350).
fn glickman(player: G2, periods: f64, opponent: G2, opponent_periods: f64, score: f64) -> G2 {
    let tau = 0.75;
    let grown = |g: G2, t: f64| {
        ((g.rd / SCALE).powi(2) + t * g.sigma.powi(2))
            .sqrt()
            .min(350.0 / SCALE)
    };
    let (mu, phi) = ((player.r - 1500.0) / SCALE, grown(player, periods));
    let (mu_j, phi_j) = (
        (opponent.r - 1500.0) / SCALE,
        grown(opponent, opponent_periods),
    );
    // Steps 3 and 4.
    let g = 1.0 / (1.0 + 3.0 * phi_j * phi_j / (PI * PI)).sqrt();
    let e = 1.0 / (1.0 + (-g * (mu - mu_j)).exp());
    let v = 1.0 / (g * g * e * (1.0 - e));
    let delta = v * g * (score - e);
    // Step 5: the new volatility by the Illinois algorithm.
    let a = (player.sigma * player.sigma).ln();
    let f = |x: f64| {
        let ex = x.exp();
        ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex).powi(2))
            - (x - a) / (tau * tau)
    };
    let mut big_a = a;
    let mut big_b = if delta * delta > phi * phi + v {
        (delta * delta - phi * phi - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * tau) < 0.0 {
            k += 1.0;
        }
        a - k * tau
    };
    let (mut f_a, mut f_b) = (f(big_a), f(big_b));
    while (big_b - big_a).abs() > 0.000_001 {
        let big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
        let f_c = f(big_c);
        if f_c * f_b <= 0.0 {
            big_a = big_b;
            f_a = f_b;
        } else {
            f_a /= 2.0;
        }
        big_b = big_c;
        f_b = f_c;
    }
    let sigma = (big_a / 2.0).exp();
    // Steps 6 to 8.
    let phi_star = (phi * phi + sigma * sigma).sqrt();
    let phi_new = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
    let mu_new = mu + phi_new * phi_new * g * (score - e);
    G2 {
        r: mu_new * SCALE + 1500.0,
        rd: phi_new * SCALE,
        sigma,
    }
}

fn g2(rating: &PlayerRating) -> G2 {
    match rating.skill {
        Skill::Glicko2(g) => G2 {
            r: g.rating,
            rd: g.deviation,
            sigma: g.volatility,
        },
        Skill::WengLin(_) => panic!("a Glicko-2 rating: {rating:?}"),
    }
}

fn assert_close(got: &PlayerRating, expected: G2) {
    let g = g2(got);
    assert!(
        (g.r - expected.r).abs() < 1e-6
            && (g.rd - expected.rd).abs() < 1e-6
            && (g.sigma - expected.sigma).abs() < 1e-9,
        "stored {g:?}, computed {expected:?}"
    );
}

/// Periods of inactivity between two times, as docs/ratings.md says: 3 a day.
fn periods(since: DateTime<Utc>, at: DateTime<Utc>) -> f64 {
    (at - since).num_milliseconds() as f64 / 86_400_000.0 * 3.0
}

/// The account id of `name`.
async fn user(store: &Store, name: &str) -> Uuid {
    store.user_by_name(name).await.unwrap().unwrap().id
}

/// A rated room of `body` made by `creator`, its other seats taken by `others` in order; the
/// room id, invite code, and every player's client (creator first) after their snapshots.
async fn rated_room(
    addr: std::net::SocketAddr,
    creator: &str,
    others: &[&str],
    body: Value,
) -> (String, String, Vec<Client>) {
    let created = post_as(addr, "/api/rooms", Auth::Cookie(creator), &body).await;
    assert_eq!(created.status, 201, "{}", created.body);
    let code = created.body["invite_code"].as_str().unwrap().to_owned();
    for (i, other) in others.iter().enumerate() {
        let path = format!("/api/rooms/{code}/join");
        let seat = json!({"seat": i + 1});
        let joined = post_as(addr, &path, Auth::Cookie(other), &seat).await;
        assert_eq!(joined.status, 200, "{}", joined.body);
    }
    let mut clients = Vec::new();
    for cookie in std::iter::once(&creator).chain(others) {
        let (mut client, welcome) = hello_as(addr, Some(cookie), json!({"room": code})).await;
        assert_eq!(welcome["t"], "welcome", "{welcome}");
        client.next_of("snapshot").await;
        clients.push(client);
    }
    let room_id = created.body["room_id"].as_str().unwrap().to_owned();
    (room_id, code, clients)
}

/// Dara, Sok and Vann registered, seated in that order in a rated three-player Khan-Tsin room at
/// 10+0, each connected: (room id, invite code, their clients by seat).
async fn three_player_room(addr: std::net::SocketAddr) -> (String, String, Vec<Client>) {
    let mut cookies = Vec::new();
    for name in ["Dara", "Sok", "Vann"] {
        cookies.push(register(addr, name).await);
    }
    let body = json!({"game": "khan-tsin", "seats": 3, "seat": 0, "rated": true,
                      "clock": {"initial_s": 600, "increment_s": 0}});
    rated_room(addr, &cookies[0], &[&cookies[1], &cookies[2]], body).await
}

/// The first `plies` placements of the Khan-Tsin room `code` (each its mover's first legal
/// move), acknowledged: the seats place in order, 0, 1, 2.
async fn place(addr: std::net::SocketAddr, code: &str, clients: &mut [Client], plies: usize) {
    let (kind, options) = support::table::game_of("khan-tsin", 3);
    let mut local = AnyGame::new(kind, &options).unwrap();
    for ply in 0..plies {
        let seat = usize::from(local.to_move().unwrap());
        assert_eq!(seat, ply % 3, "placement goes round the seats in order");
        let mv = local.legal_moves()[0].clone();
        let cid = format!("p{ply}");
        clients[seat]
            .send_move(&cid, &mv, version(addr, code).await)
            .await;
        assert_eq!(clients[seat].answer(&cid).await["t"], "ack", "{mv}");
        local.play(&mv).unwrap();
    }
}

/// The `version` of the room `code`.
async fn version(addr: std::net::SocketAddr, code: &str) -> i64 {
    let (_, summary) = get(addr, &format!("/api/rooms/{code}")).await;
    summary["version"].as_i64().unwrap()
}

/// White plays e3e4 and Black d6d5 in the Ouk Chatrang room `code` of `clients` (White first).
async fn both_move(addr: std::net::SocketAddr, code: &str, clients: &mut [Client]) {
    for (seat, mv) in ["e3e4", "d6d5"].into_iter().enumerate() {
        let v = version(addr, code).await;
        clients[seat].send_move("m1", mv, v).await;
        assert_eq!(clients[seat].answer("m1").await["t"], "ack", "{mv}");
    }
}

/// An Ouk Chatrang blitz game (5+2) rated between `white` and `black`: White plays e3e4, Black
/// d6d5 (a game ended before every player moved is unrated) and `loser` (0 or 1) resigns.
/// Returns the room id and the `game_over` frame a spectator saw.
async fn rated_ouk_game(
    addr: std::net::SocketAddr,
    white: &str,
    black: &str,
    loser: usize,
) -> (String, Value) {
    let body = json!({"game": "ouk-chatrang", "seat": 0, "rated": true,
                      "clock": {"initial_s": 300, "increment_s": 2}});
    let (room_id, code, mut clients) = rated_room(addr, white, &[black], body).await;
    let (mut spectator, _) = Client::hello(addr, &code, None, None).await;
    both_move(addr, &code, &mut clients).await;
    clients[loser].command("resign", "r1", json!({})).await;
    assert_eq!(clients[loser].answer("r1").await["t"], "ack");
    let over = spectator.next_of("game_over").await;
    for client in &mut clients {
        assert_eq!(client.next_of("game_over").await["d"], over["d"]);
    }
    (room_id, over)
}

async fn two_players(url: &str) {
    let server = TestServer::start(url).await;
    let addr = server.addr;
    let store = &server.store;
    let dara = register(addr, "Dara").await;
    let sok = register(addr, "Sok").await;
    let (dara_id, sok_id) = (user(store, "dara").await, user(store, "sok").await);
    let pool = RatingPool {
        game: GameKind::OukChatrang,
        players: 2,
        speed: Speed::Blitz,
    };
    let new = G2 {
        r: 1500.0,
        rd: 350.0,
        sigma: 0.06,
    };

    // Game 1: Dara (White) wins against Sok; both were new.
    let (g1, over) = rated_ouk_game(addr, &dara, &sok, 1).await;
    let after = store.ratings_of(&[dara_id, sok_id], pool).await.unwrap();
    let dara_1 = glickman(new, 0.0, new, 0.0, 1.0);
    let sok_1 = glickman(new, 0.0, new, 0.0, 0.0);
    assert_close(&after[&dara_id], dara_1);
    assert_close(&after[&sok_id], sok_1);
    assert_eq!((after[&dara_id].games, after[&sok_id].games), (1, 1));
    assert_eq!(
        over["d"]["ratings"],
        json!([
            {"seat": 0, "before": 1500, "after": dara_1.r.round() as i64,
             "diff": dara_1.r.round() as i64 - 1500},
            {"seat": 1, "before": 1500, "after": sok_1.r.round() as i64,
             "diff": sok_1.r.round() as i64 - 1500},
        ])
    );
    assert_eq!(over["d"]["ratings"][0]["diff"], 162, "{over}");
    // Stored with the game: the API, the PGN and a snapshot after the game say the same.
    let (_, record) = get(addr, &format!("/api/games/{g1}")).await;
    assert_eq!(record["ratings"], over["d"]["ratings"]);
    let rated_at = after[&dara_id].rated_at.unwrap();
    assert_eq!(
        record["finished_at"],
        json!(rated_at.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true))
    );
    let (_, pgn) = get_text(addr, &format!("/api/games/{g1}/pgn")).await;
    assert!(
        pgn.contains(
            "[WhiteElo \"1500\"]\n[BlackElo \"1500\"]\n\
             [WhiteRatingDiff \"+162\"]\n[BlackRatingDiff \"-162\"]\n"
        ),
        "{pgn}"
    );
    let (mut late, _) = Client::hello(addr, &g1, None, None).await;
    let snapshot = late.next_of("snapshot").await;
    assert_eq!(snapshot["d"]["ratings"], over["d"]["ratings"]);
    assert_eq!(snapshot["d"]["rated"], true);

    // Game 2: Sok wins; each rating moves on from game 1's, grown by the time since.
    let (g2_room, over) = rated_ouk_game(addr, &sok, &dara, 1).await;
    let before = after;
    let after = store.ratings_of(&[dara_id, sok_id], pool).await.unwrap();
    let at = after[&sok_id].rated_at.unwrap();
    let (dara_was, sok_was) = (g2(&before[&dara_id]), g2(&before[&sok_id]));
    let t = periods(rated_at, at);
    assert!(t > 0.0 && t < 0.01, "{t} periods between the games");
    assert_close(&after[&sok_id], glickman(sok_was, t, dara_was, t, 1.0));
    assert_close(&after[&dara_id], glickman(dara_was, t, sok_was, t, 0.0));
    let shown = |r: &PlayerRating| r.rating.round() as i64;
    assert_eq!(
        over["d"]["ratings"],
        json!([
            {"seat": 0, "before": shown(&before[&sok_id]), "after": shown(&after[&sok_id]),
             "diff": shown(&after[&sok_id]) - shown(&before[&sok_id])},
            {"seat": 1, "before": shown(&before[&dara_id]), "after": shown(&after[&dara_id]),
             "diff": shown(&after[&dara_id]) - shown(&before[&dara_id])},
        ])
    );
    let (_, record) = get(addr, &format!("/api/games/{g2_room}")).await;
    assert_eq!(record["ratings"], over["d"]["ratings"]);

    // A casual game, and an aborted rated one, change no rating and carry none.
    let casual = support::account::won_by_resignation(addr, &dara, &sok, json!({})).await;
    let (_, record) = get(addr, &format!("/api/games/{casual}")).await;
    assert_eq!(record.get("ratings"), None, "{record}");
    let body = json!({"game": "ouk-chatrang", "seat": 0, "rated": true,
                      "clock": {"initial_s": 300, "increment_s": 2}});
    let (aborted, _, mut clients) = rated_room(addr, &dara, &[&sok], body).await;
    clients[1].command("abort", "a1", json!({})).await;
    assert_eq!(clients[1].answer("a1").await["t"], "ack");
    let over = clients[0].next_of("game_over").await;
    assert_eq!(over["d"]["result"]["reason"], "aborted");
    assert_eq!(over["d"].get("ratings"), None, "{over}");
    let (_, record) = get(addr, &format!("/api/games/{aborted}")).await;
    assert_eq!(record.get("ratings"), None, "{record}");
    let (_, pgn) = get_text(addr, &format!("/api/games/{aborted}/pgn")).await;
    assert!(!pgn.contains("Elo"), "{pgn}");
    let unchanged = store.ratings_of(&[dara_id, sok_id], pool).await.unwrap();
    assert_eq!(unchanged, after);

    // A correspondence game is rated in its own pool.
    let body = json!({"game": "ouk-chatrang", "seat": 0, "rated": true,
                      "clock": {"days_per_move": 3}});
    let (_, code, mut clients) = rated_room(addr, &dara, &[&sok], body).await;
    both_move(addr, &code, &mut clients).await;
    clients[0].command("resign", "r1", json!({})).await;
    assert_eq!(clients[0].answer("r1").await["t"], "ack");

    // The profile: every rating, by game and speed, whoever looks.
    let answer = get_as(addr, "/api/users/sok", Auth::None).await;
    let ratings = &answer.body["ratings"];
    let sok_blitz = &after[&sok_id];
    let mut blitz = ratings["ouk-chatrang"]["blitz"].clone();
    // serde_json's default float parsing may land one ulp off the printed value: the volatility
    // is compared to within 1e-15, everything else exactly.
    let volatility = blitz["volatility"].take().as_f64().unwrap();
    assert!(
        (volatility - g2(sok_blitz).sigma).abs() < 1e-15,
        "{volatility} vs {}",
        g2(sok_blitz).sigma
    );
    assert_eq!(
        blitz,
        json!({"rating": shown(sok_blitz), "rd": g2(sok_blitz).rd.round() as i64,
               "volatility": null, "games": 2, "provisional": true})
    );
    assert_eq!(ratings["ouk-chatrang"]["correspondence"]["games"], 1);
    assert_eq!(ratings["ouk-chatrang"]["correspondence"]["rating"], 1662);
    assert_eq!(
        ratings.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["ouk-chatrang"]
    );
    assert_eq!(
        ratings["ouk-chatrang"].as_object().unwrap().len(),
        2,
        "{ratings}"
    );
    // The rating history: a point a rated game, oldest first, by game and speed.
    let (_, history) = get(addr, "/api/users/Sok/rating-history").await;
    let blitz: Vec<&Value> = history["ouk-chatrang"]["blitz"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["rating"])
        .collect();
    assert_eq!(blitz, [&json!(1338), &json!(shown(sok_blitz))]);
    assert_eq!(
        history["ouk-chatrang"]["blitz"][0]["at"],
        json!(rated_at.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true))
    );
    assert_eq!(history["ouk-chatrang"]["correspondence"][0]["rating"], 1662);
    let (status, _) = get(addr, "/api/users/nobody/rating-history").await;
    assert_eq!(status, 404);
    server.shutdown().await;
}

async fn three_players(url: &str) {
    let server = TestServer::start(url).await;
    let addr = server.addr;
    let store = &server.store;
    let (room_id, code, mut clients) = three_player_room(addr).await;
    let mut ids = Vec::new();
    for name in ["Dara", "Sok", "Vann"] {
        ids.push(user(store, name).await);
    }
    let (mut spectator, _) = Client::hello(addr, &code, None, None).await;
    // Each places a piece (a game ended before every player moved is unrated).
    place(addr, &code, &mut clients, 3).await;
    // Sok resigns first, then Dara: Vann, the last in, wins; Dara is second, Sok third.
    clients[1].command("resign", "r1", json!({})).await;
    assert_eq!(clients[1].answer("r1").await["t"], "ack");
    clients[0].command("resign", "r2", json!({})).await;
    assert_eq!(clients[0].answer("r2").await["t"], "ack");
    let over = spectator.next_of("game_over").await;
    assert_eq!(over["d"]["result"]["winner"], 2, "{over}");

    // Plackett-Luce by hand for three new players (μ 25, σ 25/3, β 25/6) placed 1, 2, 3:
    // c² = 3(σ² + β²); the first gains σ²/c · 2/3, the second σ²/c · 1/6, the third loses
    // σ²/c · 5/6; σ' = σ·√(1 − γσ²/c² · s) with γ = σ/c and s = 2/9, 2/9 + 1/4, 2/9 + 1/4.
    let (mu, sigma, beta) = (25.0_f64, 25.0_f64 / 3.0, 25.0_f64 / 6.0);
    let c = (3.0 * (sigma * sigma + beta * beta)).sqrt();
    let (k_mu, k_sigma) = (sigma * sigma / c, (sigma / c) * sigma * sigma / (c * c));
    // By seat: Dara second, Sok third, Vann first.
    let expected = [
        (mu + k_mu / 6.0, 2.0 / 9.0 + 0.25),
        (mu - k_mu * 5.0 / 6.0, 2.0 / 9.0 + 0.25),
        (mu + k_mu * 2.0 / 3.0, 2.0 / 9.0),
    ];
    let pool = RatingPool {
        game: GameKind::KhanTsin,
        players: 3,
        speed: Speed::Rapid,
    };
    let after = store.ratings_of(&ids, pool).await.unwrap();
    let mut shown = Vec::new();
    for (seat, (id, (mu, s))) in ids.iter().zip(expected).enumerate() {
        let Skill::WengLin(w) = after[id].skill else {
            panic!("{:?}", after[id]);
        };
        let sigma = sigma * (1.0 - k_sigma * s).sqrt();
        assert!(
            (w.rating - mu).abs() < 1e-9 && (w.uncertainty - sigma).abs() < 1e-9,
            "seat {seat}: stored {w:?}, by hand ({mu}, {sigma})"
        );
        let rating = (1500.0 + 42.0 * (mu - 25.0)).round() as i64;
        shown.push(json!({"seat": seat, "before": 1500, "after": rating, "diff": rating - 1500}));
    }
    assert_eq!(over["d"]["ratings"], Value::Array(shown));
    assert_eq!(
        over["d"]["ratings"],
        json!([{"seat": 0, "before": 1500, "after": 1530, "diff": 30},
               {"seat": 1, "before": 1500, "after": 1349, "diff": -151},
               {"seat": 2, "before": 1500, "after": 1620, "diff": 120}])
    );
    let (_, record) = get(addr, &format!("/api/games/{room_id}")).await;
    assert_eq!(record["ratings"], over["d"]["ratings"]);
    let answer = get_as(addr, "/api/users/vann", Auth::None).await;
    let vann = &answer.body["ratings"]["khan-tsin-3"]["rapid"];
    assert_eq!(vann["rating"], 1620, "{}", answer.body);
    assert_eq!(vann["games"], 1);
    assert!((vann["mu"].as_f64().unwrap() - (mu + k_mu * 2.0 / 3.0)).abs() < 1e-9);
    assert!(vann.get("rd").is_none() && vann["sigma"].as_f64().is_some());
    server.shutdown().await;
}

/// A third player who leaves before their first move does not make the game unrated once the
/// other two have moved: the game could no longer be aborted (`cannot_abort`), so it is played
/// out and rated, the no-show ranked last (the earliest leaver).
#[tokio::test]
async fn a_three_player_no_show_who_leaves_is_rated_last() {
    let (_file, url) = support::db::fresh_sqlite_url();
    let server = TestServer::start(&url).await;
    let addr = server.addr;
    let (room_id, code, mut clients) = three_player_room(addr).await;
    place(addr, &code, &mut clients, 2).await;
    // Vann, on move, resigns without having moved; Dara and Sok, who both moved, play on.
    clients[2].command("resign", "r1", json!({})).await;
    assert_eq!(clients[2].answer("r1").await["t"], "ack");
    clients[0].command("abort", "a1", json!({})).await;
    let refused = clients[0].answer("a1").await;
    assert_eq!(refused["d"]["code"], "cannot_abort", "{refused}");
    clients[1].command("resign", "r2", json!({})).await;
    assert_eq!(clients[1].answer("r2").await["t"], "ack");
    let over = clients[0].next_of("game_over").await;
    assert_eq!(over["d"]["result"]["winner"], 0, "{over}");
    // Placed Dara 1, Sok 2, Vann 3: the same changes as three_players' by-hand Plackett-Luce for
    // places (2, 3, 1) there, seat by seat here.
    assert_eq!(
        over["d"]["ratings"],
        json!([{"seat": 0, "before": 1500, "after": 1620, "diff": 120},
               {"seat": 1, "before": 1500, "after": 1530, "diff": 30},
               {"seat": 2, "before": 1500, "after": 1349, "diff": -151}])
    );
    let (_, record) = get(addr, &format!("/api/games/{room_id}")).await;
    assert_eq!(record["ratings"], over["d"]["ratings"]);
    server.shutdown().await;
}

/// Two no-shows of a three-player game leave one after the other, the second ending it: the game
/// ended while it could still be aborted, so it is unrated, although the ending command's own
/// `left` puts the second among the leavers.
#[tokio::test]
async fn a_three_player_game_ended_by_its_last_no_show_is_unrated() {
    let (_file, url) = support::db::fresh_sqlite_url();
    let server = TestServer::start(&url).await;
    let addr = server.addr;
    let (room_id, code, mut clients) = three_player_room(addr).await;
    place(addr, &code, &mut clients, 1).await;
    // Vann leaves without a move; Sok, on move and without one either, resigns too: Dara wins.
    clients[2].command("resign", "r1", json!({})).await;
    assert_eq!(clients[2].answer("r1").await["t"], "ack");
    clients[1].command("resign", "r2", json!({})).await;
    assert_eq!(clients[1].answer("r2").await["t"], "ack");
    let over = clients[0].next_of("game_over").await;
    assert_eq!(over["d"]["result"]["winner"], 0, "{over}");
    assert_eq!(over["d"].get("ratings"), None, "{over}");
    let (_, record) = get(addr, &format!("/api/games/{room_id}")).await;
    assert_eq!(record.get("ratings"), None, "{record}");
    server.shutdown().await;
}

/// A player who never moves and runs out of time loses the game but no rating, and the winner
/// gains none: a game that ends before every player moved is unrated, as on lichess.
#[tokio::test]
async fn a_no_show_changes_no_rating() {
    let (_file, url) = support::db::fresh_sqlite_url();
    let clock = Clock::manual();
    let mut config = Config::for_tests(&url);
    config.clock = clock.clone();
    let server = TestServer::start_with(config).await;
    let addr = server.addr;
    let dara = register(addr, "Dara").await;
    let sok = register(addr, "Sok").await;
    let body = json!({"game": "ouk-chatrang", "seat": 0, "rated": true,
                      "clock": {"initial_s": 180, "increment_s": 2}});
    let (room_id, code, mut clients) = rated_room(addr, &dara, &[&sok], body).await;
    let v = version(addr, &code).await;
    clients[0].send_move("m1", "e3e4", v).await;
    assert_eq!(clients[0].answer("m1").await["t"], "ack");
    clock.advance(Duration::from_secs(181));
    let over = clients[0].next_of("game_over").await;
    assert_eq!(
        over["d"]["result"],
        json!({"winner": 0, "reason": "timeout"})
    );
    assert_eq!(over["d"].get("ratings"), None, "{over}");
    let (_, record) = get(addr, &format!("/api/games/{room_id}")).await;
    assert_eq!(record["result"]["reason"], "timeout", "{record}");
    assert_eq!(record.get("ratings"), None, "{record}");
    let pool = RatingPool {
        game: GameKind::OukChatrang,
        players: 2,
        speed: Speed::Blitz,
    };
    let ids = [
        user(&server.store, "dara").await,
        user(&server.store, "sok").await,
    ];
    let ratings = server.store.ratings_of(&ids, pool).await.unwrap();
    assert_eq!((ratings[&ids[0]].games, ratings[&ids[1]].games), (0, 0));
    server.shutdown().await;
}

#[tokio::test]
async fn two_player_ratings_on_sqlite() {
    let (_file, url) = support::db::fresh_sqlite_url();
    two_players(&url).await;
}

#[tokio::test]
async fn two_player_ratings_on_postgres() {
    let database = support::db::fresh_postgres().await;
    two_players(&database.url).await;
}

#[tokio::test]
async fn three_player_ratings_on_sqlite() {
    let (_file, url) = support::db::fresh_sqlite_url();
    three_players(&url).await;
}

#[tokio::test]
async fn three_player_ratings_on_postgres() {
    let database = support::db::fresh_postgres().await;
    three_players(&database.url).await;
}
