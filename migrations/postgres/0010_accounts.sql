-- Accounts (issue 22): users, their sessions and personal API tokens, failed logins for the
-- per-account limit, and the account a seat belongs to. Only SHA-256 hashes of session and API
-- tokens are stored, and only the Argon2id PHC string of a password.
-- migrations/sqlite/0010_accounts.sql is the same logical schema; change both together.

-- `name` is shown with its case; `name_key` (its lowercase) is unique, so names differ ignoring
-- case. A deleted account keeps its row as a tombstone (no password, `deleted_at` set), so its
-- games still name it and nobody else can take its name.
CREATE TABLE users (
    id            uuid        PRIMARY KEY,
    name          text        NOT NULL,
    name_key      text        NOT NULL UNIQUE CHECK (name_key = lower(name)),
    password_hash text,
    created_at    timestamptz NOT NULL,
    disabled_at   timestamptz,
    deleted_at    timestamptz,
    CHECK (deleted_at IS NULL OR password_hash IS NULL),
    CHECK (deleted_at IS NOT NULL OR password_hash IS NOT NULL)
);

-- A logged-in browser. `id` names it on the account page; the cookie's token is known only by
-- its hash.
CREATE TABLE sessions (
    id           uuid        PRIMARY KEY,
    token_hash   bytea       NOT NULL UNIQUE CHECK (octet_length(token_hash) = 32),
    user_id      uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at   timestamptz NOT NULL,
    last_used_at timestamptz NOT NULL,
    user_agent   text
);

CREATE INDEX sessions_user ON sessions (user_id);

-- A personal API token (`Authorization: Bearer ...`). `scopes` is a JSON array of words.
CREATE TABLE api_tokens (
    id           uuid        PRIMARY KEY,
    token_hash   bytea       NOT NULL UNIQUE CHECK (octet_length(token_hash) = 32),
    user_id      uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    description  text        NOT NULL,
    scopes       jsonb       NOT NULL CHECK (jsonb_typeof(scopes) = 'array'),
    created_at   timestamptz NOT NULL,
    last_used_at timestamptz
);

CREATE INDEX api_tokens_user ON api_tokens (user_id);

-- One row per failed login, by the name tried (lowercase), existing or not: the per-account limit
-- counts the recent ones. Rows older than the limit's window are deleted as new ones come.
CREATE TABLE login_failures (
    name_key  text        NOT NULL,
    failed_at timestamptz NOT NULL
);

CREATE INDEX login_failures_name ON login_failures (name_key, failed_at);

-- The account a seat belongs to: NULL for an anonymous seat (its token alone opens it).
ALTER TABLE seats ADD COLUMN user_id uuid REFERENCES users (id);

CREATE INDEX seats_user ON seats (user_id) WHERE user_id IS NOT NULL;
