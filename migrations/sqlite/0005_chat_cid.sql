-- Exactly-once chat: a player's message keeps the cid it was sent with and the room version its
-- ack carried, so a retry after a restart gets the same answer and is not stored again.
-- migrations/postgres/0005_chat_cid.sql is the same logical schema; change both together. Rows
-- stored before this migration, and spectators' messages, have no cid (NULL).
ALTER TABLE chat_messages ADD COLUMN cid TEXT CHECK (cid IS NULL OR seat IS NOT NULL);
ALTER TABLE chat_messages ADD COLUMN v INTEGER CHECK (v >= 0) CHECK ((cid IS NULL) = (v IS NULL));

-- One message per (room, seat, cid): a retry racing a restart or a lost commit cannot store twice.
CREATE UNIQUE INDEX chat_messages_cid ON chat_messages (room_id, seat, cid) WHERE cid IS NOT NULL;
