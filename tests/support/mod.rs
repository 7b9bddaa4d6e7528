//! Helpers shared by the integration tests. Include with `mod support;` from a file under `tests/`.
//!
//! Not every test file uses every helper, hence the `dead_code` allowance.
#![allow(dead_code)]

#[macro_use]
pub mod backends;
pub mod account;
pub mod cluster;
pub mod data;
pub mod db;
pub mod netem;
pub mod nginx;
pub mod pairing;
pub mod pg_server;
pub mod pong_hold;
pub mod rooms;
pub mod server;
pub mod stream;
pub mod table;
pub mod ws;
