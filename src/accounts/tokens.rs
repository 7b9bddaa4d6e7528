//! Personal API tokens, as lichess has: `khn_` and 64 hex digits, sent as
//! `Authorization: Bearer khn_...`, each with scopes: `read` (the account and its games) and
//! `play` (create and join rooms, and play in them over the WebSocket).

use std::fmt;
use std::str::FromStr;

use axum::http::{HeaderMap, header};

use super::secrets::new_secret;

/// What every API token starts with, so a leaked one is recognisable (and a secret scanner can
/// find it).
pub const TOKEN_PREFIX: &str = "khn_";

/// Longest token description, in characters.
pub const MAX_DESCRIPTION: usize = 100;

/// What a token may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// Read the account, its sessions and tokens excepted, and export its games.
    Read,
    /// Create and join rooms as the account and play in them (REST and the WebSocket hello).
    Play,
}

impl Scope {
    /// `read` or `play`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Read => "read",
            Scope::Play => "play",
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Scope {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "read" => Ok(Scope::Read),
            "play" => Ok(Scope::Play),
            other => Err(format!(
                "unknown scope {other:?}: the scopes are read and play"
            )),
        }
    }
}

/// Reads a token's scopes: at least one, each known, none twice; sorted.
pub fn parse_scopes(words: &[String]) -> Result<Vec<Scope>, String> {
    let mut scopes = words
        .iter()
        .map(|w| w.parse::<Scope>())
        .collect::<Result<Vec<_>, _>>()?;
    scopes.sort();
    let before = scopes.len();
    scopes.dedup();
    if scopes.len() != before {
        return Err("a scope is given twice".to_owned());
    }
    if scopes.is_empty() {
        return Err("a token needs at least one scope (read, play)".to_owned());
    }
    Ok(scopes)
}

/// A new API token and its hash.
pub fn new_api_token() -> (String, [u8; 32]) {
    new_secret(TOKEN_PREFIX)
}

/// The bearer token of the request's `Authorization` header, if it has one.
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn scopes_are_read_and_play_each_once() {
        let words = |w: &[&str]| w.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            parse_scopes(&words(&["play", "read"])),
            Ok(vec![Scope::Read, Scope::Play])
        );
        assert!(parse_scopes(&words(&[])).is_err());
        assert!(parse_scopes(&words(&["read", "read"])).is_err());
        assert!(parse_scopes(&words(&["admin"])).is_err());
    }

    #[test]
    fn the_bearer_token_is_read_from_authorization() {
        let mut headers = HeaderMap::new();
        assert_eq!(bearer(&headers), None);
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Basic abc"));
        assert_eq!(bearer(&headers), None);
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer khn_ab"),
        );
        assert_eq!(bearer(&headers), Some("khn_ab"));
        let (token, _) = new_api_token();
        assert!(token.starts_with(TOKEN_PREFIX) && token.len() == 68);
    }
}
