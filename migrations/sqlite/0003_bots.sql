-- Computer opponents: a seat held by a bot records its level (1 to 5); NULL for a person.
-- migrations/postgres/0003_bots.sql is the same logical schema; change both together. The level
-- is also in the seat's seat_taken event (data.bot), which is what a restored room replays.
ALTER TABLE seats ADD COLUMN bot_level INTEGER CHECK (bot_level BETWEEN 1 AND 5);
