//! Khanate: an authoritative game server for Khan, Ouk Chatrang and Khan-Tsin.
//!
//! The library is what the binary and the tests share. Layers, with arrows pointing one way
//! (`api -> room -> rules`, `room -> store`, `api -> store` for reads):
//!
//! - [`clock`]: the one source of time of rooms (the system's, or a manual one in tests);
//! - [`rules`]: the pure rules of every game (no I/O);
//! - [`bot`]: computer opponents' move choice (no I/O; searched on the server's worker pool);
//! - [`protocol`]: the wire messages of `PROTOCOL.md`;
//! - [`json`]: client JSON read strictly (no key twice);
//! - [`text`]: the Unicode classes of names and chat (invisible characters, bidirectional ones);
//! - [`domain`]: the types rooms and the store share (room status, visibility, a finished game);
//! - [`ratings`]: Glicko-2 and Weng-Lin (Plackett-Luce) ratings of rated games (no I/O);
//! - [`accounts`]: optional accounts: names, passwords, sessions, API tokens, login limits;
//! - [`room`]: one task per room, deciding, storing and broadcasting;
//! - [`cluster`]: several nodes on one PostgreSQL: leases, claims and fencing, and any node
//!   serving any client by relaying its WebSocket (forwarding its REST request) to the one node
//!   that owns the room, whose room task alone decides and broadcasts; no events travel between
//!   nodes, only "this room moved" (`LISTEN`/`NOTIFY`); a room whose people all come through one
//!   other node is released to that node through PostgreSQL, so at steady state behind a proxy
//!   that hashes by room almost nothing is relayed;
//! - [`store`]: PostgreSQL or SQLite persistence;
//! - [`site`]: the events of a logged-in user's pages outside rooms (challenges, games begun,
//!   "your turn"), across nodes by `NOTIFY`;
//! - [`pairing`]: quick pairing: pools, the matching policy, and the queues (PostgreSQL's,
//!   shared by every node, or in the process on SQLite);
//! - [`api`]: HTTP routes and the WebSocket endpoint;
//! - [`accept`]: the accept loop, its connection caps and HTTP timeouts;
//! - [`server`]: start and stop a whole server from a [`config::Config`];
//! - [`telemetry`]: every Prometheus metric, and the exporter behind `GET /metrics`;
//! - [`cli`]: the rules tools of the binary (`perft`, `moves`, `play`).

#![warn(missing_docs)]

pub mod accept;
pub mod accounts;
pub mod api;
pub mod bot;
pub mod cli;
pub mod clock;
pub mod cluster;
pub mod config;
pub mod domain;
pub mod json;
pub mod pairing;
pub mod protocol;
pub mod ratings;
pub mod room;
pub mod rules;
pub mod server;
pub mod site;
pub mod store;
pub mod telemetry;
pub mod text;
