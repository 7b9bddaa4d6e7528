//! Accounts on three nodes behind nginx (one PostgreSQL): a session made through one node works on
//! every node; a join through a node that does not own the room carries the joiner's own cookie
//! to the owner, which gives the seat to the account; a hello relayed from another node resumes
//! the account's seat with the cookie; failed logins count across nodes; logging out everywhere
//! on one node ends the session on all.

mod support;

use reqwest::Method;
use serde_json::json;
use support::account::{Auth, credentials, get_as, hello_as, post_as, register, send, whoami};
use support::cluster::{Cluster, SHORT_LEASE};

#[tokio::test]
async fn a_session_made_through_one_node_works_on_every_node() {
    let cluster = Cluster::start(3, SHORT_LEASE).await;
    let dara = register(cluster.nginx.addr, "Dara").await;
    let sok = register(cluster.nodes[2].addr, "Sok").await;
    for node in &cluster.nodes {
        let me = whoami(node.addr, Auth::Cookie(&dara)).await;
        assert_eq!(
            (me.status, &me.body["name"]),
            (200, &json!("Dara")),
            "{}",
            node.addr
        );
    }

    // Dara's room on node 0; Sok joins through node 1, which forwards to the owner.
    let body = json!({"game": "ouk-chatrang", "seat": "white"});
    let created = post_as(
        cluster.nodes[0].addr,
        "/api/rooms",
        Auth::Cookie(&dara),
        &body,
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.body);
    let code = created.body["invite_code"].as_str().unwrap().to_owned();
    let room_id = created.body["room_id"].as_str().unwrap().to_owned();
    let owner = cluster.owner(&room_id).await.expect("an owner");
    let other = (owner + 1) % 3;
    let path = format!("/api/rooms/{code}/join");
    let joined = post_as(
        cluster.nodes[other].addr,
        &path,
        Auth::Cookie(&sok),
        &json!({}),
    )
    .await;
    assert_eq!(joined.status, 200, "{}", joined.body);
    let summary = get_as(
        cluster.nodes[other].addr,
        &format!("/api/rooms/{code}"),
        Auth::None,
    )
    .await;
    assert_eq!(summary.body["seats"][0]["name"], "Dara");
    assert_eq!(
        summary.body["seats"][1]["name"], "Sok",
        "the owner saw Sok's cookie"
    );

    // Dara's hello through a node that does not own the room: relayed with the cookie.
    let (_socket, welcome) = hello_as(
        cluster.nodes[other].addr,
        Some(&dara),
        json!({"room": code}),
    )
    .await;
    assert_eq!(welcome["t"], "welcome", "{welcome}");
    assert_eq!(welcome["d"]["seat"], 0, "{welcome}");

    // Failed logins are counted in the database: five on each of two nodes, the 11th on a third.
    for i in 0..10 {
        let addr = cluster.nodes[i % 2].addr;
        let failed = credentials(addr, "login", "dara", "not the password").await;
        assert_eq!(failed.code(), "bad_credentials");
    }
    let limited = credentials(cluster.nodes[2].addr, "login", "dara", "not the password").await;
    assert_eq!((limited.status, limited.code()), (429, "rate_limited"));

    let out = send(
        cluster.nodes[1].addr,
        Method::POST,
        "/api/account/logout-everywhere",
        Auth::Cookie(&dara),
        None,
        None,
    )
    .await;
    assert_eq!(out.status, 204);
    for node in &cluster.nodes {
        assert_eq!(whoami(node.addr, Auth::Cookie(&dara)).await.status, 401);
    }
    assert_eq!(
        whoami(cluster.nginx.addr, Auth::Cookie(&sok)).await.status,
        200
    );
}

/// An anonymous seat given to an account through a node that does not run its room: the owner's
/// live room learns of it at once (it announces the username to its connections, on that node
/// and relayed), and the account resumes the seat by logging in through the other node.
#[tokio::test]
async fn an_attach_through_another_node_reaches_the_live_room() {
    let cluster = Cluster::start(2, SHORT_LEASE).await;
    let body = json!({"game": "ouk-chatrang", "seat": "white", "name": "guest"});
    let created = post_as(cluster.nodes[0].addr, "/api/rooms", Auth::None, &body).await;
    assert_eq!(created.status, 201, "{}", created.body);
    let code = created.body["invite_code"].as_str().unwrap().to_owned();
    let room_id = created.body["room_id"].as_str().unwrap().to_owned();
    let token = created.body["seat_token"].as_str().unwrap().to_owned();
    let owner = cluster.owner(&room_id).await.expect("an owner");
    let other = 1 - owner;
    let (mut watcher, welcome) =
        hello_as(cluster.nodes[owner].addr, None, json!({"room": code})).await;
    assert_eq!(welcome["t"], "welcome", "{welcome}");
    let (mut relayed, welcome) =
        hello_as(cluster.nodes[other].addr, None, json!({"room": code})).await;
    assert_eq!(welcome["t"], "welcome", "{welcome}");

    let dara = register(cluster.nodes[other].addr, "Dara").await;
    let path = "/api/account/attach";
    let body = json!({"seat_tokens": [token]});
    let attached = post_as(cluster.nodes[other].addr, path, Auth::Cookie(&dara), &body).await;
    assert_eq!(attached.status, 200, "{}", attached.body);
    assert_eq!(attached.body["attached"][0]["room_id"], room_id.as_str());
    for socket in [&mut watcher, &mut relayed] {
        let announced = support::ws::within(socket.next_of("seat_account")).await;
        assert_eq!(
            announced["d"],
            json!({"seat": 0, "user": "Dara"}),
            "{announced}"
        );
    }
    assert_eq!(
        cluster.owner(&room_id).await,
        Some(owner),
        "the room stayed"
    );
    let summary = get_as(
        cluster.nodes[other].addr,
        &format!("/api/rooms/{code}"),
        Auth::None,
    )
    .await;
    assert_eq!(summary.body["seats"][0]["user"], "Dara", "{}", summary.body);

    // No reload needed: the login alone resumes the seat, through either node.
    let (_socket, welcome) = hello_as(
        cluster.nodes[other].addr,
        Some(&dara),
        json!({"room": code}),
    )
    .await;
    assert_eq!(
        (&welcome["d"]["seat"], &welcome["d"]["role"]),
        (&json!(0), &json!("player")),
        "{welcome}"
    );
}
