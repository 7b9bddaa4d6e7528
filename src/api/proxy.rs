//! What a request says about its client when the server runs behind reverse proxies: the client's
//! address, the scheme and host people used (for the links the server generates), and whether a
//! WebSocket's `Origin` is allowed.
//!
//! Forwarded headers are believed only from a configured trusted proxy: anybody can send
//! `X-Forwarded-For`, so from any other peer they are ignored. Behind a chain of proxies the
//! client is the rightmost `X-Forwarded-For` entry that is not itself a trusted proxy (each proxy
//! appends the address it saw, so entries to the left of the first untrusted one are the client's
//! own claims).

use std::net::IpAddr;

use axum::http::{HeaderMap, header};
use ipnet::IpNet;

use crate::config::Config;

/// Whether `ip` is one of the trusted proxies (an IPv4-mapped IPv6 address counts as its IPv4).
pub fn trusted(ip: IpAddr, proxies: &[IpNet]) -> bool {
    // An IPv4 peer may arrive as an IPv4-mapped IPv6 address on a dual-stack socket.
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    };
    proxies.iter().any(|net| net.contains(&ip))
}

/// The client's address: `peer` itself unless `peer` is a trusted proxy, then the rightmost
/// `X-Forwarded-For` entry that is not a trusted proxy (the leftmost entry when all are, `peer`
/// when the header is missing or an entry cannot be read).
pub fn client_ip(peer: IpAddr, headers: &HeaderMap, proxies: &[IpNet]) -> IpAddr {
    if !trusted(peer, proxies) {
        return peer;
    }
    let entries = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(str::trim)
        .collect::<Vec<_>>();
    let mut client = peer;
    for entry in entries.iter().rev() {
        let Ok(ip) = entry.parse::<IpAddr>() else {
            // Unreadable: written by the client, not by a proxy; the last proxy-written hop stands.
            return client;
        };
        client = ip;
        if !trusted(ip, proxies) {
            return ip;
        }
    }
    client
}

fn forwarded<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    let value = headers.get(name)?.to_str().ok()?;
    // Several proxies may each have added one; the first is the one facing the client.
    value
        .split(',')
        .next()
        .map(str::trim)
        .filter(|v| !v.is_empty())
}

/// The host names a trusted proxy may forward (lower-cased `name` or `name:port`):
/// `--allowed-hosts`, else the hosts of `--public-url` and `--allowed-origins`. Empty: any.
fn allowed_hosts(config: &Config) -> Vec<String> {
    if !config.allowed_hosts.is_empty() {
        return config
            .allowed_hosts
            .iter()
            .map(|h| h.trim().to_ascii_lowercase())
            .collect();
    }
    config
        .public_url
        .iter()
        .chain(&config.allowed_origins)
        .filter_map(|url| origin_of(url))
        .filter_map(|origin| origin.split_once("://").map(|(_, host)| host.to_owned()))
        .collect()
}

/// Whether a trusted proxy's `host` (`name[:port]`) is one this server may be reached by: an
/// address or `localhost`, or one of [`allowed_hosts`] (an entry without a port allows any port),
/// or anything when that list is empty.
fn host_allowed(config: &Config, host: &str) -> bool {
    let allowed = allowed_hosts(config);
    if allowed.is_empty() || is_address_host(host) {
        return true;
    }
    let host = host.to_ascii_lowercase();
    let name = host.rsplit_once(':').map_or(host.as_str(), |(name, _port)| name);
    allowed.iter().any(|entry| *entry == host || *entry == name)
}

/// The host of the request as people used it: a trusted proxy's `X-Forwarded-Host`, else the
/// `Host` header; `None` when there is neither, or when (from a trusted proxy) it is not
/// [`host_allowed`].
fn request_host<'a>(config: &Config, from_proxy: bool, headers: &'a HeaderMap) -> Option<&'a str> {
    let host = from_proxy
        .then(|| forwarded(headers, "x-forwarded-host"))
        .flatten()
        .or_else(|| headers.get(header::HOST).and_then(|h| h.to_str().ok()))?;
    (!from_proxy || host_allowed(config, host)).then_some(host)
}

/// The base of the links the server generates, without a trailing slash: the configured public
/// URL, or `proto://host` + the path prefix, where proto and host come from `X-Forwarded-Proto`
/// and `X-Forwarded-Host` when `peer` is a trusted proxy (a host only when [`host_allowed`]),
/// else `http` and the `Host` header; the bind address when there is no usable host.
pub fn base_url(config: &Config, peer: IpAddr, headers: &HeaderMap) -> String {
    if let Some(url) = &config.public_url {
        return url.trim_end_matches('/').to_owned();
    }
    let from_proxy = trusted(peer, &config.trusted_proxies);
    let proto = from_proxy
        .then(|| forwarded(headers, "x-forwarded-proto"))
        .flatten()
        .filter(|p| matches!(*p, "http" | "https"))
        .unwrap_or("http");
    let host = request_host(config, from_proxy, headers)
        .map_or_else(|| config.bind.to_string(), str::to_owned);
    format!(
        "{proto}://{host}{}",
        config.path_prefix.trim_end_matches('/')
    )
}

/// `scheme://host[:port]` of a URL, lower-cased, or `None` when it has no such part.
fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let host = rest
        .split(['/', '?', '#'])
        .next()
        .filter(|h| !h.is_empty())?;
    Some(format!(
        "{}://{}",
        scheme.to_ascii_lowercase(),
        host.to_ascii_lowercase()
    ))
}

/// Whether `host` (a `Host` value, `name[:port]` or `[v6]:port`) is an IP address or
/// `localhost`: names a DNS rebinding cannot point elsewhere.
fn is_address_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => host.rsplit_once(':').map_or(host, |(name, _port)| name),
    };
    name.eq_ignore_ascii_case("localhost") || name.parse::<IpAddr>().is_ok()
}

/// Whether a WebSocket upgrade may proceed: always without an `Origin` header (not a browser);
/// otherwise the origin must be one of `--allowed-origins`, or by default the public URL's
/// origin, or without a public URL the origin of this very request ([`base_url`]).
///
/// That last default holds only for a request whose host is an IP address or `localhost`, or one
/// a trusted proxy forwarded that is [`host_allowed`]: a page of `evil.example`, whose name an
/// attacker has re-pointed at this server's address (DNS rebinding), sends `Host: evil.example`
/// and a matching origin; with an address in the URL that cannot happen. A server reached by
/// name sets `--public-url` (or `--allowed-hosts` behind a proxy).
pub fn origin_allowed(config: &Config, peer: IpAddr, headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let Some(origin) = origin.to_str().ok().and_then(origin_of) else {
        return false;
    };
    if !config.allowed_origins.is_empty() {
        return config
            .allowed_origins
            .iter()
            .filter_map(|o| origin_of(o))
            .any(|allowed| allowed == origin);
    }
    if config.public_url.is_none() {
        let from_proxy = trusted(peer, &config.trusted_proxies);
        let Some(host) = request_host(config, from_proxy, headers) else {
            return false;
        };
        if !from_proxy && !is_address_host(host) {
            return false;
        }
    }
    origin_of(&base_url(config, peer, headers)).is_some_and(|own| own == origin)
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    fn nets(list: &[&str]) -> Vec<IpNet> {
        list.iter().map(|n| n.parse().unwrap()).collect()
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn forwarded_for_is_ignored_from_an_untrusted_peer() {
        let h = headers(&[("x-forwarded-for", "203.0.113.7")]);
        assert_eq!(
            client_ip(ip("198.51.100.1"), &h, &nets(&["10.0.0.0/8"])),
            ip("198.51.100.1")
        );
        assert_eq!(client_ip(ip("198.51.100.1"), &h, &[]), ip("198.51.100.1"));
    }

    #[test]
    fn the_client_is_the_rightmost_untrusted_hop() {
        let proxies = nets(&["10.0.0.0/8", "127.0.0.1/32"]);
        // The client claims 1.2.3.4; our load balancer saw 203.0.113.7; nginx (10.0.0.5) saw the
        // balancer (10.0.0.2).
        let h = headers(&[("x-forwarded-for", "1.2.3.4, 203.0.113.7, 10.0.0.2")]);
        assert_eq!(client_ip(ip("127.0.0.1"), &h, &proxies), ip("203.0.113.7"));
        // Several headers count as one list, in order.
        let h = headers(&[
            ("x-forwarded-for", "1.2.3.4"),
            ("x-forwarded-for", "203.0.113.7"),
        ]);
        assert_eq!(client_ip(ip("10.0.0.5"), &h, &proxies), ip("203.0.113.7"));
        // All hops trusted: the leftmost; no header: the peer; garbage: the last good hop.
        let h = headers(&[("x-forwarded-for", "10.0.0.9, 10.0.0.2")]);
        assert_eq!(client_ip(ip("127.0.0.1"), &h, &proxies), ip("10.0.0.9"));
        assert_eq!(
            client_ip(ip("127.0.0.1"), &HeaderMap::new(), &proxies),
            ip("127.0.0.1")
        );
        let h = headers(&[("x-forwarded-for", "not-an-ip, 10.0.0.2")]);
        assert_eq!(client_ip(ip("127.0.0.1"), &h, &proxies), ip("10.0.0.2"));
    }

    #[test]
    fn an_ipv4_peer_on_a_dual_stack_socket_is_recognised() {
        let h = headers(&[("x-forwarded-for", "203.0.113.7")]);
        assert_eq!(
            client_ip(ip("::ffff:127.0.0.1"), &h, &nets(&["127.0.0.1/32"])),
            ip("203.0.113.7")
        );
    }

    #[test]
    fn links_use_the_public_url_or_what_a_trusted_proxy_forwarded() {
        let mut config = Config::for_tests("sqlite::memory:");
        config.trusted_proxies = nets(&["127.0.0.1/32"]);
        config.path_prefix = "/games/".into();
        let h = headers(&[
            ("host", "10.0.0.5:8080"),
            ("x-forwarded-proto", "https"),
            ("x-forwarded-host", "play.example.org"),
        ]);
        assert_eq!(
            base_url(&config, ip("127.0.0.1"), &h),
            "https://play.example.org/games"
        );
        assert_eq!(
            base_url(&config, ip("192.0.2.1"), &h),
            "http://10.0.0.5:8080/games",
            "untrusted: headers ignored"
        );
        config.public_url = Some("https://example.org/khanate/".into());
        assert_eq!(
            base_url(&config, ip("127.0.0.1"), &h),
            "https://example.org/khanate"
        );
    }

    #[test]
    fn a_host_a_trusted_proxy_forwarded_is_the_proxy_s_to_vouch_for() {
        let mut config = Config::for_tests("sqlite::memory:");
        config.trusted_proxies = nets(&["127.0.0.1/32"]);
        let h = headers(&[
            ("host", "127.0.0.1:8080"),
            ("x-forwarded-host", "games.example.org"),
            ("origin", "http://games.example.org"),
        ]);
        assert!(origin_allowed(&config, ip("127.0.0.1"), &h));
        assert!(
            !origin_allowed(&config, ip("192.0.2.1"), &h),
            "from anybody else the forwarded host is ignored"
        );
    }

    #[test]
    fn a_trusted_proxy_is_believed_only_for_an_allowed_host() {
        let mut config = Config::for_tests("sqlite::memory:");
        config.trusted_proxies = nets(&["127.0.0.1/32"]);
        config.allowed_hosts = vec!["Games.Example.org".into()];
        let rebound = headers(&[
            ("host", "evil.example"),
            ("x-forwarded-host", "evil.example"),
            ("origin", "http://evil.example"),
        ]);
        assert!(!origin_allowed(&config, ip("127.0.0.1"), &rebound));
        assert_eq!(
            base_url(&config, ip("127.0.0.1"), &rebound),
            format!("http://{}", config.bind),
            "links never name a host that is not allowed"
        );
        for host in ["games.example.org", "games.example.org:8443", "127.0.0.1:8080"] {
            let allowed = headers(&[
                ("host", "10.0.0.5:8080"),
                ("x-forwarded-host", host),
                ("origin", &format!("http://{host}")),
            ]);
            assert!(origin_allowed(&config, ip("127.0.0.1"), &allowed), "{host}");
        }
        config.allowed_hosts.clear();
        config.allowed_origins = vec!["https://games.example.org".into()];
        assert_eq!(
            base_url(&config, ip("127.0.0.1"), &rebound),
            format!("http://{}", config.bind),
            "by default the hosts of the allowed origins"
        );
    }

    #[test]
    fn websocket_origins_must_match() {
        let mut config = Config::for_tests("sqlite::memory:");
        let no_origin = headers(&[("host", "games.example.org")]);
        assert!(
            origin_allowed(&config, ip("192.0.2.1"), &no_origin),
            "non-browser clients send none"
        );
        let same = headers(&[
            ("host", "games.example.org"),
            ("origin", "http://games.example.org"),
        ]);
        assert!(
            !origin_allowed(&config, ip("192.0.2.1"), &same),
            "a named host is refused without a public URL: DNS rebinding could name any"
        );
        for host in [
            "127.0.0.1:8080",
            "192.168.1.20",
            "[::1]:8080",
            "localhost:8080",
        ] {
            let own = headers(&[("host", host), ("origin", &format!("http://{host}"))]);
            assert!(origin_allowed(&config, ip("192.0.2.1"), &own), "{host}");
        }
        let other_ip = headers(&[
            ("host", "127.0.0.1:8080"),
            ("origin", "http://127.0.0.2:8080"),
        ]);
        assert!(!origin_allowed(&config, ip("192.0.2.1"), &other_ip));
        let rebound = headers(&[
            ("host", "127.0.0.1.evil.example:8080"),
            ("origin", "http://127.0.0.1.evil.example:8080"),
        ]);
        assert!(!origin_allowed(&config, ip("192.0.2.1"), &rebound));
        let other = headers(&[
            ("host", "games.example.org"),
            ("origin", "https://evil.example"),
        ]);
        assert!(!origin_allowed(&config, ip("192.0.2.1"), &other));
        let junk = headers(&[("host", "games.example.org"), ("origin", "null")]);
        assert!(!origin_allowed(&config, ip("192.0.2.1"), &junk));
        config.public_url = Some("https://Games.Example.org/x".into());
        let public = headers(&[("origin", "https://games.example.org")]);
        assert!(origin_allowed(&config, ip("192.0.2.1"), &public));
        assert!(
            !origin_allowed(&config, ip("192.0.2.1"), &same),
            "http is not the public https origin"
        );
        config.allowed_origins = vec!["https://a.example".into(), "https://b.example/".into()];
        assert!(origin_allowed(
            &config,
            ip("192.0.2.1"),
            &headers(&[("origin", "https://b.example")])
        ));
        assert!(
            !origin_allowed(&config, ip("192.0.2.1"), &public),
            "the list replaces the default"
        );
    }
}
