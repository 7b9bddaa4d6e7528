//! Upgrading a database that was written before a migration keeps what it held, on both backends:
//! the Ouk Chatrang counting states stored in `counting_state` (migrations 0001..0003) come back,
//! after `0004_game_extra`, as the game states of `Store::extra_history` and the game record; chat
//! messages stored before `*_chat_cid` keep their rows, without a cid; moves stored before
//! `0009_move_clocks` get their clock from their `moved` event.

mod support;

use std::path::Path;
use std::str::FromStr;

use khanate::rules::Extra;
use khanate::store::{ChatAnswer, ChatRow, ExtraRow, Store};
use serde_json::json;
use sqlx::migrate::{Migration, Migrator};
use sqlx::{Connection, PgConnection, SqliteConnection};
use support::db;
use uuid::Uuid;

/// The room of the rows written before the upgrade.
const ROOM: &str = "6f1d2a0e-5b7c-4e8a-9d3f-2c1b0a9e8d7c";

/// The rows a server before 0004 wrote: a finished room, two moves into a count (plies 1 and 2,
/// with their events), their counting states and the game record with its last count.
const OLD_ROWS: [&str; 6] = [
    "INSERT INTO rooms (id, invite_code, game, seats, visibility, status, version, \
                        start_position, options, created_at, updated_at) \
     VALUES ('6f1d2a0e-5b7c-4e8a-9d3f-2c1b0a9e8d7c', 'OLD001', 'ouk-chatrang', 2, 'private', \
             'finished', 2, '8/8/4k3/8/2R5/4K3/8/8 w - - 0 1', '{}', $1, $1)",
    "INSERT INTO room_events (room_id, v, kind, seat, cid, data, created_at) \
     VALUES ('6f1d2a0e-5b7c-4e8a-9d3f-2c1b0a9e8d7c', 1, 'moved', 0, NULL, '{}', $1), \
            ('6f1d2a0e-5b7c-4e8a-9d3f-2c1b0a9e8d7c', 2, 'moved', 1, NULL, '{}', $1)",
    "INSERT INTO moves (room_id, ply, v, seat, notation, display, position, created_at) \
     VALUES ('6f1d2a0e-5b7c-4e8a-9d3f-2c1b0a9e8d7c', 1, 1, 0, 'c4c5', 'Rc5', 'p1', $1), \
            ('6f1d2a0e-5b7c-4e8a-9d3f-2c1b0a9e8d7c', 2, 2, 1, 'e6d6', 'Kd6', 'p2', $1)",
    "INSERT INTO counting_state (room_id, ply, kind, count, limit_moves, escaping, started_ply) \
     VALUES ('6f1d2a0e-5b7c-4e8a-9d3f-2c1b0a9e8d7c', 1, 'piece', 3, 16, 'black', 1)",
    "INSERT INTO counting_state (room_id, ply, kind, count, limit_moves, escaping, started_ply) \
     VALUES ('6f1d2a0e-5b7c-4e8a-9d3f-2c1b0a9e8d7c', 2, 'piece', 4, 16, 'black', 1)",
    "INSERT INTO games (room_id, game, players, winner, reason, start_position, final_position, \
                        moves, display_moves, counting, started_at, finished_at) \
     VALUES ('6f1d2a0e-5b7c-4e8a-9d3f-2c1b0a9e8d7c', 'ouk-chatrang', '[]', NULL, 'agreement', \
             'start', 'p2', '[\"c4c5\", \"e6d6\"]', '[\"Rc5\", \"Kd6\"]', \
             '{\"kind\": \"piece\", \"count\": 4, \"limit\": 16, \"escaping\": \"black\", \
               \"started_ply\": 1}', NULL, $1)",
];

/// The migrations of `dir` that `keep` keeps.
async fn migrations_where(dir: &str, keep: fn(&Migration) -> bool) -> Migrator {
    let mut migrator = Migrator::new(Path::new(dir))
        .await
        .expect("read migrations");
    let kept: Vec<_> = migrator
        .migrations
        .iter()
        .filter(|m| keep(m))
        .cloned()
        .collect();
    migrator.migrations = kept.into();
    migrator
}

/// The migrations of `dir` before `0004_game_extra`.
async fn migrations_before_game_extra(dir: &str) -> Migrator {
    let migrator = migrations_where(dir, |m| m.version < 4).await;
    assert_eq!(migrator.migrations.len(), 3, "0001..0003");
    migrator
}

/// A connection to the SQLite database of `url`, created if missing, with foreign keys on (as
/// the store opens it).
async fn open_sqlite(url: &str) -> SqliteConnection {
    let options = sqlx::sqlite::SqliteConnectOptions::from_str(url)
        .expect("url")
        .create_if_missing(true)
        .foreign_keys(true);
    SqliteConnection::connect_with(&options)
        .await
        .expect("open")
}

fn counting(count: u32) -> Extra {
    Extra::with(
        "counting",
        json!({"kind": "piece", "count": count, "limit": 16, "escaping": "black", "started_ply": 1}),
    )
}

/// Opens the upgraded store and checks every counting state came over, exactly.
async fn check_upgraded(url: &str) {
    let store = Store::connect(url).await.expect("the store applies 0004");
    let room = Uuid::parse_str(ROOM).unwrap();
    assert_eq!(
        store.extra_history(room).await.expect("history"),
        vec![
            ExtraRow {
                ply: 1,
                extra: counting(3)
            },
            ExtraRow {
                ply: 2,
                extra: counting(4)
            },
        ]
    );
    let record = store
        .game_record(room)
        .await
        .expect("record")
        .expect("a game");
    assert_eq!(record.extra, counting(4));
    assert_eq!(record.moves, ["c4c5", "e6d6"]);
    store.close().await;
}

#[tokio::test]
async fn counting_states_stored_before_0004_survive_the_upgrade_on_postgres() {
    let database = db::fresh_postgres().await;
    let mut conn = PgConnection::connect(&database.url).await.expect("connect");
    migrations_before_game_extra("migrations/postgres")
        .await
        .run(&mut conn)
        .await
        .expect("0001..0003");
    let at = chrono::DateTime::parse_from_rfc3339("2026-11-29T16:44:00.123456Z").unwrap();
    for sql in OLD_ROWS {
        sqlx::query(sql)
            .bind(at)
            .execute(&mut conn)
            .await
            .expect(sql);
    }
    conn.close().await.expect("close");
    check_upgraded(&database.url).await;
}

#[tokio::test]
async fn counting_states_stored_before_0004_survive_the_upgrade_on_sqlite() {
    let (_file, url) = db::fresh_sqlite_url();
    let mut conn = open_sqlite(&url).await;
    migrations_before_game_extra("migrations/sqlite")
        .await
        .run(&mut conn)
        .await
        .expect("0001..0003");
    for sql in OLD_ROWS {
        sqlx::query(sql)
            .bind("2026-11-29T16:44:00.123456Z")
            .execute(&mut conn)
            .await
            .expect(sql);
    }
    conn.close().await.expect("close");
    check_upgraded(&url).await;
}

/// A room with a player's and a spectator's message, as chat was stored before cids were; the
/// same SQL text for both backends.
const CHAT_BEFORE_CIDS: &str = "\
    INSERT INTO rooms VALUES ('0b6f1f7e-8c1a-4a53-9d3e-5f0e1c2d3b4a', 'OLD002', 'ouk-chatrang', \
        2, 'private', 'playing', 3, 'x', '{}', '2026-11-29T16:44:00.000000Z', \
        '2026-11-29T16:44:00.000000Z'); \
    INSERT INTO chat_messages (room_id, seq, channel, seat, name, text, created_at) VALUES \
        ('0b6f1f7e-8c1a-4a53-9d3e-5f0e1c2d3b4a', 1, 'players', 0, 'white', 'before', \
            '2026-11-29T16:44:01.000000Z'), \
        ('0b6f1f7e-8c1a-4a53-9d3e-5f0e1c2d3b4a', 2, 'spectators', NULL, NULL, 'watching', \
            '2026-11-29T16:44:02.000000Z');";

/// Every migration of `dir` before the chat cids' (whatever its number): the schema the old
/// rows were written in (a later migration may add columns to the tables they fill).
async fn migrations_but_chat_cid(dir: &str) -> Migrator {
    let mut migrator = migrations_where(dir, |_| true).await;
    let chat_cid = migrator
        .migrations
        .iter()
        .find(|m| m.description == "chat cid")
        .expect("one chat cid migration")
        .version;
    let before: Vec<_> = migrator
        .migrations
        .iter()
        .filter(|m| m.version < chat_cid)
        .cloned()
        .collect();
    migrator.migrations = before.into();
    migrator
}

/// Opens the upgraded store: both old messages are still there, without an answer, and the
/// room takes a message with a cid.
async fn check_chat_upgraded(url: &str) {
    let store = Store::connect(url)
        .await
        .expect("the store applies the chat cids'");
    let room = Uuid::parse_str("0b6f1f7e-8c1a-4a53-9d3e-5f0e1c2d3b4a").unwrap();
    let players = store.chat(room, "players", None).await.expect("chat");
    let spectators = store.chat(room, "spectators", None).await.expect("chat");
    assert_eq!(players.len(), 1);
    assert_eq!(spectators.len(), 1);
    assert_eq!(
        (players[0].text.as_str(), &players[0].answer),
        ("before", &None)
    );
    assert_eq!(spectators[0].text, "watching");
    assert_eq!(store.chat_answers(room).await.expect("answers"), vec![]);
    let new = ChatRow {
        seq: 3,
        answer: Some(ChatAnswer {
            cid: "c1".into(),
            v: 3,
        }),
        ..players[0].clone()
    };
    assert!(
        store
            .insert_chat(room, &new, None)
            .await
            .expect("a new message")
    );
    assert_eq!(
        store.chat(room, "players", None).await.expect("chat").len(),
        2
    );
    store.close().await;
}

/// A fresh PostgreSQL database migrated by `migrator` only, holding the rows `sql` writes.
async fn postgres_with(migrator: Migrator, sql: &'static str) -> db::PgDatabase {
    let database = db::fresh_postgres().await;
    let mut conn = PgConnection::connect(&database.url).await.expect("connect");
    migrator.run(&mut conn).await.expect("the older migrations");
    sqlx::raw_sql(sql)
        .execute(&mut conn)
        .await
        .expect("old rows");
    conn.close().await.expect("close");
    database
}

/// A fresh SQLite file migrated by `migrator` only, holding the rows `sql` writes.
async fn sqlite_with(migrator: Migrator, sql: &'static str) -> (db::SqliteFile, String) {
    let (file, url) = db::fresh_sqlite_url();
    let mut conn = open_sqlite(&url).await;
    migrator.run(&mut conn).await.expect("the older migrations");
    sqlx::raw_sql(sql)
        .execute(&mut conn)
        .await
        .expect("old rows");
    conn.close().await.expect("close");
    (file, url)
}

#[tokio::test]
async fn chat_stored_before_cids_survives_the_upgrade_on_postgres() {
    let migrator = migrations_but_chat_cid("migrations/postgres").await;
    let database = postgres_with(migrator, CHAT_BEFORE_CIDS).await;
    check_chat_upgraded(&database.url).await;
}

#[tokio::test]
async fn chat_stored_before_cids_survives_the_upgrade_on_sqlite() {
    let migrator = migrations_but_chat_cid("migrations/sqlite").await;
    let (_file, url) = sqlite_with(migrator, CHAT_BEFORE_CIDS).await;
    check_chat_upgraded(&url).await;
}

/// A timed room's first three moves as stored before `0009_move_clocks`: the `moved` events
/// carry their clocks (the third one, as an event of an older server, none); the same SQL text
/// for both backends.
const MOVES_BEFORE_CLOCKS: &str = "\
    INSERT INTO rooms VALUES ('5d2c7a10-3e4f-4b6a-8c9d-0e1f2a3b4c5d', 'OLD003', 'ouk-chatrang', \
        2, 'private', 'playing', 3, 'x', '{\"clock\": {\"initial_s\": 180, \"increment_s\": 2}}', \
        '2026-11-29T16:44:00.000000Z', '2026-11-29T16:44:00.000000Z'); \
    INSERT INTO room_events (room_id, v, kind, seat, cid, data, created_at) VALUES \
        ('5d2c7a10-3e4f-4b6a-8c9d-0e1f2a3b4c5d', 1, 'moved', 0, NULL, \
         '{\"seat\": 0, \"clock\": {\"remaining_ms\": [180512, 180000], \"running\": 1}}', \
         '2026-11-29T16:44:01.000000Z'), \
        ('5d2c7a10-3e4f-4b6a-8c9d-0e1f2a3b4c5d', 2, 'moved', 1, NULL, \
         '{\"seat\": 1, \"clock\": {\"remaining_ms\": [180512, 178999], \"running\": 0}}', \
         '2026-11-29T16:44:02.000000Z'), \
        ('5d2c7a10-3e4f-4b6a-8c9d-0e1f2a3b4c5d', 3, 'moved', 0, NULL, '{\"seat\": 0}', \
         '2026-11-29T16:44:03.000000Z'); \
    INSERT INTO moves (room_id, ply, v, seat, notation, display, position, created_at) VALUES \
        ('5d2c7a10-3e4f-4b6a-8c9d-0e1f2a3b4c5d', 1, 1, 0, 'e3e4', 'e4', 'p1', \
         '2026-11-29T16:44:01.000000Z'), \
        ('5d2c7a10-3e4f-4b6a-8c9d-0e1f2a3b4c5d', 2, 2, 1, 'd6d5', 'd5', 'p2', \
         '2026-11-29T16:44:02.000000Z'), \
        ('5d2c7a10-3e4f-4b6a-8c9d-0e1f2a3b4c5d', 3, 3, 0, 'e4d5', 'exd5', 'p3', \
         '2026-11-29T16:44:03.000000Z');";

/// Opens the upgraded store: each move has its mover's clock from its event, or none.
async fn check_move_clocks_upgraded(url: &str) {
    let store = Store::connect(url).await.expect("the store applies 0009");
    let room = Uuid::parse_str("5d2c7a10-3e4f-4b6a-8c9d-0e1f2a3b4c5d").unwrap();
    let clocks: Vec<_> = store
        .moves(room)
        .await
        .expect("moves")
        .iter()
        .map(|row| row.clock_ms)
        .collect();
    assert_eq!(clocks, [Some(180_512), Some(178_999), None]);
    store.close().await;
}

#[tokio::test]
async fn moves_stored_before_0009_get_their_clock_from_their_event_on_postgres() {
    let migrator = migrations_where("migrations/postgres", |m| m.version < 9).await;
    let database = postgres_with(migrator, MOVES_BEFORE_CLOCKS).await;
    check_move_clocks_upgraded(&database.url).await;
}

#[tokio::test]
async fn moves_stored_before_0009_get_their_clock_from_their_event_on_sqlite() {
    let migrator = migrations_where("migrations/sqlite", |m| m.version < 9).await;
    let (_file, url) = sqlite_with(migrator, MOVES_BEFORE_CLOCKS).await;
    check_move_clocks_upgraded(&url).await;
}
