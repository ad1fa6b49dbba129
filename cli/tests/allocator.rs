//! `othc lsp` tunes its allocator for a long life before anything
//! allocates (see `main.rs`); the other commands keep mimalloc's defaults.
//! The options are set by number: mimalloc prints its options under
//! `MIMALLOC_VERBOSE=1`, so a libmimalloc-sys that numbers them otherwise
//! fails here rather than tuning the wrong ones.

use std::process::{Command, Stdio};

fn options(args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_othc"))
        .args(args)
        .env("MIMALLOC_VERBOSE", "1")
        .stdin(Stdio::null())
        .output()
        .expect("othc runs");
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn the_language_server_tunes_the_allocator_and_nothing_else_does() {
    // Its input ends at once: the server starts, then stops.
    let lsp = options(&["lsp"]);
    for want in [
        "option 'arena_eager_commit': 0",
        "option 'purge_delay': 0",
        "option 'allow_thp': 0",
    ] {
        assert!(
            lsp.contains(want),
            "no `{want}` in mimalloc's options:\n{lsp}"
        );
    }
    let check = options(&["--version"]);
    for want in [
        "option 'arena_eager_commit': 2",
        "option 'purge_delay': 10",
        "option 'allow_thp': 1",
    ] {
        assert!(
            check.contains(want),
            "no `{want}` in mimalloc's options:\n{check}"
        );
    }
}
