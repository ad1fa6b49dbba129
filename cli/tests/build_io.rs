//! A build that cannot write where it builds says so (E0704), and does not
//! blame the object's sources: it used to be reported as the compiler
//! failing on them (E0701), with the file system's message as "what the
//! compiler said".

use std::process::Command;

#[test]
fn an_output_folder_that_cannot_be_written_is_e0704_not_a_compiler_failure() {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let dir = test_support::copy_of_dir(
        &root.join("examples/hello"),
        env!("CARGO_TARGET_TMPDIR"),
        "build-io-hello",
    );
    std::fs::write(dir.join("not-a-folder"), "a file").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_othc"))
        .current_dir(&dir)
        .args([
            "build",
            "Hello.oth",
            "--color",
            "never",
            "--out",
            "not-a-folder/out",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("[E0704]") && err.contains("Not a directory"),
        "{err}"
    );
    // Compiled here (the SDK's folder cannot be made) or taken from the
    // cache (the module cannot be written): never the compiler's fault.
    assert!(!err.contains("[E0701]"), "blamed on the sources: {err}");
}
