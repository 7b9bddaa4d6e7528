-- Each move's clock: the mover's remaining milliseconds after the move (its increment included),
-- for the PGN's [%clk] comments. NULL in an untimed room. The moves stored before this migration
-- get theirs from their `moved` event, which has carried the clocks since timed rooms exist (its
-- `clock.remaining_ms`, one entry per seat); a move whose event has none stays NULL.
-- migrations/postgres/0009_move_clocks.sql is the same logical schema; change both together.
ALTER TABLE moves ADD COLUMN clock_ms INTEGER CHECK (clock_ms >= 0);

UPDATE moves
SET clock_ms = (
    SELECT json_extract(e.data, '$.clock.remaining_ms[' || moves.seat || ']')
    FROM room_events e
    WHERE e.room_id = moves.room_id AND e.v = moves.v AND e.kind = 'moved'
      AND json_type(e.data, '$.clock.remaining_ms') = 'array'
);
