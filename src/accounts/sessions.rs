//! The session cookie: its name and attributes, reading it from a request, and how long an
//! unused session lasts.
//!
//! `__Host-khanate_session` when the public URL is https (the `__Host-` prefix makes browsers
//! refuse it unless it is `Secure`, has `Path=/` and no `Domain`, so no other host or path can
//! set or shadow it); plain `khanate_session` on http (localhost), where browsers would drop a
//! `__Host-` cookie. Always `HttpOnly` (no script reads it) and `SameSite=Lax` (not sent on
//! cross-site subrequests; cross-site state-changing requests are refused by the Origin check as
//! well).

use std::time::Duration;

use axum::http::{HeaderMap, header};

use super::secrets::new_secret;

/// A session unused this long has ended (30 days).
pub const IDLE_EXPIRY: Duration = Duration::from_secs(30 * 24 * 3600);

/// The cookie's `Max-Age`, in seconds: 400 days, the most browsers keep; the server ends an
/// unused session after [`IDLE_EXPIRY`] whatever the browser keeps.
pub const COOKIE_MAX_AGE_S: u64 = 400 * 24 * 3600;

/// The cookie's name on an https public URL.
pub const SECURE_NAME: &str = "__Host-khanate_session";
/// The cookie's name on plain http.
pub const PLAIN_NAME: &str = "khanate_session";

/// A new session token (64 hex digits) and its hash.
pub fn new_session_token() -> (String, [u8; 32]) {
    new_secret("")
}

/// How this server writes its session cookie.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionCookie {
    secure: bool,
}

impl SessionCookie {
    /// The cookie for a server whose public URL is `public_url` (`None`: plain http).
    pub fn for_public_url(public_url: Option<&str>) -> Self {
        let secure = public_url.is_some_and(|url| {
            url.get(..8)
                .is_some_and(|scheme| scheme.eq_ignore_ascii_case("https://"))
        });
        SessionCookie { secure }
    }

    /// [`SECURE_NAME`] or [`PLAIN_NAME`].
    pub fn name(&self) -> &'static str {
        if self.secure { SECURE_NAME } else { PLAIN_NAME }
    }

    fn attributes(&self, max_age: u64) -> String {
        let secure = if self.secure { "; Secure" } else { "" };
        format!("Path=/; Max-Age={max_age}; HttpOnly; SameSite=Lax{secure}")
    }

    /// The `Set-Cookie` value that logs the browser in with `token`.
    pub fn set(&self, token: &str) -> String {
        format!(
            "{}={token}; {}",
            self.name(),
            self.attributes(COOKIE_MAX_AGE_S)
        )
    }

    /// The `Set-Cookie` value that removes the cookie.
    pub fn clear(&self) -> String {
        format!("{}=; {}", self.name(), self.attributes(0))
    }

    /// The session token the request's `Cookie` headers carry, if any (the first of that name).
    pub fn token_in(&self, headers: &HeaderMap) -> Option<String> {
        let name = self.name();
        headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.trim().to_owned())
            .filter(|value| !value.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn https_gets_the_host_prefixed_secure_cookie_and_http_the_plain_one() {
        let https = SessionCookie::for_public_url(Some("https://games.example.org/khanate"));
        assert_eq!(
            https.set("ab12"),
            "__Host-khanate_session=ab12; Path=/; Max-Age=34560000; HttpOnly; SameSite=Lax; Secure"
        );
        let http = SessionCookie::for_public_url(Some("http://127.0.0.1:8080"));
        assert_eq!(
            http.set("ab12"),
            "khanate_session=ab12; Path=/; Max-Age=34560000; HttpOnly; SameSite=Lax"
        );
        assert_eq!(SessionCookie::for_public_url(None), http);
        assert_eq!(
            http.clear(),
            "khanate_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax"
        );
    }

    #[test]
    fn the_token_is_read_from_the_cookie_of_its_name_only() {
        let cookie = SessionCookie::for_public_url(None);
        let mut headers = HeaderMap::new();
        assert_eq!(cookie.token_in(&headers), None);
        headers.append(
            header::COOKIE,
            HeaderValue::from_static("theme=dark; __Host-khanate_session=other"),
        );
        assert_eq!(cookie.token_in(&headers), None, "the https name on http");
        headers.append(
            header::COOKIE,
            HeaderValue::from_static("x=1; khanate_session=ab12 "),
        );
        assert_eq!(cookie.token_in(&headers).as_deref(), Some("ab12"));
    }
}
