-- Khanate schema, SQLite. migrations/postgres/0001_init.sql is the same logical schema; change both
-- together. STRICT tables. UUIDs are hyphenated lowercase text; times are fixed-width RFC 3339 UTC
-- text with microseconds ('2026-11-29T16:44:00.123456Z', so text order is time order); JSON is text.

-- One row per room. `version` is the v of the room's last event (0 before any).
CREATE TABLE rooms (
    id             TEXT    NOT NULL PRIMARY KEY CHECK (length(id) = 36),
    invite_code    TEXT    NOT NULL UNIQUE,
    game           TEXT    NOT NULL,
    seats          INTEGER NOT NULL CHECK (seats BETWEEN 1 AND 255),
    visibility     TEXT    NOT NULL CHECK (visibility IN ('public', 'private')),
    status         TEXT    NOT NULL CHECK (status IN ('waiting', 'playing', 'finished')),
    version        INTEGER NOT NULL CHECK (version >= 0),
    start_position TEXT    NOT NULL,
    options        TEXT    NOT NULL CHECK (json_valid(options)),
    created_at     TEXT    NOT NULL,
    updated_at     TEXT    NOT NULL
) STRICT;

-- What the registry restores after a restart, oldest first.
CREATE INDEX rooms_unfinished ON rooms (created_at, id) WHERE status <> 'finished';
-- The lobby, newest first.
CREATE INDEX rooms_lobby ON rooms (created_at DESC, id DESC)
    WHERE status = 'waiting' AND visibility = 'public';

-- A taken seat; a seat is taken once. Only the SHA-256 of the seat token is kept.
CREATE TABLE seats (
    room_id    TEXT    NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    seat       INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 255),
    name       TEXT,
    token_hash BLOB    NOT NULL CHECK (length(token_hash) = 32),
    joined_at  TEXT    NOT NULL,
    PRIMARY KEY (room_id, seat)
) STRICT;

-- The append-only event log: one row per versioned event, v = 1, 2, 3, ... per room.
CREATE TABLE room_events (
    room_id    TEXT    NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    v          INTEGER NOT NULL CHECK (v >= 1),
    kind       TEXT    NOT NULL,
    seat       INTEGER CHECK (seat BETWEEN 0 AND 255),
    cid        TEXT,
    data       TEXT    NOT NULL CHECK (json_valid(data)),
    created_at TEXT    NOT NULL,
    PRIMARY KEY (room_id, v)
) STRICT;

-- Finding the answer to a repeated client id.
CREATE INDEX room_events_cid ON room_events (room_id, seat, cid);

-- One row per accepted move; `v` is the version of its `moved` event.
CREATE TABLE moves (
    room_id    TEXT    NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    ply        INTEGER NOT NULL CHECK (ply >= 1),
    v          INTEGER NOT NULL,
    seat       INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 255),
    notation   TEXT    NOT NULL,
    display    TEXT    NOT NULL,
    position   TEXT    NOT NULL,
    created_at TEXT    NOT NULL,
    PRIMARY KEY (room_id, ply),
    FOREIGN KEY (room_id, v) REFERENCES room_events (room_id, v)
) STRICT;

-- The Ouk Chatrang counting state after a move, while a count runs.
CREATE TABLE counting_state (
    room_id     TEXT    NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    ply         INTEGER NOT NULL CHECK (ply >= 0),
    kind        TEXT    NOT NULL CHECK (kind IN ('board', 'piece')),
    count       INTEGER NOT NULL,
    limit_moves INTEGER NOT NULL,
    escaping    TEXT    NOT NULL CHECK (escaping IN ('white', 'black')),
    started_ply INTEGER NOT NULL,
    PRIMARY KEY (room_id, ply)
) STRICT;

-- A finished game, for the archive (GET /api/games/{room_id}). Move lists are JSON arrays of strings.
CREATE TABLE games (
    room_id        TEXT    NOT NULL PRIMARY KEY REFERENCES rooms (id) ON DELETE CASCADE,
    game           TEXT    NOT NULL,
    players        TEXT    NOT NULL CHECK (json_valid(players)),
    winner         INTEGER CHECK (winner BETWEEN 0 AND 255),
    reason         TEXT    NOT NULL,
    start_position TEXT    NOT NULL,
    final_position TEXT    NOT NULL,
    moves          TEXT    NOT NULL CHECK (json_type(moves) = 'array'),
    display_moves  TEXT    NOT NULL CHECK (json_type(display_moves) = 'array'),
    counting       TEXT    CHECK (counting IS NULL OR json_valid(counting)),
    started_at     TEXT,
    finished_at    TEXT    NOT NULL
) STRICT;
