-- Challenges (issue 23). migrations/postgres/0014_pairing.sql is the same logical schema for
-- this table; its pairing queue is PostgreSQL's alone (here, on one node, the pools live in the
-- process).

-- A challenge from one account to another: open until it is accepted (a room is made for both),
-- declined, cancelled by its maker, or until `expires_at` (an open row past it is expired; nothing
-- needs to change it). `challenger_seat` NULL: the seats are drawn when it is accepted.
CREATE TABLE challenges (
    id              TEXT    NOT NULL PRIMARY KEY CHECK (length(id) = 36),
    challenger      TEXT    NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    challenged      TEXT    NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    game            TEXT    NOT NULL,
    seats           INTEGER NOT NULL CHECK (seats BETWEEN 2 AND 3),
    clock           TEXT    CHECK (clock IS NULL OR json_valid(clock)),
    mode            TEXT    NOT NULL CHECK (mode IN ('casual', 'rated')),
    challenger_seat INTEGER CHECK (challenger_seat BETWEEN 0 AND 2),
    status          TEXT    NOT NULL
                    CHECK (status IN ('open', 'accepted', 'declined', 'cancelled')),
    room_id         TEXT,
    created_at      TEXT    NOT NULL,
    expires_at      TEXT    NOT NULL,
    decided_at      TEXT,
    CHECK (challenger <> challenged),
    CHECK ((status = 'accepted') = (room_id IS NOT NULL))
) STRICT;

CREATE INDEX challenges_challenged ON challenges (challenged, created_at) WHERE status = 'open';
CREATE INDEX challenges_challenger ON challenges (challenger, created_at) WHERE status = 'open';
