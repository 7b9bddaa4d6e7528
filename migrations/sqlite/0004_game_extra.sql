-- Each game's own state after a move (rules::Extra: a JSON object whose keys the game defines;
-- Ouk Chatrang: {"counting": {...}} while a count runs), instead of a table typed for Ouk
-- Chatrang's count. Every stored counting state is copied over, then the old table and column go.
-- migrations/postgres/0004_game_extra.sql is the same logical schema; change both together.
CREATE TABLE game_extra (
    room_id TEXT    NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    ply     INTEGER NOT NULL CHECK (ply >= 0),
    extra   TEXT    NOT NULL CHECK (json_type(extra) = 'object'),
    PRIMARY KEY (room_id, ply)
) STRICT;

INSERT INTO game_extra (room_id, ply, extra)
SELECT room_id, ply,
       json_object('counting', json_object(
           'kind', kind, 'count', count, 'limit', limit_moves, 'escaping', escaping,
           'started_ply', started_ply))
FROM counting_state;

DROP TABLE counting_state;

-- A finished game's own state at the end ('{}' when none).
ALTER TABLE games ADD COLUMN extra TEXT NOT NULL DEFAULT '{}' CHECK (json_type(extra) = 'object');
UPDATE games SET extra = json_object('counting', json(counting)) WHERE counting IS NOT NULL;
ALTER TABLE games DROP COLUMN counting;
