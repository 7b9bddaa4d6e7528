-- Ratings (docs/ratings.md). A room created with `"rated": true` is rated (`rooms.rated`, 0 or 1;
-- every room stored before this migration is not). Each account has one rating per pool: game,
-- player count and speed (`blitz`, `rapid`, `classical`, `correspondence`, see
-- `ratings::Speed`): a Glicko-2 rating (`rating`, `rd`, `volatility`) for a two-player pool, a
-- Weng-Lin one (`mu`, `sigma`, with `rating` its 1500-centred display value) for three-player
-- Khan-Tsin. A pool's row is written by the transaction that stores a rated game's end, with one
-- `rating_changes` row per seat of that game; a player without a row has the default rating.
-- migrations/postgres/0013_ratings.sql is the same logical schema; change both together.
ALTER TABLE rooms ADD COLUMN rated INTEGER NOT NULL DEFAULT 0 CHECK (rated IN (0, 1));

CREATE TABLE ratings (
    user_id    TEXT    NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    game       TEXT    NOT NULL,
    players    INTEGER NOT NULL CHECK (players IN (2, 3)),
    speed      TEXT    NOT NULL
               CHECK (speed IN ('blitz', 'rapid', 'classical', 'correspondence')),
    -- The displayed rating on the 1500-centred scale.
    rating     REAL    NOT NULL,
    rd         REAL,
    volatility REAL,
    mu         REAL,
    sigma      REAL,
    -- Rated games played in the pool.
    games      INTEGER NOT NULL CHECK (games > 0),
    -- When the last of them ended (the inactivity that grows the deviation counts from here).
    rated_at   TEXT    NOT NULL,
    PRIMARY KEY (user_id, game, players, speed),
    CHECK ((players = 2 AND rd IS NOT NULL AND volatility IS NOT NULL
            AND mu IS NULL AND sigma IS NULL)
        OR (players = 3 AND mu IS NOT NULL AND sigma IS NOT NULL
            AND rd IS NULL AND volatility IS NULL))
) STRICT;

-- The leaderboard: a pool's players by rating.
CREATE INDEX ratings_by_pool ON ratings (game, players, speed, rating DESC);

-- Each seat's rating change in a rated game, stored with the game's end: the rating before and
-- after it on the 1500-centred scale, and `diff`, the change as shown (the rounded after minus
-- the rounded before). The pool and time are repeated here for the rating history.
CREATE TABLE rating_changes (
    room_id  TEXT    NOT NULL REFERENCES games (room_id) ON DELETE CASCADE,
    seat     INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 255),
    user_id  TEXT    NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    game     TEXT    NOT NULL,
    players  INTEGER NOT NULL CHECK (players IN (2, 3)),
    speed    TEXT    NOT NULL,
    rating_before REAL    NOT NULL,
    rating_after  REAL    NOT NULL,
    diff          INTEGER NOT NULL,
    rated_at TEXT    NOT NULL,
    PRIMARY KEY (room_id, seat)
) STRICT;

-- A player's rating history in a pool, in time order.
CREATE INDEX rating_changes_history ON rating_changes (user_id, game, players, speed, rated_at);
