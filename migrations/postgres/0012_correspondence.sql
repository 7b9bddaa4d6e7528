-- Correspondence games (`clock {"days_per_move": N}`): when the seat on move of a game in play
-- runs out of its days, so that a sweep finds the room while it is out of memory or after a
-- restart, with nobody connected. NULL for every other room and once no clock runs; every commit
-- of the room writes it. Rooms stored before this migration are never correspondence games.
-- migrations/sqlite/0012_correspondence.sql is the same logical schema; change both together.
ALTER TABLE rooms ADD COLUMN flag_at timestamptz;

CREATE INDEX rooms_flag_at ON rooms (flag_at) WHERE flag_at IS NOT NULL;
