//! A second real editor as the client: Debian's Emacs 28 with eglot, in
//! batch, with the book's configuration (editors/emacs/othc.el). eglot
//! asks for plain-text hovers and shows no related information, unlike
//! Neovim: the test holds the server to what it said it can show. It
//! opens the hello example (clean), asks a hover over a mount, breaks the
//! mount, renames an instance and back (the error must still show), then
//! sends text where the greeter takes a `Greeting` (whose
//! diagnostic's other label is in Greeter.oth). Emacs and eglot are
//! installed with apt-get if missing; under CI=true a test that cannot
//! run fails.

mod editor;

use editor::root;
use std::process::Command;

use serde_json::Value;

#[test]
fn the_book_shows_the_configuration_the_test_uses() {
    editor::assert_book_shows("editors/emacs/othc.el", "elisp");
}

#[test]
fn emacs_with_eglot_gets_plain_text_and_every_label() {
    let eglot = || {
        Command::new("emacs")
            .args(["--batch", "--eval", "(require 'eglot)"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let ready = test_support::ensure_debian_tool("emacs", "emacs-nox")
        .and_then(|()| test_support::ensure_debian_package("elpa-eglot", "Emacs's eglot", &eglot));
    if !test_support::runnable(ready) {
        return;
    }
    let dir = test_support::copy_of_dir(
        &root().join("examples/hello"),
        env!("CARGO_TARGET_TMPDIR"),
        "emacs-hello",
    );
    let out = dir.join("emacs-result.json");
    let othc = env!("CARGO_BIN_EXE_othc");
    let o = Command::new("emacs")
        .current_dir(&dir)
        .env("OTH_OUT", &out)
        .env("HOME", &dir)
        .args(["--batch", "--eval"])
        .arg(format!("(setq othc-program \"{othc}\")"))
        .arg("-l")
        .arg(root().join("editors/emacs/othc.el"))
        .arg("-l")
        .arg(root().join("cli/tests/emacs/drive.el"))
        .output()
        .expect("emacs runs");
    let result: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap_or_else(|_| {
        panic!(
            "the driver wrote no result; emacs said:\n{}",
            String::from_utf8_lossy(&o.stderr)
        )
    }))
    .expect("JSON");
    assert!(result["error"].is_null(), "{result:#}");
    assert_eq!(result["before"], serde_json::json!([]), "{result:#}");
    // Plain text, as eglot asked: the words without Markdown's marks.
    assert_eq!(result["hover_kind"], "plaintext", "{result:#}");
    let hover = result["hover"].as_str().unwrap();
    assert!(
        hover.contains("Reaches instance loud (Shouter)") && !hover.contains('`'),
        "{hover}"
    );
    let mount = result["mount"].as_array().unwrap();
    assert_eq!(mount.len(), 1, "{result:#}");
    assert_eq!(
        (&mount[0]["line"], &mount[0]["column"]),
        (&13.into(), &20.into())
    );
    assert!(
        mount[0]["text"]
            .as_str()
            .unwrap()
            .contains("has no instance `lod`")
    );
    // A rename then its undo leaves the diagnostics as they were: the
    // server publishes them again for the edited document, or flymake,
    // which dropped them on the edit, would show a broken file as clean.
    assert_eq!(result["undone"], result["mount"], "{result:#}");
    // The label in another file, which related information would carry,
    // is a line of the message.
    let payload = result["payload"].as_array().unwrap();
    let text = payload
        .iter()
        .filter_map(|d| d["text"].as_str())
        .find(|t| t.contains("takes `Greeting`"))
        .unwrap_or_else(|| panic!("{result:#}"));
    assert!(text.contains("Greeter.oth:"), "{text}");
}
