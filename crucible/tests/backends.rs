//! The conformance suite (`tests/suite`) against the local backend, over a
//! daemon on loopback. `tests/microvm.rs` runs the same suite in a microVM.

mod suite;

use std::sync::Arc;

use crucible::client::Client;
use crucible::daemon::{self, Config};
use crucible::local::LocalBackend;

#[tokio::test]
async fn the_local_backend_conforms() {
    let root = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("crucible_backends");
    let _ = std::fs::remove_dir_all(&root);
    let local = LocalBackend::new(&root);
    local.create("box").unwrap();
    let config = Config {
        key: Some("k".into()),
        ..Config::default()
    };
    let at = daemon::spawn("127.0.0.1:0".parse().unwrap(), Arc::new(local), config)
        .await
        .unwrap();
    suite::conformance(&Client::new(&at.to_string(), Some("k".into())), "box").await;
}
