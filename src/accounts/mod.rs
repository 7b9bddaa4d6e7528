//! Accounts (issue 22): optional usernames with passwords, so a player's seats follow them from
//! one device to another. Anonymous play stays as it was: nothing here is needed for a game.
//!
//! - [`names`]: which usernames may be registered;
//! - [`passwords`]: the password policy and Argon2id hashing on the blocking pool;
//! - [`secrets`]: random 256-bit secrets stored only as SHA-256;
//! - [`sessions`]: the session cookie and how long a session lasts unused;
//! - [`tokens`]: personal API tokens and their scopes;
//! - [`limits`]: failed logins per account and attempts per address;
//! - [`operators`]: the `khanate user ...` commands.
//!
//! [`Accounts`] puts them together for the routes (`api::account`) and the operators' commands:
//! registering, logging in (the same answer and the same work whether the account exists or
//! not), finding who a cookie or a token belongs to, changing a password, deleting an account.

pub mod limits;
pub mod names;
pub mod operators;
pub mod passwords;
pub mod secrets;
pub mod sessions;
pub mod tokens;

use std::net::IpAddr;
use std::time::Duration;

use uuid::Uuid;

use crate::clock::Clock;
use crate::config::Config;
use crate::store::{ApiTokenRow, SessionRow, Store, StoreError, UserRow};

use self::limits::LoginLimits;
use self::names::NameError;
use self::passwords::{PasswordError, Passwords};
use self::secrets::hash_secret;
use self::sessions::{IDLE_EXPIRY, SessionCookie, new_session_token};
use self::tokens::{MAX_DESCRIPTION, Scope, new_api_token};

/// The longest `User-Agent` kept with a session, in characters.
const MAX_USER_AGENT: usize = 256;

/// Why an account request is refused (each is a typed error of the REST API).
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    /// `bad_name` (400): a username that may not be registered.
    #[error("{0}")]
    BadName(NameError),
    /// `name_taken` (409): another account has this name, ignoring case.
    #[error("this username is taken")]
    NameTaken,
    /// `bad_password` (400): a new password the policy refuses.
    #[error("{0}")]
    BadPassword(PasswordError),
    /// `bad_credentials` (401): no account has this name and password (which of the two is
    /// wrong is not said).
    #[error("wrong username or password")]
    BadCredentials,
    /// `account_disabled` (403): the right password of an account an operator has disabled.
    #[error("this account is disabled")]
    Disabled,
    /// `bad_request` (400): a field the endpoint cannot take (a token's scopes or description).
    #[error("{0}")]
    BadRequest(String),
    /// `rate_limited` (429): too many attempts from this address or failures of this account;
    /// try again after the duration.
    #[error("too many login attempts; try again in {} s", crate::api::retry_after_secs(*.0))]
    RateLimited(Duration),
    /// `unavailable` (503): the database did not answer; nothing changed.
    #[error("database: {0}")]
    Store(#[from] StoreError),
}

/// Who made the request, as its request says: the browser that sent it, or the client it names.
#[derive(Clone, Debug)]
pub struct Client {
    /// The client's address (through trusted proxies).
    pub ip: IpAddr,
    /// Its `User-Agent`, if any.
    pub user_agent: Option<String>,
}

/// A new session: its account and the token for the cookie (shown once, never stored).
#[derive(Debug)]
pub struct NewSession {
    /// The account logged in.
    pub user: UserRow,
    /// The cookie's value.
    pub token: String,
}

/// The server's accounts: the store's users, the hasher and the limits. One per server.
pub struct Accounts {
    store: Store,
    passwords: Passwords,
    cookie: SessionCookie,
    limits: LoginLimits,
    clock: Clock,
}

impl Accounts {
    /// Accounts over `store` as `config` says (public URL for the cookie, login limits, clock).
    pub fn new(store: Store, config: &Config) -> Self {
        Accounts {
            store,
            passwords: Passwords::new(config.limits.password_hashes),
            cookie: SessionCookie::for_public_url(config.public_url.as_deref()),
            limits: LoginLimits::new(
                config.limits.logins_per_minute,
                config.limits.login_failures_per_account,
            ),
            clock: config.clock.clone(),
        }
    }

    /// How this server writes its session cookie.
    pub fn cookie(&self) -> SessionCookie {
        self.cookie
    }

    /// The hasher (the operators' `reset-password` uses it too).
    pub fn passwords(&self) -> &Passwords {
        &self.passwords
    }

    /// Registers `name` with `password` and logs the new account in. Errors: `RateLimited` (per
    /// address), `BadName`, `BadPassword`, `NameTaken`, `Store`.
    pub async fn register(
        &self,
        name: &str,
        password: &str,
        client: &Client,
    ) -> Result<NewSession, AccountError> {
        self.allow_address(client)?;
        names::check_name(name).map_err(AccountError::BadName)?;
        passwords::check_password(name, password).map_err(AccountError::BadPassword)?;
        if self.store.user_by_name(name).await?.is_some() {
            return Err(AccountError::NameTaken);
        }
        let user = UserRow {
            id: Uuid::new_v4(),
            name: name.to_owned(),
            password_hash: Some(self.passwords.hash(password).await),
            created_at: self.now(),
            disabled_at: None,
            deleted_at: None,
        };
        match self.store.create_user(&user).await {
            Err(e) if e.is_unique_violation() => return Err(AccountError::NameTaken),
            other => other?,
        }
        let token = self.start_session(&user, client).await?;
        Ok(NewSession { user, token })
    }

    /// Logs `name` in with `password`. An unknown name takes the same work and gets the same
    /// answer as a wrong password (`BadCredentials`, a dummy hash verified). Errors also:
    /// `RateLimited` (per address, or the account's failures in the window), `Disabled`, `Store`.
    pub async fn login(
        &self,
        name: &str,
        password: &str,
        client: &Client,
    ) -> Result<NewSession, AccountError> {
        self.allow_address(client)?;
        // A name no account can have is looked up all the same: the answer must not tell.
        let key: String = name.chars().take(64).collect::<String>().to_lowercase();
        let now = self.now();
        self.limits
            .allow_account(&self.store, &key, now)
            .await?
            .map_err(AccountError::RateLimited)?;
        let user = self.store.user_by_name(&key).await?;
        let stored = user.as_ref().and_then(|u| u.password_hash.as_deref());
        if !self.passwords.verify(password, stored).await {
            self.limits.failed(&self.store, &key, now).await?;
            return Err(AccountError::BadCredentials);
        }
        let Some(user) = user else {
            return Err(AccountError::BadCredentials);
        };
        if !user.active() {
            return Err(AccountError::Disabled);
        }
        self.store.clear_login_failures(&key).await?;
        let token = self.start_session(&user, client).await?;
        Ok(NewSession { user, token })
    }

    fn allow_address(&self, client: &Client) -> Result<(), AccountError> {
        self.limits
            .allow_address(client.ip)
            .map_err(AccountError::RateLimited)
    }

    /// `BadCredentials` unless `password` is `user`'s.
    async fn check_current(&self, user: &UserRow, password: &str) -> Result<(), AccountError> {
        let stored = user.password_hash.as_deref();
        if self.passwords.verify(password, stored).await {
            Ok(())
        } else {
            Err(AccountError::BadCredentials)
        }
    }

    async fn start_session(&self, user: &UserRow, client: &Client) -> Result<String, StoreError> {
        let (token, token_hash) = new_session_token();
        let now = self.now();
        let session = SessionRow {
            id: Uuid::new_v4(),
            token_hash,
            user_id: user.id,
            created_at: now,
            last_used_at: now,
            user_agent: client
                .user_agent
                .as_deref()
                .map(|ua| ua.chars().take(MAX_USER_AGENT).collect()),
        };
        self.store.insert_session(&session).await?;
        Ok(token)
    }

    /// The live session of a cookie's `token` and its account (marked used now), or `None`: no
    /// such session, unused for 30 days, or its account disabled or deleted.
    pub async fn session(&self, token: &str) -> Result<Option<(SessionRow, UserRow)>, StoreError> {
        let now = self.now();
        let idle = chrono::Duration::from_std(IDLE_EXPIRY).unwrap_or(chrono::Duration::MAX);
        self.store
            .use_session(&hash_secret(token), now - idle, now)
            .await
    }

    /// The API token `token` and its account (marked used now), or `None`.
    pub async fn api_token(
        &self,
        token: &str,
    ) -> Result<Option<(ApiTokenRow, UserRow)>, StoreError> {
        self.store
            .use_api_token(&hash_secret(token), self.now())
            .await
    }

    /// Ends the session of `token`.
    pub async fn logout(&self, token: &str) -> Result<(), StoreError> {
        self.store
            .delete_session(&hash_secret(token))
            .await
            .map(|_| ())
    }

    /// Changes `user`'s password from `old` to `new`, ending every session but `keep` (the
    /// one that asked) and revoking every API token of the account. Errors: `BadCredentials` (the old password is wrong), `BadPassword`,
    /// `Store`.
    pub async fn change_password(
        &self,
        user: &UserRow,
        keep: &[u8; 32],
        old: &str,
        new: &str,
    ) -> Result<(), AccountError> {
        self.check_current(user, old).await?;
        passwords::check_password(&user.name, new).map_err(AccountError::BadPassword)?;
        let hash = self.passwords.hash(new).await;
        self.store.set_password(user.id, &hash, Some(keep)).await?;
        Ok(())
    }

    /// Deletes `user`'s credentials (see [`Store::delete_user`]) once `password` is checked.
    /// Errors: `BadCredentials`, `Store`.
    pub async fn delete(&self, user: &UserRow, password: &str) -> Result<(), AccountError> {
        self.check_current(user, password).await?;
        self.store.delete_user(user.id, self.now()).await?;
        Ok(())
    }

    /// Makes a personal API token of `user`: its row and the token, shown once. Errors:
    /// `BadRequest` (no scope, an unknown one, a description over 100 characters), `Store`.
    pub async fn create_token(
        &self,
        user: &UserRow,
        description: &str,
        scopes: &[String],
    ) -> Result<(ApiTokenRow, String), AccountError> {
        let scopes = tokens::parse_scopes(scopes).map_err(AccountError::BadRequest)?;
        if description.chars().count() > MAX_DESCRIPTION {
            return Err(AccountError::BadRequest(format!(
                "a token's description is at most {MAX_DESCRIPTION} characters"
            )));
        }
        let (token, token_hash) = new_api_token();
        let row = ApiTokenRow {
            id: Uuid::new_v4(),
            token_hash,
            user_id: user.id,
            description: description.trim().to_owned(),
            scopes: scopes
                .iter()
                .map(|s| Scope::as_str(*s).to_owned())
                .collect(),
            created_at: self.now(),
            last_used_at: None,
        };
        self.store.insert_api_token(&row).await?;
        Ok((row, token))
    }

    fn now(&self) -> chrono::DateTime<chrono::Utc> {
        crate::store::truncate_to_micros(self.clock.now_utc())
    }
}
