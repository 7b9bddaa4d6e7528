//! The web client as the server serves it: each page at its route with its base set to where the
//! server is reached, the other files under `/assets/` with their content types, 404s for what is
//! not there.

mod support;

use serde_json::json;
use support::server::{TestServer, post, sqlite_server_with};

/// `GET path`: (status, content type, body).
async fn fetch(server: &TestServer, path: &str) -> (u16, String, String) {
    let response = reqwest::get(server.http(path)).await.expect("request");
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (status, content_type, response.text().await.unwrap())
}

async fn create_room(server: &TestServer, prefix: &str) -> String {
    let (status, created) = post(
        server.addr,
        &format!("{prefix}/api/rooms"),
        &json!({"game": "khan"}),
    )
    .await;
    assert_eq!(status, 201);
    created["invite_code"].as_str().unwrap().to_owned()
}

const HTML: &str = "text/html; charset=utf-8";

#[tokio::test]
async fn pages_and_assets_at_the_root() {
    let (_db, server) = sqlite_server_with(|_| {}).await;
    let code = create_room(&server, "").await;

    for (path, script) in [
        ("/".to_owned(), "assets/js/home.js"),
        (format!("/r/{code}"), "assets/js/room.js"),
        (format!("/r/{}", code.to_uppercase()), "assets/js/room.js"),
        ("/rules/khan-tsin".to_owned(), "assets/js/rules.js"),
    ] {
        let (status, content_type, body) = fetch(&server, &path).await;
        assert_eq!((status, content_type.as_str()), (200, HTML), "{path}");
        assert!(body.contains("<base href=\"/\">"), "{path}: {body}");
        assert!(body.contains(script), "{path}: {body}");
    }

    for (path, content_type) in [
        ("/assets/css/khanate.css", "text/css; charset=utf-8"),
        ("/assets/js/room.js", "text/javascript; charset=utf-8"),
        ("/assets/js/lang/ko.js", "text/javascript; charset=utf-8"),
    ] {
        let (status, got, _) = fetch(&server, path).await;
        assert_eq!((status, got.as_str()), (200, content_type), "{path}");
    }

    let (status, content_type, body) = fetch(&server, "/r/zzzzzzzz").await;
    assert_eq!(
        (status, content_type.as_str()),
        (404, HTML),
        "the room page says itself that there is no such room"
    );
    assert!(body.contains("assets/js/room.js"), "{body}");
    assert_eq!(fetch(&server, "/rules/chess").await.0, 404);
    assert_eq!(fetch(&server, "/assets/js/nothing.js").await.0, 404);
    assert_eq!(fetch(&server, "/assets/../Cargo.toml").await.0, 404);
    assert_eq!(fetch(&server, "/index.html").await.0, 404);
    server.shutdown().await;
}

#[tokio::test]
async fn an_unchanged_asset_is_not_sent_again() {
    let (_db, server) = sqlite_server_with(|_| {}).await;
    let client = reqwest::Client::new();
    let first = client
        .get(server.http("/assets/js/socket.js"))
        .send()
        .await
        .unwrap();
    assert_eq!(first.status().as_u16(), 200);
    assert_eq!(first.headers()["cache-control"], "no-cache");
    let etag = first.headers()["etag"].clone();
    let again = client
        .get(server.http("/assets/js/socket.js"))
        .header("if-none-match", etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status().as_u16(), 304);
    server.shutdown().await;
}

#[tokio::test]
async fn pages_carry_the_path_prefix() {
    let (_db, server) = sqlite_server_with(|c| c.path_prefix = "/games".into()).await;
    let code = create_room(&server, "/games").await;
    for path in [
        "/games".to_owned(),
        "/games/".to_owned(),
        format!("/games/r/{code}"),
        "/games/rules/ouk-chatrang".to_owned(),
    ] {
        let (status, _, body) = fetch(&server, &path).await;
        assert_eq!(status, 200, "{path}");
        assert!(body.contains("<base href=\"/games/\">"), "{path}: {body}");
    }
    assert_eq!(fetch(&server, "/games/assets/js/api.js").await.0, 200);
    assert_eq!(fetch(&server, "/assets/js/api.js").await.0, 404);
    assert_eq!(fetch(&server, &format!("/r/{code}")).await.0, 404);
    server.shutdown().await;
}

#[tokio::test]
async fn pages_carry_the_public_url_path_behind_a_stripping_proxy() {
    let (_db, server) =
        sqlite_server_with(|c| c.public_url = Some("https://example.org/play".into())).await;
    let (status, _, body) = fetch(&server, "/").await;
    assert_eq!(status, 200);
    assert!(body.contains("<base href=\"/play/\">"), "{body}");
    server.shutdown().await;
}

/// Encoded slashes and dots cannot reach a file outside `web/` (a debug build reads the files from
/// the disk, where such a path would otherwise lead to the binary, /etc or the database).
#[tokio::test]
async fn no_file_outside_the_client_is_served() {
    let (_db, server) = sqlite_server_with(|_| {}).await;
    for path in [
        "/assets/%2Fproc%2Fself%2Fexe",
        "/assets/%2Fetc%2Fpasswd",
        "/assets/..%2F..%2F..%2F..%2F..%2F..%2F..%2Fetc%2Fmtab",
        "/assets/..%2FCargo.toml",
        "/assets/js%2F..%2F..%2FCargo.toml",
        "/assets/js/%2E%2E/%2E%2E/Cargo.toml",
        "/assets/js//room.js",
    ] {
        let (status, _, body) = fetch(&server, path).await;
        assert_eq!(status, 404, "{path}: {}", &body[..body.len().min(80)]);
    }
    server.shutdown().await;
}

/// Pages may not be framed by another site (a framed room page could be clicked into resigning),
/// and no file is sniffed into another type.
#[tokio::test]
async fn pages_refuse_framing_and_files_their_sniffing() {
    let (_db, server) = sqlite_server_with(|_| {}).await;
    let code = create_room(&server, "").await;
    for path in [
        "/".to_owned(),
        format!("/r/{code}"),
        "/rules/khan".to_owned(),
    ] {
        let response = reqwest::get(server.http(&path)).await.unwrap();
        let headers = response.headers();
        assert_eq!(headers["x-frame-options"], "DENY", "{path}");
        assert_eq!(
            headers["content-security-policy"], "frame-ancestors 'none'",
            "{path}"
        );
        assert_eq!(headers["x-content-type-options"], "nosniff", "{path}");
    }
    let response = reqwest::get(server.http("/assets/js/room.js"))
        .await
        .unwrap();
    assert_eq!(response.headers()["x-content-type-options"], "nosniff");
    server.shutdown().await;
}

/// The top-level paths of the repository the release build reads: the manifest and lock file,
/// the sources, the benches the manifest declares, and every folder the sources embed at compile
/// time (`#[folder = "..."]` of rust-embed, `sqlx::migrate!("...")`), found by reading `src/`.
fn paths_the_build_reads() -> Vec<String> {
    let mut paths: Vec<String> = ["Cargo.toml", "Cargo.lock", "src", "benches"]
        .map(String::from)
        .to_vec();
    let mut dirs = vec![std::path::PathBuf::from("src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("src/ reads") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            for marker in ["#[folder = \"", "migrate!(\""] {
                for (_, rest) in text
                    .match_indices(marker)
                    .map(|(i, m)| (i, &text[i + m.len()..]))
                {
                    let embedded = rest.split('"').next().unwrap_or_default();
                    let top = embedded.split('/').next().unwrap_or_default().to_owned();
                    if !top.is_empty() && !paths.contains(&top) {
                        paths.push(top);
                    }
                }
            }
        }
    }
    paths
}

/// The shipped `Dockerfile` builds the binary from what it copies into its build stage: every
/// path the build reads must be among them (it once left out `web/`, which the binary embeds, so
/// the image did not build).
#[test]
fn the_dockerfile_copies_everything_the_build_reads() {
    let dockerfile = std::fs::read_to_string("Dockerfile").expect("the Dockerfile");
    let copied: Vec<&str> = dockerfile
        .lines()
        .filter_map(|line| line.strip_prefix("COPY "))
        .filter(|args| !args.starts_with("--from"))
        .flat_map(|args| {
            let words: Vec<&str> = args.split_whitespace().collect();
            words[..words.len().saturating_sub(1)].to_vec()
        })
        .map(|source| source.trim_end_matches('/'))
        .collect();
    let needed = paths_the_build_reads();
    assert!(
        needed.contains(&"web".to_owned()),
        "the web client is embedded: {needed:?}"
    );
    assert!(needed.contains(&"migrations".to_owned()), "{needed:?}");
    let missing: Vec<&String> = needed
        .iter()
        .filter(|path| !copied.contains(&path.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "the Dockerfile does not copy {missing:?} (copies {copied:?})"
    );
}
