//! Scenarios on both backends: [`on_both_backends!`] turns `async fn scenario(store)` (or
//! `(store, url)`, or `(backend)` for a scenario that starts its own server with [`server_on`])
//! into a module with a `postgres` and a `sqlite` test, each on a fresh database, so
//! `cargo test --test store sqlite` runs only the SQLite half.

use khanate::config::Config;

use super::server::TestServer;

/// Which store a `backend:` scenario runs on.
#[derive(Clone, Copy, Debug)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A server on a fresh database of `backend` with `change` applied to the tests'
/// configuration, and the database's guard (the database goes when it is dropped).
pub async fn server_on(
    backend: Backend,
    change: impl FnOnce(&mut Config),
) -> (TestServer, Box<dyn std::any::Any>) {
    let (url, guard): (String, Box<dyn std::any::Any>) = match backend {
        Backend::Sqlite => {
            let (file, url) = super::db::fresh_sqlite_url();
            (url, Box::new(file))
        }
        Backend::Postgres => {
            let db = super::db::fresh_postgres().await;
            (db.url.clone(), Box::new(db))
        }
    };
    let mut config = Config::for_tests(&url);
    change(&mut config);
    (TestServer::start_with(config).await, guard)
}

/// For each scenario, a module with one `#[tokio::test]` per backend. `store:` scenarios take the
/// connected store; `url:` scenarios also get the database URL; `backend:` scenarios get the
/// [`Backend`] alone.
#[allow(unused_macros)]
macro_rules! on_both_backends {
    (backend: $($scenario:ident),* $(,)?) => {
        $(mod $scenario {
            #[tokio::test]
            async fn sqlite() {
                super::$scenario($crate::support::backends::Backend::Sqlite).await;
            }

            #[tokio::test]
            async fn postgres() {
                super::$scenario($crate::support::backends::Backend::Postgres).await;
            }
        })*
    };
    (store: $($scenario:ident),* $(,)?) => {
        $(on_both_backends!(@one $scenario, store, _url, [store]);)*
    };
    (url: $($scenario:ident),* $(,)?) => {
        $(on_both_backends!(@one $scenario, store, url, [store, url]);)*
    };
    (@one $scenario:ident, $store:ident, $url:ident, [$($arg:ident),*]) => {
        mod $scenario {
            use super::*;

            #[tokio::test]
            async fn postgres() {
                let database = $crate::support::db::fresh_postgres().await;
                let database_url = database.url.clone();
                let $store = Store::connect(&database_url).await.expect("connect to the test database");
                assert_eq!($store.backend_name(), "postgres");
                let $url: &str = &database_url;
                super::$scenario($($arg),*).await;
            }

            #[tokio::test]
            async fn sqlite() {
                let (_file, database_url) = $crate::support::db::fresh_sqlite_url();
                let $store = Store::connect(&database_url).await.expect("open the test database");
                assert_eq!($store.backend_name(), "sqlite");
                let $url: &str = &database_url;
                super::$scenario($($arg),*).await;
            }
        }
    };
}
