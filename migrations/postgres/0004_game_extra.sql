-- Each game's own state after a move (rules::Extra: a JSON object whose keys the game defines;
-- Ouk Chatrang: {"counting": {...}} while a count runs), instead of a table typed for Ouk
-- Chatrang's count. Every stored counting state is copied over, then the old table and column go.
-- migrations/sqlite/0004_game_extra.sql is the same logical schema; change both together.
CREATE TABLE game_extra (
    room_id uuid    NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    ply     integer NOT NULL CHECK (ply >= 0),
    extra   jsonb   NOT NULL CHECK (jsonb_typeof(extra) = 'object'),
    PRIMARY KEY (room_id, ply)
);

INSERT INTO game_extra (room_id, ply, extra)
SELECT room_id, ply,
       jsonb_build_object('counting', jsonb_build_object(
           'kind', kind, 'count', count, 'limit', limit_moves, 'escaping', escaping,
           'started_ply', started_ply))
FROM counting_state;

DROP TABLE counting_state;

-- A finished game's own state at the end ({} when none).
ALTER TABLE games ADD COLUMN extra jsonb NOT NULL DEFAULT '{}'::jsonb
    CHECK (jsonb_typeof(extra) = 'object');
UPDATE games SET extra = jsonb_build_object('counting', counting) WHERE counting IS NOT NULL;
ALTER TABLE games DROP COLUMN counting;
