//! `othc` tunes its allocator before anything allocates (see `main.rs`):
//! the options it sets by number must be the ones it means. mimalloc
//! prints its options under `MIMALLOC_VERBOSE=1`; a libmimalloc-sys that
//! numbers them otherwise fails here rather than tuning the wrong ones.

use std::process::Command;

#[test]
fn the_allocator_options_set_are_the_ones_meant() {
    let o = Command::new(env!("CARGO_BIN_EXE_othc"))
        .arg("--version")
        .env("MIMALLOC_VERBOSE", "1")
        .output()
        .expect("othc runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0));
    for want in ["option 'arena_eager_commit': 0", "option 'purge_delay': 0"] {
        assert!(
            err.contains(want),
            "no `{want}` in mimalloc's options:\n{err}"
        );
    }
}
