-- Khanate schema, PostgreSQL. migrations/sqlite/0001_init.sql is the same logical schema; change
-- both together. Times are timestamptz (microseconds, UTC on the wire). JSON is jsonb.

-- One row per room. `version` is the v of the room's last event (0 before any).
CREATE TABLE rooms (
    id             uuid        PRIMARY KEY,
    invite_code    text        NOT NULL UNIQUE,
    game           text        NOT NULL,
    seats          smallint    NOT NULL CHECK (seats BETWEEN 1 AND 255),
    visibility     text        NOT NULL CHECK (visibility IN ('public', 'private')),
    status         text        NOT NULL CHECK (status IN ('waiting', 'playing', 'finished')),
    version        bigint      NOT NULL CHECK (version >= 0),
    start_position text        NOT NULL,
    options        jsonb       NOT NULL,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL
);

-- What the registry restores after a restart, oldest first.
CREATE INDEX rooms_unfinished ON rooms (created_at, id) WHERE status <> 'finished';
-- The lobby, newest first.
CREATE INDEX rooms_lobby ON rooms (created_at DESC, id DESC)
    WHERE status = 'waiting' AND visibility = 'public';

-- A taken seat; a seat is taken once. Only the SHA-256 of the seat token is kept.
CREATE TABLE seats (
    room_id    uuid        NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    seat       smallint    NOT NULL CHECK (seat BETWEEN 0 AND 255),
    name       text,
    token_hash bytea       NOT NULL CHECK (octet_length(token_hash) = 32),
    joined_at  timestamptz NOT NULL,
    PRIMARY KEY (room_id, seat)
);

-- The append-only event log: one row per versioned event, v = 1, 2, 3, ... per room.
CREATE TABLE room_events (
    room_id    uuid        NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    v          bigint      NOT NULL CHECK (v >= 1),
    kind       text        NOT NULL,
    seat       smallint    CHECK (seat BETWEEN 0 AND 255),
    cid        text,
    data       jsonb       NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (room_id, v)
);

-- Finding the answer to a repeated client id.
CREATE INDEX room_events_cid ON room_events (room_id, seat, cid);

-- One row per accepted move; `v` is the version of its `moved` event.
CREATE TABLE moves (
    room_id    uuid        NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    ply        integer     NOT NULL CHECK (ply >= 1),
    v          bigint      NOT NULL,
    seat       smallint    NOT NULL CHECK (seat BETWEEN 0 AND 255),
    notation   text        NOT NULL,
    display    text        NOT NULL,
    position   text        NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (room_id, ply),
    FOREIGN KEY (room_id, v) REFERENCES room_events (room_id, v)
);

-- The Ouk Chatrang counting state after a move, while a count runs.
CREATE TABLE counting_state (
    room_id     uuid    NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    ply         integer NOT NULL CHECK (ply >= 0),
    kind        text    NOT NULL CHECK (kind IN ('board', 'piece')),
    count       integer NOT NULL,
    limit_moves integer NOT NULL,
    escaping    text    NOT NULL CHECK (escaping IN ('white', 'black')),
    started_ply integer NOT NULL,
    PRIMARY KEY (room_id, ply)
);

-- A finished game, for the archive (GET /api/games/{room_id}). Move lists are JSON arrays of strings.
CREATE TABLE games (
    room_id        uuid        PRIMARY KEY REFERENCES rooms (id) ON DELETE CASCADE,
    game           text        NOT NULL,
    players        jsonb       NOT NULL,
    winner         smallint    CHECK (winner BETWEEN 0 AND 255),
    reason         text        NOT NULL,
    start_position text        NOT NULL,
    final_position text        NOT NULL,
    moves          jsonb       NOT NULL CHECK (jsonb_typeof(moves) = 'array'),
    display_moves  jsonb       NOT NULL CHECK (jsonb_typeof(display_moves) = 'array'),
    counting       jsonb,
    started_at     timestamptz,
    finished_at    timestamptz NOT NULL
);
