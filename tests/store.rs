//! The store's contract, run against both backends.
//!
//! Each scenario is written once, as `async fn scenario(store: Store)` (or `(store, url)` when it
//! needs to reopen or poke the database), and [`on_both_backends!`] turns it into a module with a
//! `postgres` and a `sqlite` test, each on a fresh database: `cargo test --test store sqlite` runs
//! only the SQLite half. PostgreSQL tests need `DATABASE_URL` (see `tests/support/db.rs`; run them
//! with `scripts/test`).

#[macro_use]
mod support;

use chrono::{DateTime, Duration, TimeZone, Timelike, Utc};
use khanate::rules::{Extra, GameKind};
use khanate::store::{
    ChatAnswer, ChatRow, Commit, EventRow, ExtraRow, GameRecord, LobbyRoom, MoveRow, RoomRef,
    RoomRow, RoomStatus, SeatRow, Store, StoreError, StoredRoom, Visibility, truncate_to_micros,
};
use serde_json::{Value, json};
use sqlx::Connection;
use support::db;
use uuid::Uuid;

on_both_backends!(store:
    create_room_round_trips_by_id_and_by_invite_code,
    commit_appends_events_move_counting_and_game,
    commit_at_a_wrong_version_conflicts_and_writes_nothing,
    malformed_commits_write_nothing,
    taking_a_seat_twice_fails_and_writes_nothing,
    unfinished_room_ids_are_waiting_and_playing_rooms_oldest_first,
    lobby_lists_public_waiting_rooms_newest_first_with_taken_counts,
    game_record_round_trips_without_optional_fields,
    moves_and_counting_states_come_back_in_ply_order,
    concurrent_commits_at_one_version_let_exactly_one_through,
    concurrent_commits_of_many_rooms_each_land_once_beside_a_conflict,
    a_chat_cid_is_stored_once_per_seat_and_comes_back_as_its_answer,
);

on_both_backends!(url:
    reopened_store_sees_everything_and_continues_the_version,
    unreadable_row_is_corrupt_not_a_panic,
);

// ---------------------------------------------------------------------------------------------
// Fixtures

/// A fixed instant with a microsecond part, `secs` seconds after 2026-11-29T16:44:00.123456Z.
fn at(secs: i64) -> DateTime<Utc> {
    let base = Utc
        .with_ymd_and_hms(2026, 11, 29, 16, 44, 0)
        .single()
        .and_then(|t| t.with_nanosecond(123_456_000))
        .expect("valid base time");
    base + Duration::seconds(secs)
}

fn room(
    invite_code: &str,
    created_at: DateTime<Utc>,
    seats: u8,
    visibility: Visibility,
) -> RoomRow {
    RoomRow {
        id: Uuid::new_v4(),
        invite_code: invite_code.to_owned(),
        game: GameKind::OukChatrang,
        seats,
        visibility,
        status: RoomStatus::Waiting,
        version: 0,
        start_position: "rnbkqbnr/8/pppppppp/8/8/PPPPPPPP/8/RNBQKBNR w - - 0 0 1".to_owned(),
        options: json!({}),
        created_at,
    }
}

/// A 32-byte hash that differs per `seed`.
fn hash(seed: u8) -> [u8; 32] {
    std::array::from_fn(|i| (i as u8).wrapping_mul(31) ^ seed)
}

fn seat(seat: u8, name: &str, joined_at: DateTime<Utc>) -> SeatRow {
    SeatRow {
        seat,
        name: Some(name.to_owned()),
        token_hash: hash(seat + 1),
        bot: None,
        user_id: None,
        joined_at,
    }
}

fn event(v: i64, kind: &str, seat: Option<u8>, data: Value, created_at: DateTime<Utc>) -> EventRow {
    EventRow {
        v,
        kind: kind.to_owned(),
        seat,
        cid: None,
        data,
        created_at,
    }
}

fn seat_taken(v: i64, s: &SeatRow) -> EventRow {
    let color = if s.seat == 0 { "white" } else { "black" };
    event(
        v,
        "seat_taken",
        Some(s.seat),
        json!({"seat": s.seat, "color": color, "name": s.name}),
        s.joined_at,
    )
}

/// A commit that changes nothing but the status; fill in what the scenario needs.
fn commit(room_id: Uuid, expected_version: i64, status: RoomStatus) -> Commit {
    Commit {
        room_id,
        expected_version,
        status,
        events: Vec::new(),
        seats: Vec::new(),
        mv: None,
        extra: None,
        taken_back_to: None,
        game: None,
        new_room: None,
        epoch: None,
        flag_at: None,
        ratings: None,
    }
}

fn mv(ply: i32, v: i64, seat: u8, notation: &str, created_at: DateTime<Utc>) -> MoveRow {
    MoveRow {
        ply,
        v,
        seat,
        notation: notation.to_owned(),
        display: format!("display {notation}"),
        position: format!("position after ply {ply}"),
        created_at,
        // A clock on odd plies only: both a time and NULL round-trip.
        clock_ms: (ply % 2 == 1).then_some(i64::from(ply) * 1_000 + 7),
    }
}

fn counting(ply: i32, count: i32) -> ExtraRow {
    let state = json!({"kind": "board", "count": count, "limit": 64, "escaping": "black",
                       "started_ply": 1});
    ExtraRow {
        ply,
        extra: Extra::with("counting", state),
    }
}

fn moved(m: &MoveRow) -> EventRow {
    event(
        m.v,
        "moved",
        Some(m.seat),
        json!({"seat": m.seat, "move": m.notation, "position": m.position, "to_move": 1 - m.seat}),
        m.created_at,
    )
}

/// Creates `r` with `status`, its creator (if any) in the first event; returns the room version.
async fn open_room(
    store: &Store,
    r: &RoomRow,
    status: RoomStatus,
    creator: Option<&SeatRow>,
) -> i64 {
    let mut c = commit(r.id, 0, status);
    if let Some(s) = creator {
        c.events.push(seat_taken(1, s));
        c.seats = vec![s.clone()];
    }
    store.create_room(r, &c).await.expect("create room");
    c.events.len() as i64
}

/// Takes `s` at `expected_version`; returns the new version.
async fn take_seat(store: &Store, room_id: Uuid, expected_version: i64, s: &SeatRow) -> i64 {
    let mut c = commit(room_id, expected_version, RoomStatus::Waiting);
    c.events.push(seat_taken(expected_version + 1, s));
    c.seats = vec![s.clone()];
    store.commit(&c).await.expect("take seat");
    expected_version + 1
}

async fn load(store: &Store, room_id: Uuid) -> StoredRoom {
    store
        .load_room(RoomRef::Id(room_id))
        .await
        .expect("load room")
        .expect("room exists")
}

/// Asserts that nothing but `before` is stored for the room: same room, seats and events, and no
/// move, counting state or game record.
async fn assert_unchanged(store: &Store, before: &StoredRoom) {
    let id = before.room.id;
    assert_eq!(&load(store, id).await, before);
    assert_eq!(store.moves(id).await.expect("moves"), vec![]);
    assert_eq!(store.extra_history(id).await.expect("counting"), vec![]);
    assert_eq!(store.game_record(id).await.expect("game record"), None);
}

// ---------------------------------------------------------------------------------------------
// Scenarios run on both backends

async fn create_room_round_trips_by_id_and_by_invite_code(store: Store) {
    store.ping().await.expect("ping");
    let nanos = Duration::nanoseconds(789);
    let mut r = room("AB12CD", at(0) + nanos, 2, Visibility::Public);
    r.options = json!({
        "start_position": null,
        "clock": {"initial_s": 300, "increment_s": 2},
        "colors": ["white", "black"],
        "note": "ចតុរង្គ ✓ \"quoted\"",
        "ratio": 0.5,
    });
    r.version = 99; // ignored: the row starts at the commit's expected version
    let creator = SeatRow {
        seat: 1,
        name: Some("Sokha".to_owned()),
        token_hash: hash(0xA5),
        bot: None,
        user_id: None,
        joined_at: at(1) + nanos,
    };
    let mut first = seat_taken(1, &creator);
    first.cid = Some("create-1".to_owned());
    first.created_at = at(1) + nanos;
    let mut c = commit(r.id, 0, RoomStatus::Waiting);
    c.events.push(first.clone());
    c.seats = vec![creator.clone()];
    store.create_room(&r, &c).await.expect("create room");

    // Timestamps come back truncated to whole microseconds; everything else exactly.
    let expected = StoredRoom {
        room: RoomRow {
            version: 1,
            created_at: at(0),
            ..r.clone()
        },
        seats: vec![SeatRow {
            joined_at: at(1),
            ..creator
        }],
        events: vec![EventRow {
            created_at: at(1),
            ..first
        }],
    };
    let by_id = store
        .load_room(RoomRef::Id(r.id))
        .await
        .expect("load by id");
    assert_eq!(by_id.as_ref(), Some(&expected));
    let by_code = store
        .load_room(RoomRef::InviteCode("AB12CD"))
        .await
        .expect("load by code");
    assert_eq!(by_code, Some(expected));

    assert_eq!(
        store
            .load_room(RoomRef::Id(Uuid::new_v4()))
            .await
            .expect("load"),
        None
    );
    assert_eq!(
        store
            .load_room(RoomRef::InviteCode("ab12cd"))
            .await
            .expect("load"),
        None
    );

    // A second room with the same invite code is refused as a unique violation.
    let clash = room("AB12CD", at(2), 2, Visibility::Private);
    let err = store
        .create_room(&clash, &commit(clash.id, 0, RoomStatus::Waiting))
        .await
        .expect_err("duplicate invite code");
    assert!(err.is_unique_violation(), "{err:?}");
    assert_eq!(
        store.load_room(RoomRef::Id(clash.id)).await.expect("load"),
        None
    );

    // A commit for another room than the one being created is refused.
    let other = room("OTHER1", at(3), 2, Visibility::Private);
    let err = store
        .create_room(&other, &commit(Uuid::new_v4(), 0, RoomStatus::Waiting))
        .await
        .expect_err("mismatched commit");
    assert!(matches!(err, StoreError::Corrupt(_)), "{err:?}");
    assert_eq!(
        store.load_room(RoomRef::Id(other.id)).await.expect("load"),
        None
    );
}

async fn commit_appends_events_move_counting_and_game(store: Store) {
    let r = room("GAME01", at(0), 2, Visibility::Public);
    let white = seat(0, "Dara", at(1));
    let black = seat(1, "Bopha", at(2));
    let mut v = open_room(&store, &r, RoomStatus::Waiting, Some(&white)).await;
    assert_eq!(v, 1);

    // Black joins: the seat and two events, and the game starts.
    let mut join = commit(r.id, v, RoomStatus::Playing);
    let started = event(
        3,
        "game_started",
        None,
        json!({"position": r.start_position, "to_move": 0}),
        at(2),
    );
    join.events = vec![seat_taken(2, &black), started.clone()];
    join.seats = vec![black.clone()];
    store.commit(&join).await.expect("join");
    v = 3;

    // White moves; a count is running.
    let m1 = mv(1, 4, 0, "e3e4", at(10));
    let mut e4 = moved(&m1);
    e4.cid = Some("w-1".to_owned());
    let c1 = counting(1, 5);
    let mut c = commit(r.id, v, RoomStatus::Playing);
    c.events = vec![e4.clone()];
    c.mv = Some(m1.clone());
    c.extra = Some(c1.clone());
    store.commit(&c).await.expect("first move");
    v = 4;
    assert_eq!(load(&store, r.id).await.room.version, 4);

    // Black moves and the game ends.
    let m2 = mv(2, 5, 1, "d6d5", at(20));
    let mut d5 = moved(&m2);
    d5.cid = Some("b-1".to_owned());
    let over = event(
        6,
        "game_over",
        None,
        json!({"result": {"winner": 1, "reason": "counting"}}),
        at(20),
    );
    let c2 = counting(2, 6);
    let record = GameRecord {
        room_id: r.id,
        game: GameKind::OukChatrang,
        players: json!([
            {"seat": 0, "color": "white", "name": "Dara"},
            {"seat": 1, "color": "black", "name": "Bopha"},
        ]),
        winner: Some(1),
        reason: "counting".to_owned(),
        start_position: r.start_position.clone(),
        final_position: m2.position.clone(),
        moves: vec!["e3e4".to_owned(), "d6d5".to_owned()],
        display_moves: vec!["display e3e4".to_owned(), "display d6d5".to_owned()],
        extra: Extra::with(
            "counting",
            json!({"kind": "board", "count": 6, "limit": 64, "escaping": "black", "started_ply": 1}),
        ),
        started_at: Some(at(2)),
        finished_at: at(20),
    };
    let mut c = commit(r.id, v, RoomStatus::Finished);
    c.events = vec![d5.clone(), over.clone()];
    c.mv = Some(m2.clone());
    c.extra = Some(c2.clone());
    c.game = Some(record.clone());
    store.commit(&c).await.expect("last move");

    let stored = load(&store, r.id).await;
    assert_eq!(
        stored.room,
        RoomRow {
            version: 6,
            status: RoomStatus::Finished,
            ..r.clone()
        }
    );
    assert_eq!(stored.seats, vec![white.clone(), black.clone()]);
    assert_eq!(
        stored.events,
        vec![
            seat_taken(1, &white),
            seat_taken(2, &black),
            started,
            e4,
            d5,
            over
        ]
    );
    assert_eq!(store.moves(r.id).await.expect("moves"), vec![m1, m2]);
    assert_eq!(
        store.extra_history(r.id).await.expect("counting"),
        vec![c1, c2]
    );
    assert_eq!(store.game_record(r.id).await.expect("record"), Some(record));
    assert_eq!(
        store.unfinished_room_ids().await.expect("unfinished"),
        Vec::<Uuid>::new()
    );
    assert_eq!(store.lobby(10).await.expect("lobby"), vec![]);

    // A commit without events keeps the version (and still checks it).
    let mut c = commit(r.id, 6, RoomStatus::Finished);
    c.events.clear();
    store.commit(&c).await.expect("empty commit");
    assert_eq!(load(&store, r.id).await.room.version, 6);
}

async fn commit_at_a_wrong_version_conflicts_and_writes_nothing(store: Store) {
    let r = room("CONF01", at(0), 2, Visibility::Public);
    let white = seat(0, "Dara", at(1));
    let v = open_room(&store, &r, RoomStatus::Waiting, Some(&white)).await;
    let before = load(&store, r.id).await;
    assert_eq!(before.room.version, 1);

    // Everything a commit can carry, so any partial write would show.
    let full = |expected_version: i64| {
        let m = mv(1, expected_version + 1, 1, "d6d5", at(5));
        let mut c = commit(r.id, expected_version, RoomStatus::Finished);
        c.events = vec![moved(&m)];
        c.seats = vec![seat(1, "Late", at(5))];
        c.mv = Some(m);
        c.extra = Some(counting(1, 1));
        c.game = Some(GameRecord {
            room_id: r.id,
            game: GameKind::OukChatrang,
            players: json!([]),
            winner: None,
            reason: "aborted".to_owned(),
            start_position: r.start_position.clone(),
            final_position: r.start_position.clone(),
            moves: vec![],
            display_moves: vec![],
            extra: Extra::default(),
            started_at: None,
            finished_at: at(5),
        });
        c
    };

    for expected in [v - 1, v + 1, v + 5] {
        match store.commit(&full(expected)).await {
            Err(StoreError::Conflict {
                room_id,
                expected: e,
                found,
            }) => {
                assert_eq!((room_id, e, found), (r.id, expected, 1));
            }
            other => panic!("expected a conflict at version {expected}, got {other:?}"),
        }
        assert_unchanged(&store, &before).await;
    }

    // A commit without events is checked too.
    let err = store
        .commit(&commit(r.id, 0, RoomStatus::Finished))
        .await
        .expect_err("stale empty commit");
    assert!(
        matches!(
            err,
            StoreError::Conflict {
                expected: 0,
                found: 1,
                ..
            }
        ),
        "{err:?}"
    );
    assert_unchanged(&store, &before).await;

    // The right version still goes through afterwards.
    store
        .commit(&full(v))
        .await
        .expect("commit at the right version");
    assert_eq!(load(&store, r.id).await.room.version, 2);
}

async fn malformed_commits_write_nothing(store: Store) {
    let r = room("BAD001", at(0), 2, Visibility::Private);
    let v = open_room(
        &store,
        &r,
        RoomStatus::Waiting,
        Some(&seat(0, "Dara", at(1))),
    )
    .await;
    let before = load(&store, r.id).await;

    // A hole in the versions, a repeated version, a game record of another room.
    let mut hole = commit(r.id, v, RoomStatus::Playing);
    hole.events = vec![event(v + 2, "skipped", Some(0), json!({"seat": 0}), at(2))];
    let mut repeat = commit(r.id, v, RoomStatus::Playing);
    repeat.events = vec![
        event(v + 1, "skipped", Some(0), json!({"seat": 0}), at(2)),
        event(v + 1, "skipped", Some(1), json!({"seat": 1}), at(2)),
    ];
    let mut foreign = commit(r.id, v, RoomStatus::Finished);
    foreign.game = Some(GameRecord {
        room_id: Uuid::new_v4(),
        game: GameKind::OukChatrang,
        players: json!([]),
        winner: None,
        reason: "aborted".to_owned(),
        start_position: String::new(),
        final_position: String::new(),
        moves: vec![],
        display_moves: vec![],
        extra: Extra::default(),
        started_at: None,
        finished_at: at(3),
    });
    for c in [hole, repeat, foreign] {
        let err = store.commit(&c).await.expect_err("malformed commit");
        assert!(matches!(err, StoreError::Corrupt(_)), "{err:?}");
        assert_unchanged(&store, &before).await;
    }

    // A move whose event is not in the log violates a foreign key; nothing is written.
    let mut orphan = commit(r.id, v, RoomStatus::Playing);
    orphan.events = vec![event(v + 1, "skipped", Some(0), json!({"seat": 0}), at(2))];
    orphan.mv = Some(mv(1, v + 7, 0, "e3e4", at(2)));
    let err = store.commit(&orphan).await.expect_err("orphan move");
    assert!(matches!(err, StoreError::Database(_)), "{err:?}");
    assert_unchanged(&store, &before).await;

    // A commit for a room that does not exist.
    let mut missing = commit(Uuid::new_v4(), 0, RoomStatus::Playing);
    missing.events = vec![event(1, "skipped", Some(0), json!({"seat": 0}), at(2))];
    let err = store.commit(&missing).await.expect_err("unknown room");
    assert!(
        matches!(err, StoreError::Database(sqlx::Error::RowNotFound)),
        "{err:?}"
    );
    assert_eq!(
        store
            .load_room(RoomRef::Id(missing.room_id))
            .await
            .expect("load"),
        None
    );
}

async fn taking_a_seat_twice_fails_and_writes_nothing(store: Store) {
    let r = room("SEAT01", at(0), 2, Visibility::Public);
    let white = seat(0, "Dara", at(1));
    let v = open_room(&store, &r, RoomStatus::Waiting, Some(&white)).await;
    let before = load(&store, r.id).await;

    let intruder = SeatRow {
        seat: 0,
        name: Some("Intruder".to_owned()),
        token_hash: hash(0xEE),
        bot: None,
        user_id: None,
        joined_at: at(2),
    };
    let mut c = commit(r.id, v, RoomStatus::Playing);
    c.events = vec![seat_taken(v + 1, &intruder)];
    c.seats = vec![intruder];
    let err = store.commit(&c).await.expect_err("seat 0 is taken");
    assert!(err.is_unique_violation(), "{err:?}");
    assert_unchanged(&store, &before).await;
    assert_eq!(
        load(&store, r.id).await.seats[0].token_hash,
        white.token_hash
    );

    // The room is still at version 1: the free seat can be taken there.
    let black = seat(1, "Bopha", at(3));
    assert_eq!(take_seat(&store, r.id, v, &black).await, 2);
    assert_eq!(load(&store, r.id).await.seats, vec![white, black]);
}

async fn unfinished_room_ids_are_waiting_and_playing_rooms_oldest_first(store: Store) {
    let finished = room("FIN001", at(0), 2, Visibility::Public);
    let waiting_old = room("WAIT01", at(5), 2, Visibility::Private);
    let playing = room("PLAY01", at(10), 2, Visibility::Public);
    let waiting_new = room("WAIT02", at(20), 2, Visibility::Public);
    // Created out of order, so insertion order is not the answer.
    open_room(&store, &waiting_new, RoomStatus::Waiting, None).await;
    open_room(&store, &finished, RoomStatus::Finished, None).await;
    let v = open_room(
        &store,
        &playing,
        RoomStatus::Playing,
        Some(&seat(0, "A", at(10))),
    )
    .await;
    open_room(&store, &waiting_old, RoomStatus::Waiting, None).await;

    assert_eq!(
        store.unfinished_room_ids().await.expect("unfinished"),
        vec![waiting_old.id, playing.id, waiting_new.id]
    );

    // Finishing a room takes it off the list.
    store
        .commit(&commit(playing.id, v, RoomStatus::Finished))
        .await
        .expect("finish");
    assert_eq!(
        store.unfinished_room_ids().await.expect("unfinished"),
        vec![waiting_old.id, waiting_new.id]
    );
}

async fn lobby_lists_public_waiting_rooms_newest_first_with_taken_counts(store: Store) {
    let one_taken = room("LOB001", at(1), 2, Visibility::Public);
    let empty = room("LOB002", at(2), 2, Visibility::Public);
    let two_of_three = room("LOB003", at(3), 3, Visibility::Public);
    let private = room("LOB004", at(4), 2, Visibility::Private);
    let playing = room("LOB005", at(5), 2, Visibility::Public);
    let finished = room("LOB006", at(6), 2, Visibility::Public);

    open_room(
        &store,
        &one_taken,
        RoomStatus::Waiting,
        Some(&seat(1, "A", at(1))),
    )
    .await;
    open_room(&store, &empty, RoomStatus::Waiting, None).await;
    let v = open_room(
        &store,
        &two_of_three,
        RoomStatus::Waiting,
        Some(&seat(0, "B", at(3))),
    )
    .await;
    take_seat(&store, two_of_three.id, v, &seat(2, "C", at(4))).await;
    open_room(
        &store,
        &private,
        RoomStatus::Waiting,
        Some(&seat(0, "D", at(4))),
    )
    .await;
    open_room(
        &store,
        &playing,
        RoomStatus::Playing,
        Some(&seat(0, "E", at(5))),
    )
    .await;
    open_room(&store, &finished, RoomStatus::Finished, None).await;

    // The creator is the first seat taken, whatever its number (B took seat 0 before C seat 2).
    let entry = |r: &RoomRow, taken: u8, creator: Option<&str>| LobbyRoom {
        room_id: r.id,
        invite_code: r.invite_code.clone(),
        game: GameKind::OukChatrang,
        seats: r.seats,
        taken,
        created_at: r.created_at,
        creator_name: creator.map(str::to_owned),
        clock: None,
    };
    let all = vec![
        entry(&two_of_three, 2, Some("B")),
        entry(&empty, 0, None),
        entry(&one_taken, 1, Some("A")),
    ];
    assert_eq!(store.lobby(10).await.expect("lobby"), all);
    assert_eq!(store.lobby(2).await.expect("lobby"), all[..2].to_vec());
    assert_eq!(store.lobby(0).await.expect("lobby"), vec![]);
    assert_eq!(store.lobby(-1).await.expect("lobby"), vec![]);
}

async fn a_chat_cid_is_stored_once_per_seat_and_comes_back_as_its_answer(store: Store) {
    let r = room("CHAT01", at(0), 2, Visibility::Private);
    open_room(&store, &r, RoomStatus::Waiting, Some(&seat(0, "A", at(0)))).await;
    let message = |seq: i64, seat: Option<u8>, cid: Option<&str>, v: i64| ChatRow {
        seq,
        channel: if seat.is_some() {
            "players"
        } else {
            "spectators"
        }
        .to_owned(),
        seat,
        name: None,
        text: format!("message {seq}"),
        created_at: at(seq),
        answer: cid.map(|cid| ChatAnswer {
            cid: cid.to_owned(),
            v,
        }),
    };
    let first = message(1, Some(0), Some("c1"), 1);
    assert!(store.insert_chat(r.id, &first, None).await.expect("first"));
    // The same seat and cid again, under a new seq: nothing is stored, not even the new text.
    let retry = message(2, Some(0), Some("c1"), 5);
    assert!(!store.insert_chat(r.id, &retry, None).await.expect("retry"));
    // Another seat's c1, a spectator's message and an old-style row without a cid all count.
    assert!(
        store
            .insert_chat(r.id, &message(3, Some(1), Some("c1"), 2), None)
            .await
            .expect("seat 1")
    );
    assert!(
        store
            .insert_chat(r.id, &message(4, None, None, 0), None)
            .await
            .expect("spectator")
    );
    assert!(
        store
            .insert_chat(r.id, &message(5, Some(0), None, 0), None)
            .await
            .expect("no cid")
    );
    let err = store
        .insert_chat(r.id, &message(5, Some(0), Some("c2"), 3), None)
        .await
        .expect_err("a taken seq is still refused");
    assert!(err.is_unique_violation(), "{err:?}");

    assert_eq!(
        store.chat_by_cid(r.id, 0, "c1").await.expect("by cid"),
        Some(first.clone())
    );
    assert_eq!(
        store.chat_by_cid(r.id, 0, "c2").await.expect("by cid"),
        None
    );
    let answers = store.chat_answers(r.id).await.expect("answers");
    let answer = |cid: &str, v| ChatAnswer {
        cid: cid.to_owned(),
        v,
    };
    assert_eq!(answers, vec![(0, answer("c1", 1)), (1, answer("c1", 2))]);
    let players = store.chat(r.id, "players", None).await.expect("chat");
    assert_eq!(players.iter().map(|m| m.seq).collect::<Vec<_>>(), [1, 3, 5]);
    assert_eq!(players[0], first);
}

async fn game_record_round_trips_without_optional_fields(store: Store) {
    let r = room("DRAW01", at(0), 2, Visibility::Private);
    let v = open_room(&store, &r, RoomStatus::Playing, Some(&seat(0, "A", at(0)))).await;
    assert_eq!(store.game_record(r.id).await.expect("record"), None);

    let record = GameRecord {
        room_id: r.id,
        game: GameKind::OukChatrang,
        players: json!([{"seat": 0, "color": "white", "name": null}]),
        winner: None,
        reason: "agreement".to_owned(),
        start_position: r.start_position.clone(),
        final_position: r.start_position.clone(),
        moves: vec![],
        display_moves: vec![],
        extra: Extra::default(),
        started_at: None,
        finished_at: at(30) + Duration::nanoseconds(999),
    };
    let mut c = commit(r.id, v, RoomStatus::Finished);
    c.events = vec![event(
        v + 1,
        "game_over",
        None,
        json!({"result": {"winner": null, "reason": "agreement"}}),
        at(30),
    )];
    c.game = Some(record.clone());
    store.commit(&c).await.expect("finish");
    let expected = GameRecord {
        finished_at: at(30),
        ..record.clone()
    };
    assert_eq!(
        store.game_record(r.id).await.expect("record"),
        Some(expected.clone())
    );
    assert_eq!(
        store.game_record(Uuid::new_v4()).await.expect("record"),
        None
    );

    // A game ends once: a second record is refused and the commit writes nothing.
    let mut again = commit(r.id, v + 1, RoomStatus::Finished);
    again.events = vec![event(v + 2, "game_over", None, json!({}), at(31))];
    again.game = Some(record);
    let err = store.commit(&again).await.expect_err("second record");
    assert!(err.is_unique_violation(), "{err:?}");
    assert_eq!(load(&store, r.id).await.room.version, v + 1);
    assert_eq!(load(&store, r.id).await.events.len(), 2);
    assert_eq!(
        store.game_record(r.id).await.expect("record"),
        Some(expected)
    );
}

async fn moves_and_counting_states_come_back_in_ply_order(store: Store) {
    let r = room("ORDER1", at(0), 2, Visibility::Private);
    let mut v = open_room(&store, &r, RoomStatus::Playing, None).await;
    // Written out of ply order (and across 9/10, which text order would swap).
    for ply in [10, 2, 9] {
        let m = mv(
            ply,
            v + 1,
            (ply % 2) as u8,
            &format!("m{ply}"),
            at(ply.into()),
        );
        let mut c = commit(r.id, v, RoomStatus::Playing);
        c.events = vec![moved(&m)];
        c.mv = Some(m);
        c.extra = Some(counting(ply, ply + 100));
        store.commit(&c).await.expect("move");
        v += 1;
    }
    let moves = store.moves(r.id).await.expect("moves");
    assert_eq!(
        moves.iter().map(|m| m.ply).collect::<Vec<_>>(),
        vec![2, 9, 10]
    );
    assert_eq!(moves.iter().map(|m| m.v).collect::<Vec<_>>(), vec![2, 3, 1]);
    assert_eq!(moves[0], mv(2, 2, 0, "m2", at(2)));
    let counts = store.extra_history(r.id).await.expect("counting");
    assert_eq!(
        counts,
        vec![counting(2, 102), counting(9, 109), counting(10, 110)]
    );
    assert_eq!(store.moves(Uuid::new_v4()).await.expect("moves"), vec![]);
    assert_eq!(
        store.extra_history(Uuid::new_v4()).await.expect("counting"),
        vec![]
    );
}

async fn concurrent_commits_at_one_version_let_exactly_one_through(store: Store) {
    let r = room("RACE01", at(0), 2, Visibility::Private);
    let v = open_room(&store, &r, RoomStatus::Playing, Some(&seat(0, "A", at(0)))).await;
    let attempt = |cid: &str| {
        let m = mv(1, v + 1, 0, cid, at(1));
        let mut e = moved(&m);
        e.cid = Some(cid.to_owned());
        let mut c = commit(r.id, v, RoomStatus::Playing);
        c.events = vec![e];
        c.mv = Some(m);
        c
    };
    let (a, b) = (attempt("a"), attempt("b"));
    let (ra, rb) = tokio::join!(store.commit(&a), store.commit(&b));
    let (winner, loser) = match (ra, rb) {
        (Ok(()), Err(e)) => ("a", e),
        (Err(e), Ok(())) => ("b", e),
        other => panic!("expected exactly one commit to succeed, got {other:?}"),
    };
    assert!(
        matches!(
            loser,
            StoreError::Conflict {
                expected: 1,
                found: 2,
                ..
            }
        ),
        "{loser:?}"
    );
    let stored = load(&store, r.id).await;
    assert_eq!(stored.room.version, 2);
    assert_eq!(stored.events.len(), 2);
    assert_eq!(stored.events[1].cid.as_deref(), Some(winner));
    let moves = store.moves(r.id).await.expect("moves");
    assert_eq!(moves.len(), 1);
    assert_eq!(moves[0].notation, winner);
}

/// Many rooms commit at once (PostgreSQL writes such commits together, in one statement): each
/// lands exactly once with its own rows, while a commit at a wrong version and one for a room
/// that does not exist among them get their own errors and write nothing.
async fn concurrent_commits_of_many_rooms_each_land_once_beside_a_conflict(store: Store) {
    let mut rooms = Vec::new();
    for i in 0..20 {
        let r = room(&format!("MANY{i:02}"), at(0), 2, Visibility::Private);
        let v = open_room(&store, &r, RoomStatus::Playing, Some(&seat(0, "A", at(0)))).await;
        rooms.push((r, v));
    }
    let late = room("LATE01", at(0), 2, Visibility::Private);
    let late_v = open_room(
        &store,
        &late,
        RoomStatus::Playing,
        Some(&seat(0, "A", at(0))),
    )
    .await;
    let late_before = load(&store, late.id).await;
    let move_commit = |room_id: Uuid, expected: i64, notation: &str, with_count: bool| {
        let m = mv(1, expected + 1, 0, notation, at(1));
        let mut c = commit(room_id, expected, RoomStatus::Playing);
        c.events = vec![moved(&m)];
        c.extra = with_count.then(|| counting(1, 3));
        c.mv = Some(m);
        c
    };
    let mut commits: Vec<Commit> = rooms
        .iter()
        .enumerate()
        .map(|(i, (r, v))| move_commit(r.id, *v, &format!("m{i}"), i % 2 == 0))
        .collect();
    commits.push(move_commit(late.id, late_v + 5, "late", false));
    commits.push(move_commit(Uuid::new_v4(), 1, "nowhere", false));
    let results = futures_util::future::join_all(commits.iter().map(|c| store.commit(c))).await;

    for (i, ((r, v), result)) in rooms.iter().zip(&results).enumerate() {
        assert!(result.is_ok(), "room {i}: {result:?}");
        let stored = load(&store, r.id).await;
        assert_eq!(stored.room.version, v + 1);
        assert_eq!(stored.events.len(), 2);
        let moves = store.moves(r.id).await.expect("moves");
        assert_eq!(moves.len(), 1);
        assert_eq!(moves[0].notation, format!("m{i}"));
        let counts = store.extra_history(r.id).await.expect("counting");
        assert_eq!(counts.len(), usize::from(i % 2 == 0), "room {i}");
    }
    assert!(
        matches!(
            &results[20],
            Err(StoreError::Conflict { expected, found, .. })
                if *expected == late_v + 5 && *found == late_v
        ),
        "{:?}",
        results[20]
    );
    assert_unchanged(&store, &late_before).await;
    assert!(
        matches!(
            &results[21],
            Err(StoreError::Database(sqlx::Error::RowNotFound))
        ),
        "{:?}",
        results[21]
    );
}

async fn reopened_store_sees_everything_and_continues_the_version(store: Store, url: &str) {
    let r = room("KEEP01", at(0), 2, Visibility::Public);
    let white = seat(0, "Dara", at(1));
    let v = open_room(&store, &r, RoomStatus::Waiting, Some(&white)).await;
    let black = seat(1, "Bopha", at(2));
    let mut c = commit(r.id, v, RoomStatus::Playing);
    c.events = vec![seat_taken(2, &black)];
    c.seats = vec![black];
    store.commit(&c).await.expect("join");
    let m = mv(1, 3, 0, "e3e4", at(3));
    let mut c = commit(r.id, 2, RoomStatus::Playing);
    c.events = vec![moved(&m)];
    c.mv = Some(m.clone());
    c.extra = Some(counting(1, 3));
    store.commit(&c).await.expect("move");
    let before = load(&store, r.id).await;
    store.close().await;
    drop(store);

    let store = Store::connect(url).await.expect("reopen");
    assert_eq!(load(&store, r.id).await, before);
    assert_eq!(
        store
            .load_room(RoomRef::InviteCode("KEEP01"))
            .await
            .expect("load"),
        Some(before.clone())
    );
    assert_eq!(
        store.unfinished_room_ids().await.expect("unfinished"),
        vec![r.id]
    );
    assert_eq!(store.moves(r.id).await.expect("moves"), vec![m]);
    assert_eq!(
        store.extra_history(r.id).await.expect("counting"),
        vec![counting(1, 3)]
    );

    // The version continues where it was.
    let m2 = mv(2, 4, 1, "d6d5", at(4));
    let mut c = commit(r.id, 3, RoomStatus::Playing);
    c.events = vec![moved(&m2)];
    c.mv = Some(m2);
    store.commit(&c).await.expect("move after reopening");
    assert_eq!(load(&store, r.id).await.room.version, 4);
}

async fn unreadable_row_is_corrupt_not_a_panic(store: Store, url: &str) {
    let r = room("ROT001", at(0), 2, Visibility::Public);
    open_room(&store, &r, RoomStatus::Waiting, None).await;
    execute_raw(
        url,
        "UPDATE rooms SET game = 'chess' WHERE invite_code = 'ROT001'",
    )
    .await;
    let err = store
        .load_room(RoomRef::InviteCode("ROT001"))
        .await
        .expect_err("unknown game");
    assert!(
        matches!(&err, StoreError::Corrupt(m) if m.contains("game")),
        "{err:?}"
    );
    let err = store
        .lobby(10)
        .await
        .expect_err("unknown game in the lobby");
    assert!(matches!(err, StoreError::Corrupt(_)), "{err:?}");
    // The rest of the store still works.
    store.ping().await.expect("ping");
    assert_eq!(
        store.unfinished_room_ids().await.expect("unfinished"),
        vec![r.id]
    );
}

/// Runs `sql` on the database at `url` behind the store's back.
async fn execute_raw(url: &str, sql: &'static str) {
    if url.starts_with("sqlite:") {
        let mut conn = sqlx::SqliteConnection::connect(url).await.expect("connect");
        sqlx::query(sql).execute(&mut conn).await.expect("raw sql");
        conn.close().await.expect("close");
    } else {
        let mut conn = sqlx::PgConnection::connect(url).await.expect("connect");
        sqlx::query(sql).execute(&mut conn).await.expect("raw sql");
        conn.close().await.expect("close");
    }
}

// ---------------------------------------------------------------------------------------------
// Backend-specific and URL handling

/// A room's commits are written in the order they were made even when they reach PostgreSQL's
/// group commit together and only the later one fits its batch statement (a seat taken, then a
/// move): the move once went first, failed its version check, and was refused as a conflict.
#[tokio::test]
async fn commits_of_one_room_given_at_once_are_written_in_order() {
    let database = db::fresh_postgres().await;
    let store = Store::connect(&database.url).await.expect("connect");
    let r = room("ORDER1", at(0), 2, Visibility::Private);
    let v = open_room(&store, &r, RoomStatus::Waiting, Some(&seat(0, "A", at(0)))).await;
    let black = seat(1, "B", at(1));
    let mut join = commit(r.id, v, RoomStatus::Playing);
    join.events.push(seat_taken(v + 1, &black));
    join.seats = vec![black];
    let m = mv(1, v + 2, 0, "e3e4", at(2));
    let mut first_move = commit(r.id, v + 1, RoomStatus::Playing);
    first_move.events = vec![moved(&m)];
    first_move.mv = Some(m);
    let (joined, moved_first) = tokio::join!(store.commit(&join), store.commit(&first_move));
    assert!(joined.is_ok(), "{joined:?}");
    assert!(moved_first.is_ok(), "{moved_first:?}");
    assert_eq!(load(&store, r.id).await.room.version, v + 2);
}

#[tokio::test]
async fn connect_to_an_unsupported_url_fails_with_unsupported_url() {
    for url in [
        "mysql://root@localhost/khanate",
        "http://localhost",
        "",
        "postgres:/x",
        "khanate.db",
    ] {
        match Store::connect(url).await {
            Err(StoreError::UnsupportedUrl(u)) => assert_eq!(u, url),
            other => panic!("{url:?}: expected UnsupportedUrl, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn sqlite_memory_store_is_one_database_per_store() {
    let store = Store::connect("sqlite::memory:")
        .await
        .expect("memory store");
    assert_eq!(store.backend_name(), "sqlite");
    let r = room("MEM001", at(0), 2, Visibility::Public);
    let v = open_room(&store, &r, RoomStatus::Waiting, Some(&seat(0, "A", at(0)))).await;
    // Many calls, one connection: all see the same database.
    take_seat(&store, r.id, v, &seat(1, "B", at(1))).await;
    assert_eq!(load(&store, r.id).await.room.version, 2);
    assert_eq!(store.clone().lobby(5).await.expect("lobby").len(), 1);

    let other = Store::connect("sqlite::memory:")
        .await
        .expect("second memory store");
    assert_eq!(
        other.load_room(RoomRef::Id(r.id)).await.expect("load"),
        None
    );
}

#[tokio::test]
async fn sqlite_file_is_created_in_wal_mode() {
    let (file, url) = db::fresh_sqlite_url();
    assert!(!file.path().exists());
    let store = Store::connect(&url).await.expect("open");
    assert!(file.path().exists());
    let mut conn = sqlx::SqliteConnection::connect(&url)
        .await
        .expect("connect");
    let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(&mut conn)
        .await
        .expect("journal mode");
    assert_eq!(mode, "wal");
    conn.close().await.expect("close");
    store.close().await;
}

#[test]
fn timestamps_are_truncated_to_microseconds() {
    let t = at(0) + Duration::nanoseconds(999);
    assert_eq!(truncate_to_micros(t), at(0));
    assert_eq!(khanate::store::now().nanosecond() % 1_000, 0);
}

#[test]
fn test_database_urls_keep_server_and_query() {
    assert_eq!(
        db::with_database(
            "postgres://postgres@127.0.0.1:5432/postgres",
            "khanate_test_x"
        ),
        "postgres://postgres@127.0.0.1:5432/khanate_test_x"
    );
    assert_eq!(
        db::with_database("postgresql://u:p@h/db?sslmode=disable", "t"),
        "postgresql://u:p@h/t?sslmode=disable"
    );
    assert_eq!(db::with_database("postgres://h:1", "t"), "postgres://h:1/t");
}
