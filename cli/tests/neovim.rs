//! A real editor as the client: Debian's Neovim, headless, with the book's
//! configuration (editors/neovim/othc.lua), opens the hello example, which
//! checks clean; the test then changes `mount /shouter /loud` to `/lod` in
//! the buffer and asserts the diagnostic `othc check` gives for it arrives
//! where the CLI puts it. Neovim is installed with apt-get if missing; under
//! CI=true a test that cannot run fails.

mod editor;

use editor::root;
use std::process::Command;

use serde_json::Value;

#[test]
fn the_book_shows_the_configuration_the_test_uses() {
    editor::assert_book_shows("editors/neovim/othc.lua", "lua");
}

#[test]
fn neovim_shows_the_checkers_diagnostics_as_you_type() {
    if !test_support::runnable(test_support::ensure_debian_tool("nvim", "neovim")) {
        return;
    }
    let dir = test_support::copy_of_dir(
        &root().join("examples/hello"),
        env!("CARGO_TARGET_TMPDIR"),
        "neovim-hello",
    );
    let out = dir.join("nvim-result.json");
    let config = root().join("editors/neovim/othc.lua");
    let drive = root().join("cli/tests/neovim/drive.lua");
    let othc = env!("CARGO_BIN_EXE_othc");
    let status = Command::new("nvim")
        .current_dir(&dir)
        .env("OTH_OUT", &out)
        .env("OTH_OLD", "/shouter  /loud")
        .env("OTH_NEW", "/shouter  /lod")
        .env("HOME", &dir)
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("XDG_STATE_HOME", dir.join("state"))
        .args(["--headless", "-u", "NONE", "-i", "NONE"])
        .arg("--cmd")
        .arg(format!("let g:othc_path = '{othc}'"))
        .arg("--cmd")
        .arg(format!("luafile {}", config.display()))
        .arg("-c")
        .arg(format!("luafile {}", drive.display()))
        .arg("Hello.oth")
        .status()
        .expect("nvim runs");
    assert!(status.success(), "nvim exited with {status}");
    let result: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("the driver wrote its result"))
            .expect("JSON");
    assert!(result["error"].is_null(), "{result:#}");
    // What `othc check` says of the unedited example: nothing.
    assert_eq!(result["before"], serde_json::json!([]), "{result:#}");
    let after = result["after"].as_array().expect("a list");
    assert_eq!(after.len(), 1, "{result:#}");
    let d = &after[0];
    assert_eq!(d["code"], "E0501", "{result:#}");
    // Line 13, columns 21-25 as `othc check` reports them (0-based here).
    assert_eq!(
        (&d["lnum"], &d["col"], &d["end_col"]),
        (&12.into(), &20.into(), &24.into())
    );
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .contains("has no instance `lod`"),
        "{result:#}"
    );
    assert!(
        d["href"]
            .as_str()
            .is_some_and(|h| h.ends_with("errors/E0501.md")),
        "{result:#}"
    );
    eprintln!(
        "neovim: diagnostics {} ms after the edit (includes Neovim's own handling)",
        result["latency_ms"]
    );
}
