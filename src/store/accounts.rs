//! Accounts in the store (migration `0010_accounts`): users, their sessions and personal API
//! tokens, and the failed logins the per-account limit counts. Written once over [`Dialect`] as
//! the room queries are; what must change together (a password, the other sessions and the API
//! tokens; a tombstone and the credentials) runs in one transaction.
//!
//! Secrets are never stored: a session or API token only as its SHA-256 ([`SessionRow::token_hash`],
//! [`ApiTokenRow::token_hash`]), a password only as its Argon2id PHC string, made by
//! `crate::accounts::passwords`. Tokens are found by their hash (an index look-up), so no stored
//! secret is ever compared byte by byte.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::dialect::{Dialect, Param, Statement};
use super::postgres::Pg;
use super::queries::Cols;
use super::sqlite::Lite;
use super::{Store, StoreError, codec, truncate_to_micros};

/// A user's row. `name_key` (the name in lowercase, unique) is derived from `name`.
#[derive(Clone, Debug, PartialEq)]
pub struct UserRow {
    /// The account's id.
    pub id: Uuid,
    /// The username as its owner wrote it (`[A-Za-z0-9_-]`, 2 to 20 characters).
    pub name: String,
    /// The Argon2id PHC string of the password (`$argon2id$v=19$m=19456,t=2,p=1$...`); `None`
    /// once the account is deleted.
    pub password_hash: Option<String>,
    /// When the account was made.
    pub created_at: DateTime<Utc>,
    /// Since when an operator has disabled it (`khanate user disable`), if they have.
    pub disabled_at: Option<DateTime<Utc>>,
    /// When its owner deleted it; the row stays as a tombstone so its games keep naming it.
    pub deleted_at: Option<DateTime<Utc>>,
}

impl UserRow {
    /// Whether the account may be used: neither disabled nor deleted.
    pub fn active(&self) -> bool {
        self.disabled_at.is_none() && self.deleted_at.is_none()
    }
}

/// A logged-in browser's session.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionRow {
    /// Names the session on the account page (not a secret).
    pub id: Uuid,
    /// SHA-256 of the cookie's token.
    pub token_hash: [u8; 32],
    /// Whose session.
    pub user_id: Uuid,
    /// When the user logged in.
    pub created_at: DateTime<Utc>,
    /// The last request it authenticated (a session unused for 30 days has ended).
    pub last_used_at: DateTime<Utc>,
    /// The `User-Agent` of the login, at most 256 characters.
    pub user_agent: Option<String>,
}

/// A personal API token.
#[derive(Clone, Debug, PartialEq)]
pub struct ApiTokenRow {
    /// Names the token for listing and revoking (not a secret).
    pub id: Uuid,
    /// SHA-256 of the token.
    pub token_hash: [u8; 32],
    /// Whose token.
    pub user_id: Uuid,
    /// What its owner wrote it is for.
    pub description: String,
    /// What it may do: `read`, `play`.
    pub scopes: Vec<String>,
    /// When it was made.
    pub created_at: DateTime<Utc>,
    /// The last request it authenticated, if any.
    pub last_used_at: Option<DateTime<Utc>>,
}

/// `$f::<Dialect>(connection, args...)` on the store's backend.
macro_rules! on_conn {
    ($store:expr, $f:ident($($arg:expr),*)) => {
        match $store {
            Store::Postgres(s) => $f::<Pg>(&mut *s.conn().await?, $($arg),*).await,
            Store::Sqlite(s) => $f::<Lite>(&mut *s.conn().await?, $($arg),*).await,
        }
    };
}

/// `$f::<Dialect>(transaction, args...)` in a write transaction of its own, committed when `$f`
/// succeeds.
macro_rules! in_tx {
    ($store:expr, $f:ident($($arg:expr),*)) => {
        match $store {
            Store::Postgres(s) => {
                let mut tx = s.write_tx().await?;
                let out = $f::<Pg>(&mut tx, $($arg),*).await?;
                tx.commit().await?;
                Ok(out)
            }
            Store::Sqlite(s) => {
                let mut tx = s.write_tx().await?;
                let out = $f::<Lite>(&mut tx, $($arg),*).await?;
                tx.commit().await?;
                Ok(out)
            }
        }
    };
}

pub(super) use {in_tx, on_conn};

impl Store {
    /// Stores a new account. Errors: the name is taken ignoring case
    /// ([`StoreError::is_unique_violation`]), or a deleted account had it.
    pub async fn create_user(&self, user: &UserRow) -> Result<(), StoreError> {
        on_conn!(self, insert_user(user))
    }

    /// The account named `name`, ignoring case (deleted and disabled ones included).
    pub async fn user_by_name(&self, name: &str) -> Result<Option<UserRow>, StoreError> {
        let key = name.to_ascii_lowercase();
        let sql = "SELECT u.id, u.name, u.password_hash, u.created_at, u.disabled_at, \
                          u.deleted_at FROM users u WHERE u.name_key = $1";
        on_conn!(self, user_where(sql, Param::Text(Some(&key))))
    }

    /// The account with this id (deleted and disabled ones included).
    pub async fn user_by_id(&self, id: Uuid) -> Result<Option<UserRow>, StoreError> {
        let sql = "SELECT u.id, u.name, u.password_hash, u.created_at, u.disabled_at, \
                          u.deleted_at FROM users u WHERE u.id = $1";
        on_conn!(self, user_where(sql, Param::Uuid(id)))
    }

    /// Every account, by name ignoring case.
    pub async fn users(&self) -> Result<Vec<UserRow>, StoreError> {
        on_conn!(self, all_users())
    }

    /// Sets the password hash of a live account, ends its sessions, all but `keep` (the one that
    /// changed it) when given, and revokes every API token of the account: whoever changes or
    /// resets a password expects everyone else locked out. `false` when no live account has that
    /// id.
    pub async fn set_password(
        &self,
        user_id: Uuid,
        hash: &str,
        keep: Option<&[u8; 32]>,
    ) -> Result<bool, StoreError> {
        in_tx!(self, password_and_sessions(user_id, hash, keep))
    }

    /// Disables (`Some(since)`) or enables (`None`) an account; disabling ends every session.
    /// `false` when no account has that id.
    pub async fn set_disabled(
        &self,
        user_id: Uuid,
        since: Option<DateTime<Utc>>,
    ) -> Result<bool, StoreError> {
        in_tx!(self, disable(user_id, since))
    }

    /// Deletes an account's credentials: the password, every session and every API token go, and
    /// the row stays as a tombstone (`deleted_at`) so its games keep naming it. `false` when no
    /// live account has that id.
    pub async fn delete_user(&self, user_id: Uuid, at: DateTime<Utc>) -> Result<bool, StoreError> {
        in_tx!(self, tombstone(user_id, at))
    }

    /// Stores a new session.
    pub async fn insert_session(&self, session: &SessionRow) -> Result<(), StoreError> {
        on_conn!(self, insert_session_row(session))
    }

    /// The live session whose token hashes to `hash` and its account, marking it used `now`;
    /// `None` when there is none, its account is disabled or deleted, or it was last used before
    /// `idle_since` (it is then deleted).
    pub async fn use_session(
        &self,
        hash: &[u8; 32],
        idle_since: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Option<(SessionRow, UserRow)>, StoreError> {
        on_conn!(self, session_in_use(hash, idle_since, now))
    }

    /// The sessions of an account, the latest used first.
    pub async fn sessions_of(&self, user_id: Uuid) -> Result<Vec<SessionRow>, StoreError> {
        on_conn!(self, sessions_of_user(user_id))
    }

    /// Ends the session whose token hashes to `hash`; `false` when there was none.
    pub async fn delete_session(&self, hash: &[u8; 32]) -> Result<bool, StoreError> {
        let sql = "DELETE FROM sessions WHERE token_hash = $1";
        on_conn!(self, changed(sql, vec![Param::Bytes(hash)]))
    }

    /// Ends the session `id` of `user_id`; `false` when that account has no such session.
    pub async fn delete_session_by_id(&self, user_id: Uuid, id: Uuid) -> Result<bool, StoreError> {
        let sql = "DELETE FROM sessions WHERE user_id = $1 AND id = $2";
        on_conn!(
            self,
            changed(sql, vec![Param::Uuid(user_id), Param::Uuid(id)])
        )
    }

    /// Ends every session of an account; returns how many there were.
    pub async fn delete_sessions_of(&self, user_id: Uuid) -> Result<u64, StoreError> {
        let sql = "DELETE FROM sessions WHERE user_id = $1";
        on_conn!(self, execute(sql, vec![Param::Uuid(user_id)]))
    }

    /// Stores a new API token.
    pub async fn insert_api_token(&self, token: &ApiTokenRow) -> Result<(), StoreError> {
        on_conn!(self, insert_token_row(token))
    }

    /// The API token that hashes to `hash` and its account, marking it used `now`; `None` when
    /// there is none or its account is disabled or deleted.
    pub async fn use_api_token(
        &self,
        hash: &[u8; 32],
        now: DateTime<Utc>,
    ) -> Result<Option<(ApiTokenRow, UserRow)>, StoreError> {
        on_conn!(self, token_in_use(hash, now))
    }

    /// The API tokens of an account, the newest first.
    pub async fn api_tokens_of(&self, user_id: Uuid) -> Result<Vec<ApiTokenRow>, StoreError> {
        on_conn!(self, tokens_of_user(user_id))
    }

    /// Revokes the token `id` of `user_id`; `false` when that account has no such token.
    pub async fn delete_api_token(&self, user_id: Uuid, id: Uuid) -> Result<bool, StoreError> {
        let sql = "DELETE FROM api_tokens WHERE user_id = $1 AND id = $2";
        on_conn!(
            self,
            changed(sql, vec![Param::Uuid(user_id), Param::Uuid(id)])
        )
    }

    /// The seats whose token hashes to `hash` (a rematch carries its token to the new room), as
    /// (room, account if any, whether a bot holds it).
    pub async fn seats_of_token(
        &self,
        hash: &[u8; 32],
    ) -> Result<Vec<(Uuid, Option<Uuid>, bool)>, StoreError> {
        on_conn!(self, token_seats(hash))
    }

    /// Gives every person's seat whose token hashes to `hash` and that belongs to no account to
    /// `user_id`; returns how many.
    pub async fn attach_seats(&self, hash: &[u8; 32], user_id: Uuid) -> Result<u64, StoreError> {
        let sql = "UPDATE seats SET user_id = $1 \
                   WHERE token_hash = $2 AND user_id IS NULL AND bot_level IS NULL";
        on_conn!(
            self,
            execute(sql, vec![Param::Uuid(user_id), Param::Bytes(hash)])
        )
    }

    /// The rooms of the finished games in which `user_id` held a seat, the first finished first.
    pub async fn finished_games_of(&self, user_id: Uuid) -> Result<Vec<Uuid>, StoreError> {
        on_conn!(self, games_of_user(user_id))
    }

    /// Counts a failed login for the name `name_key` (lowercase, existing or not) at `at`, and
    /// forgets that name's failures from before `forget_before`.
    pub async fn record_login_failure(
        &self,
        name_key: &str,
        at: DateTime<Utc>,
        forget_before: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        on_conn!(self, login_failure(name_key, at, forget_before))
    }

    /// The failed logins for `name_key` since `since`: how many, and the oldest of them.
    pub async fn login_failures_since(
        &self,
        name_key: &str,
        since: DateTime<Utc>,
    ) -> Result<(i64, Option<DateTime<Utc>>), StoreError> {
        on_conn!(self, failures_since(name_key, since))
    }

    /// Forgets the failed logins for `name_key` (after a successful one).
    pub async fn clear_login_failures(&self, name_key: &str) -> Result<(), StoreError> {
        let sql = "DELETE FROM login_failures WHERE name_key = $1";
        on_conn!(self, execute(sql, vec![Param::Text(Some(name_key))])).map(|_| ())
    }
}

async fn execute<D: Dialect>(
    conn: &mut D::Conn,
    sql: &'static str,
    params: Vec<Param<'_>>,
) -> Result<u64, StoreError> {
    D::execute(conn, Statement::new(sql, params)).await
}

async fn changed<D: Dialect>(
    conn: &mut D::Conn,
    sql: &'static str,
    params: Vec<Param<'_>>,
) -> Result<bool, StoreError> {
    Ok(execute::<D>(conn, sql, params).await? > 0)
}

async fn insert_user<D: Dialect>(conn: &mut D::Conn, user: &UserRow) -> Result<(), StoreError> {
    let key = user.name.to_ascii_lowercase();
    let sql = "INSERT INTO users (id, name, name_key, password_hash, created_at, disabled_at, \
                                  deleted_at) \
               VALUES ($1, $2, $3, $4, $5, $6, $7)";
    let params = vec![
        Param::Uuid(user.id),
        Param::Text(Some(&user.name)),
        Param::Text(Some(&key)),
        Param::Text(user.password_hash.as_deref()),
        Param::Time(Some(truncate_to_micros(user.created_at))),
        Param::Time(user.disabled_at.map(truncate_to_micros)),
        Param::Time(user.deleted_at.map(truncate_to_micros)),
    ];
    execute::<D>(conn, sql, params).await.map(|_| ())
}

async fn user_where<D: Dialect>(
    conn: &mut D::Conn,
    sql: &'static str,
    value: Param<'_>,
) -> Result<Option<UserRow>, StoreError> {
    D::fetch_optional(conn, Statement::new(sql, [value]))
        .await?
        .map(|row| user_from_row::<D>(&row))
        .transpose()
}

async fn all_users<D: Dialect>(conn: &mut D::Conn) -> Result<Vec<UserRow>, StoreError> {
    let sql = "SELECT u.id, u.name, u.password_hash, u.created_at, u.disabled_at, u.deleted_at \
               FROM users u ORDER BY u.name_key";
    D::fetch_all(conn, Statement::new(sql, []))
        .await?
        .iter()
        .map(user_from_row::<D>)
        .collect()
}

async fn password_and_sessions<D: Dialect>(
    conn: &mut D::Conn,
    user_id: Uuid,
    hash: &str,
    keep: Option<&[u8; 32]>,
) -> Result<bool, StoreError> {
    let sql = "UPDATE users SET password_hash = $1 WHERE id = $2 AND deleted_at IS NULL";
    let params = vec![Param::Text(Some(hash)), Param::Uuid(user_id)];
    if !changed::<D>(conn, sql, params).await? {
        return Ok(false);
    }
    match keep {
        Some(keep) => {
            let sql = "DELETE FROM sessions WHERE user_id = $1 AND token_hash <> $2";
            execute::<D>(conn, sql, vec![Param::Uuid(user_id), Param::Bytes(keep)]).await?
        }
        None => {
            let sql = "DELETE FROM sessions WHERE user_id = $1";
            execute::<D>(conn, sql, vec![Param::Uuid(user_id)]).await?
        }
    };
    let sql = "DELETE FROM api_tokens WHERE user_id = $1";
    execute::<D>(conn, sql, vec![Param::Uuid(user_id)]).await?;
    Ok(true)
}

async fn disable<D: Dialect>(
    conn: &mut D::Conn,
    user_id: Uuid,
    since: Option<DateTime<Utc>>,
) -> Result<bool, StoreError> {
    let sql = "UPDATE users SET disabled_at = $1 WHERE id = $2";
    let params = vec![
        Param::Time(since.map(truncate_to_micros)),
        Param::Uuid(user_id),
    ];
    if !changed::<D>(conn, sql, params).await? {
        return Ok(false);
    }
    if since.is_some() {
        let sql = "DELETE FROM sessions WHERE user_id = $1";
        execute::<D>(conn, sql, vec![Param::Uuid(user_id)]).await?;
    }
    Ok(true)
}

async fn tombstone<D: Dialect>(
    conn: &mut D::Conn,
    user_id: Uuid,
    at: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let sql = "UPDATE users SET password_hash = NULL, deleted_at = $1 \
               WHERE id = $2 AND deleted_at IS NULL";
    let params = vec![
        Param::Time(Some(truncate_to_micros(at))),
        Param::Uuid(user_id),
    ];
    if !changed::<D>(conn, sql, params).await? {
        return Ok(false);
    }
    for sql in [
        "DELETE FROM sessions WHERE user_id = $1",
        "DELETE FROM api_tokens WHERE user_id = $1",
    ] {
        execute::<D>(conn, sql, vec![Param::Uuid(user_id)]).await?;
    }
    Ok(true)
}

async fn insert_session_row<D: Dialect>(
    conn: &mut D::Conn,
    s: &SessionRow,
) -> Result<(), StoreError> {
    let sql = "INSERT INTO sessions (id, token_hash, user_id, created_at, last_used_at, \
                                     user_agent) \
               VALUES ($1, $2, $3, $4, $5, $6)";
    let params = vec![
        Param::Uuid(s.id),
        Param::Bytes(&s.token_hash),
        Param::Uuid(s.user_id),
        Param::Time(Some(truncate_to_micros(s.created_at))),
        Param::Time(Some(truncate_to_micros(s.last_used_at))),
        Param::Text(s.user_agent.as_deref()),
    ];
    execute::<D>(conn, sql, params).await.map(|_| ())
}

async fn session_in_use<D: Dialect>(
    conn: &mut D::Conn,
    hash: &[u8; 32],
    idle_since: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<Option<(SessionRow, UserRow)>, StoreError> {
    let sql = "DELETE FROM sessions WHERE token_hash = $1 AND last_used_at < $2";
    let idle = Param::Time(Some(truncate_to_micros(idle_since)));
    execute::<D>(conn, sql, vec![Param::Bytes(hash), idle]).await?;
    let update = "UPDATE sessions SET last_used_at = $1 WHERE token_hash = $2";
    let select = "SELECT s.id AS session_id, s.token_hash, s.user_id, \
                         s.created_at AS session_created, s.last_used_at, s.user_agent, \
                         u.id, u.name, u.password_hash, u.created_at, u.disabled_at, u.deleted_at \
                  FROM sessions s JOIN users u ON u.id = s.user_id \
                  WHERE s.token_hash = $1";
    used_by_active::<D, _>(conn, [update, select], hash, now, |row| {
        session_from_row::<D>(row, "session_id", "session_created")
    })
    .await
}

/// Marks the credential that hashes to `hash` used `now` (`sql[0]`, an update binding the time
/// and the hash), then reads it with its account (`sql[1]`, binding the hash) through `read`:
/// `None` when there is none or its account is disabled or deleted.
async fn used_by_active<D: Dialect, T>(
    conn: &mut D::Conn,
    sql: [&'static str; 2],
    hash: &[u8; 32],
    now: DateTime<Utc>,
    read: impl Fn(&D::Row) -> Result<T, StoreError>,
) -> Result<Option<(T, UserRow)>, StoreError> {
    let now = Param::Time(Some(truncate_to_micros(now)));
    if !changed::<D>(conn, sql[0], vec![now, Param::Bytes(hash)]).await? {
        return Ok(None);
    }
    let Some(row) = D::fetch_optional(conn, Statement::new(sql[1], [Param::Bytes(hash)])).await?
    else {
        return Ok(None);
    };
    let user = user_from_row::<D>(&row)?;
    if !user.active() {
        return Ok(None);
    }
    Ok(Some((read(&row)?, user)))
}

async fn sessions_of_user<D: Dialect>(
    conn: &mut D::Conn,
    user_id: Uuid,
) -> Result<Vec<SessionRow>, StoreError> {
    let sql = "SELECT id, token_hash, user_id, created_at, last_used_at, user_agent \
               FROM sessions WHERE user_id = $1 ORDER BY last_used_at DESC, id";
    D::fetch_all(conn, Statement::new(sql, [Param::Uuid(user_id)]))
        .await?
        .iter()
        .map(|row| session_from_row::<D>(row, "id", "created_at"))
        .collect()
}

async fn insert_token_row<D: Dialect>(
    conn: &mut D::Conn,
    t: &ApiTokenRow,
) -> Result<(), StoreError> {
    let sql = "INSERT INTO api_tokens (id, token_hash, user_id, description, scopes, created_at, \
                                       last_used_at) \
               VALUES ($1, $2, $3, $4, $5, $6, $7)";
    let params = vec![
        Param::Uuid(t.id),
        Param::Bytes(&t.token_hash),
        Param::Uuid(t.user_id),
        Param::Text(Some(&t.description)),
        Param::StringList(&t.scopes),
        Param::Time(Some(truncate_to_micros(t.created_at))),
        Param::Time(t.last_used_at.map(truncate_to_micros)),
    ];
    execute::<D>(conn, sql, params).await.map(|_| ())
}

async fn token_in_use<D: Dialect>(
    conn: &mut D::Conn,
    hash: &[u8; 32],
    now: DateTime<Utc>,
) -> Result<Option<(ApiTokenRow, UserRow)>, StoreError> {
    let update = "UPDATE api_tokens SET last_used_at = $1 WHERE token_hash = $2";
    let select = "SELECT t.id AS token_id, t.token_hash, t.user_id, t.description, t.scopes, \
                         t.created_at AS token_created, t.last_used_at, \
                         u.id, u.name, u.password_hash, u.created_at, u.disabled_at, u.deleted_at \
                  FROM api_tokens t JOIN users u ON u.id = t.user_id \
                  WHERE t.token_hash = $1";
    used_by_active::<D, _>(conn, [update, select], hash, now, |row| {
        token_from_row::<D>(row, "token_id", "token_created")
    })
    .await
}

async fn tokens_of_user<D: Dialect>(
    conn: &mut D::Conn,
    user_id: Uuid,
) -> Result<Vec<ApiTokenRow>, StoreError> {
    let sql = "SELECT id, token_hash, user_id, description, scopes, created_at, last_used_at \
               FROM api_tokens WHERE user_id = $1 ORDER BY created_at DESC, id";
    D::fetch_all(conn, Statement::new(sql, [Param::Uuid(user_id)]))
        .await?
        .iter()
        .map(|row| token_from_row::<D>(row, "id", "created_at"))
        .collect()
}

async fn token_seats<D: Dialect>(
    conn: &mut D::Conn,
    hash: &[u8; 32],
) -> Result<Vec<(Uuid, Option<Uuid>, bool)>, StoreError> {
    let sql = "SELECT room_id, user_id, bot_level FROM seats WHERE token_hash = $1 \
               ORDER BY joined_at";
    D::fetch_all(conn, Statement::new(sql, [Param::Bytes(hash)]))
        .await?
        .iter()
        .map(|row| {
            let room = Cols::<D>(row).uuid("room_id")?;
            Ok((
                room,
                D::uuid(row, "user_id")?,
                D::int(row, "bot_level")?.is_some(),
            ))
        })
        .collect()
}

async fn games_of_user<D: Dialect>(
    conn: &mut D::Conn,
    user_id: Uuid,
) -> Result<Vec<Uuid>, StoreError> {
    let sql = "SELECT g.room_id FROM games g \
               WHERE EXISTS (SELECT 1 FROM seats s WHERE s.room_id = g.room_id AND s.user_id = $1) \
               ORDER BY g.finished_at, g.room_id";
    D::fetch_all(conn, Statement::new(sql, [Param::Uuid(user_id)]))
        .await?
        .iter()
        .map(|row| Cols::<D>(row).uuid("room_id"))
        .collect()
}

async fn login_failure<D: Dialect>(
    conn: &mut D::Conn,
    name_key: &str,
    at: DateTime<Utc>,
    forget_before: DateTime<Utc>,
) -> Result<(), StoreError> {
    let sql = "DELETE FROM login_failures WHERE name_key = $1 AND failed_at < $2";
    let params = vec![
        Param::Text(Some(name_key)),
        Param::Time(Some(truncate_to_micros(forget_before))),
    ];
    execute::<D>(conn, sql, params).await?;
    let sql = "INSERT INTO login_failures (name_key, failed_at) VALUES ($1, $2)";
    let params = vec![
        Param::Text(Some(name_key)),
        Param::Time(Some(truncate_to_micros(at))),
    ];
    execute::<D>(conn, sql, params).await.map(|_| ())
}

async fn failures_since<D: Dialect>(
    conn: &mut D::Conn,
    name_key: &str,
    since: DateTime<Utc>,
) -> Result<(i64, Option<DateTime<Utc>>), StoreError> {
    let sql = "SELECT failed_at FROM login_failures WHERE name_key = $1 AND failed_at >= $2 \
               ORDER BY failed_at";
    let params = [
        Param::Text(Some(name_key)),
        Param::Time(Some(truncate_to_micros(since))),
    ];
    let rows = D::fetch_all(conn, Statement::new(sql, params)).await?;
    let oldest = rows
        .first()
        .map(|row| Cols::<D>(row).time("failed_at"))
        .transpose()?;
    let count = i64::try_from(rows.len()).unwrap_or(i64::MAX);
    Ok((count, oldest))
}

fn user_from_row<D: Dialect>(row: &D::Row) -> Result<UserRow, StoreError> {
    let cols = Cols::<D>(row);
    Ok(UserRow {
        id: cols.uuid("id")?,
        name: cols.text("name")?,
        password_hash: D::text(row, "password_hash")?,
        created_at: cols.time("created_at")?,
        disabled_at: D::time(row, "disabled_at")?,
        deleted_at: D::time(row, "deleted_at")?,
    })
}

fn hash_of<D: Dialect>(row: &D::Row) -> Result<[u8; 32], StoreError> {
    let bytes = D::bytes(row, "token_hash")?;
    codec::token_hash("token_hash", super::dialect::required("token_hash", bytes)?)
}

fn session_from_row<D: Dialect>(
    row: &D::Row,
    id: &'static str,
    created: &'static str,
) -> Result<SessionRow, StoreError> {
    let cols = Cols::<D>(row);
    Ok(SessionRow {
        id: cols.uuid(id)?,
        token_hash: hash_of::<D>(row)?,
        user_id: cols.uuid("user_id")?,
        created_at: cols.time(created)?,
        last_used_at: cols.time("last_used_at")?,
        user_agent: D::text(row, "user_agent")?,
    })
}

fn token_from_row<D: Dialect>(
    row: &D::Row,
    id: &'static str,
    created: &'static str,
) -> Result<ApiTokenRow, StoreError> {
    let cols = Cols::<D>(row);
    Ok(ApiTokenRow {
        id: cols.uuid(id)?,
        token_hash: hash_of::<D>(row)?,
        user_id: cols.uuid("user_id")?,
        description: cols.text("description")?,
        scopes: codec::string_list("scopes", cols.json("scopes")?)?,
        created_at: cols.time(created)?,
        last_used_at: D::time(row, "last_used_at")?,
    })
}
