-- Quick pairing and challenges (issue 23). migrations/sqlite/0014_pairing.sql has the same
-- challenges table; the pairing queue is PostgreSQL's alone (on SQLite, one node, the pools live
-- in the process).

-- A challenge from one account to another: open until it is accepted (a room is made for both),
-- declined, cancelled by its maker, or until `expires_at` (an open row past it is expired; nothing
-- needs to change it). `challenger_seat` NULL: the seats are drawn when it is accepted.
CREATE TABLE challenges (
    id              uuid        PRIMARY KEY,
    challenger      uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    challenged      uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    game            text        NOT NULL,
    seats           smallint    NOT NULL CHECK (seats BETWEEN 2 AND 3),
    clock           jsonb,
    mode            text        NOT NULL CHECK (mode IN ('casual', 'rated')),
    challenger_seat smallint    CHECK (challenger_seat BETWEEN 0 AND 2),
    status          text        NOT NULL
                    CHECK (status IN ('open', 'accepted', 'declined', 'cancelled')),
    room_id         uuid,
    created_at      timestamptz NOT NULL,
    expires_at      timestamptz NOT NULL,
    decided_at      timestamptz,
    CHECK (challenger <> challenged),
    CHECK ((status = 'accepted') = (room_id IS NOT NULL))
);

CREATE INDEX challenges_challenged ON challenges (challenged, created_at) WHERE status = 'open';
CREATE INDEX challenges_challenger ON challenges (challenger, created_at) WHERE status = 'open';

-- The players waiting in the pairing pools of every node. A row is written by the node holding
-- its player's request (`holder`, NULL on a single node) and paired by one transaction over the
-- pool's rows (`FOR UPDATE SKIP LOCKED`), which creates the room and sets `room_id` and `seat`:
-- a row is paired once, whatever node pairs it. The seat token is made by the holder, which alone
-- knows it; the row keeps its SHA-256, which the room's seat is created with. The holder deletes
-- the row once it has answered, or when its client went away before a pairing.
CREATE TABLE pairing_waiting (
    id             uuid        PRIMARY KEY,
    pool           text        NOT NULL,
    user_id        uuid        REFERENCES users (id) ON DELETE CASCADE,
    name           text,
    rating         integer     NOT NULL,
    token_hash     bytea       NOT NULL CHECK (octet_length(token_hash) = 32),
    last_opponents uuid[]      NOT NULL,
    last_seat      smallint,
    holder         uuid,
    since          timestamptz NOT NULL,
    room_id        uuid,
    seat           smallint,
    CHECK ((room_id IS NULL) = (seat IS NULL))
);

CREATE INDEX pairing_waiting_pool ON pairing_waiting (pool, since) WHERE room_id IS NULL;
-- An account waits in one pool at a time.
CREATE UNIQUE INDEX pairing_waiting_user ON pairing_waiting (user_id)
    WHERE room_id IS NULL AND user_id IS NOT NULL;
