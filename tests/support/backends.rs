//! The store's scenarios on both backends: [`on_both_backends!`] turns `async fn scenario(store)`
//! (or `(store, url)`) into a module with a `postgres` and a `sqlite` test, each on a fresh
//! database, so `cargo test --test store sqlite` runs only the SQLite half.

/// For each scenario, a module with one `#[tokio::test]` per backend. `store:` scenarios take the
/// connected store; `url:` scenarios also get the database URL.
#[allow(unused_macros)]
macro_rules! on_both_backends {
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
