//! The server's configuration: one struct, read from flags with environment fallbacks.

use std::fmt;
use std::net::SocketAddr;

/// How log lines are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

/// Everything `khanate serve` can be told.
#[derive(Clone, Debug, clap::Args)]
pub struct Config {
    /// Address and port to listen on (`127.0.0.1:0` picks a free port).
    #[arg(long, env = "KHANATE_BIND", default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,

    /// Where rooms and games are stored: `postgres://user@host/db` for PostgreSQL, or
    /// `sqlite://FILE` (created if missing) for the embedded store.
    #[arg(long, env = "DATABASE_URL", default_value = "sqlite://khanate.db")]
    pub database_url: String,

    /// The address people reach this server at, used in invite links
    /// (e.g. `https://games.example.org`). Default: `http://` + the request's Host header.
    #[arg(long, env = "KHANATE_PUBLIC_URL")]
    pub public_url: Option<String>,

    /// Log line format.
    #[arg(long, env = "KHANATE_LOG_FORMAT", value_enum, default_value = "text")]
    pub log_format: LogFormat,
}

impl Config {
    /// A configuration for tests and embedding: an ephemeral port on loopback and the given store.
    pub fn for_tests(database_url: impl Into<String>) -> Self {
        Config {
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            database_url: database_url.into(),
            public_url: None,
            log_format: LogFormat::Text,
        }
    }
}

/// The database URL with any password (in the user info, or a `password=` query parameter)
/// replaced by `***`, for logs.
pub fn mask_url(url: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let mut masked = match base.split_once("://") {
        Some((scheme, rest)) => match rest.split_once('@') {
            Some((userinfo, host)) => match userinfo.split_once(':') {
                Some((user, _password)) => format!("{scheme}://{user}:***@{host}"),
                None => base.to_owned(),
            },
            None => base.to_owned(),
        },
        None => base.to_owned(),
    };
    if let Some(query) = query {
        let params: Vec<String> = query
            .split('&')
            .map(|param| match param.split_once('=') {
                Some((key, _)) if key.eq_ignore_ascii_case("password") => format!("{key}=***"),
                _ => param.to_owned(),
            })
            .collect();
        masked.push('?');
        masked.push_str(&params.join("&"));
    }
    masked
}

impl fmt::Display for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bind={} database_url={} public_url={} log_format={:?}",
            self.bind,
            mask_url(&self.database_url),
            self.public_url.as_deref().unwrap_or("(from Host header)"),
            self.log_format
        )
    }
}

#[cfg(test)]
mod tests {
    use super::mask_url;

    #[test]
    fn passwords_are_masked_in_database_urls() {
        assert_eq!(
            mask_url("postgres://app:s3cret@db:5432/khanate"),
            "postgres://app:***@db:5432/khanate"
        );
        assert_eq!(
            mask_url("postgres://postgres@127.0.0.1/postgres"),
            "postgres://postgres@127.0.0.1/postgres"
        );
        assert_eq!(mask_url("sqlite://khanate.db"), "sqlite://khanate.db");
        assert_eq!(
            mask_url("postgres://app@db/khanate?sslmode=require&password=s3cret"),
            "postgres://app@db/khanate?sslmode=require&password=***"
        );
    }
}
