//! `othc` tunes its allocator before anything allocates (see `main.rs`):
//! the option it sets by number must be the one it means, and a user's own
//! setting must win. mimalloc prints its options under `MIMALLOC_VERBOSE=1`;
//! a libmimalloc-sys that numbers them otherwise fails here rather than
//! tuning the wrong one.

use std::process::Command;

fn options(env: &[(&str, &str)]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_othc"))
        .arg("--version")
        .env("MIMALLOC_VERBOSE", "1")
        .env_remove("MIMALLOC_ARENA_EAGER_COMMIT")
        .envs(env.iter().copied())
        .output()
        .expect("othc runs");
    assert_eq!(o.status.code(), Some(0));
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn arenas_are_committed_as_used() {
    let err = options(&[]);
    let want = "option 'arena_eager_commit': 0";
    assert!(
        err.contains(want),
        "no `{want}` in mimalloc's options:\n{err}"
    );
}

#[test]
fn the_users_setting_wins() {
    let err = options(&[("MIMALLOC_ARENA_EAGER_COMMIT", "1")]);
    let want = "option 'arena_eager_commit': 1";
    assert!(
        err.contains(want),
        "no `{want}` in mimalloc's options:\n{err}"
    );
}
