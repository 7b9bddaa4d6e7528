-- Chat: one row per message, seq = 1, 2, 3, ... per room (both channels share the numbering).
-- migrations/sqlite/0002_chat.sql is the same logical schema; change both together. Chat is not
-- part of the game: it has no room version and is not in room_events.
CREATE TABLE chat_messages (
    room_id    uuid        NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    seq        bigint      NOT NULL CHECK (seq >= 1),
    channel    text        NOT NULL CHECK (channel IN ('players', 'spectators')),
    seat       smallint    CHECK (seat BETWEEN 0 AND 255),
    name       text,
    text       text        NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (room_id, seq)
);

-- The recent messages of one channel, newest first.
CREATE INDEX chat_messages_channel ON chat_messages (room_id, channel, seq DESC);
