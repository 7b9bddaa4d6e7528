//! The operators' commands, `khanate user list | show NAME | disable NAME | enable NAME |
//! reset-password NAME`, against the configured database. Each returns the text to print; an
//! unknown name is an error naming it.

use anyhow::{Context, anyhow};

use super::passwords::Passwords;
use super::secrets::new_secret;
use crate::store::{Store, UserRow};

/// What an operator can do to accounts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UserCommand {
    /// Every account, one a line.
    List,
    /// One account: its state, sessions, tokens and seats.
    Show(String),
    /// Refuse its logins and end its sessions.
    Disable(String),
    /// Let it log in again.
    Enable(String),
    /// Give it a new random password (printed once), end its sessions and revoke its API tokens.
    ResetPassword(String),
}

fn status(user: &UserRow) -> String {
    match (user.deleted_at, user.disabled_at) {
        (Some(at), _) => format!("deleted {}", at.to_rfc3339()),
        (None, Some(at)) => format!("disabled since {}", at.to_rfc3339()),
        (None, None) => "active".to_owned(),
    }
}

async fn named(store: &Store, name: &str) -> anyhow::Result<UserRow> {
    store
        .user_by_name(name)
        .await?
        .ok_or_else(|| anyhow!("no account is named {name:?}"))
}

/// Runs `command` on `store`; returns the text to print.
pub async fn run(store: &Store, command: UserCommand) -> anyhow::Result<String> {
    match command {
        UserCommand::List => {
            let users = store.users().await?;
            Ok(users
                .iter()
                .map(|u| format!("{}\t{}\t{}", u.name, u.created_at.to_rfc3339(), status(u)))
                .collect::<Vec<_>>()
                .join("\n"))
        }
        UserCommand::Show(name) => {
            let user = named(store, &name).await?;
            let sessions = store.sessions_of(user.id).await?.len();
            let tokens = store.api_tokens_of(user.id).await?.len();
            Ok(format!(
                "name: {}\nid: {}\ncreated: {}\nstatus: {}\nsessions: {sessions}\napi tokens: {tokens}",
                user.name,
                user.id,
                user.created_at.to_rfc3339(),
                status(&user),
            ))
        }
        UserCommand::Disable(name) => {
            let user = named(store, &name).await?;
            let ended = store.sessions_of(user.id).await?.len();
            store
                .set_disabled(user.id, Some(crate::store::now()))
                .await?;
            Ok(format!("{} disabled; {ended} sessions ended", user.name))
        }
        UserCommand::Enable(name) => {
            let user = named(store, &name).await?;
            store.set_disabled(user.id, None).await?;
            Ok(format!("{} enabled", user.name))
        }
        UserCommand::ResetPassword(name) => {
            let user = named(store, &name).await?;
            // 96 random bits in 24 hex digits: far from any common password, never the name.
            let (secret, _) = new_secret("");
            let password = &secret[..24];
            let hash = Passwords::new(1).hash(password).await;
            let changed = store.set_password(user.id, &hash, None).await?;
            if !changed {
                return Err(anyhow!("{name:?} is a deleted account")).context("reset-password");
            }
            Ok(format!(
                "new password for {}: {password}\n\
                 every session of the account ended, every API token revoked",
                user.name
            ))
        }
    }
}
