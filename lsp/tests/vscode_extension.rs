//! The VS Code extension (editors/vscode/): its TextMate grammar passes its
//! tests (vscode-tmgrammar-test, on cases covering every token kind), the
//! tests are the ones tests/make.py writes, and the extension packages with
//! @vscode/vsce, so a packaging mistake fails CI. npm installs the tools in
//! the test's own copy (kept between runs); under CI=true a missing npm
//! fails the test.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn run(dir: &Path, program: &str, args: &[&str]) -> std::process::Output {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    assert!(
        out.status.success(),
        "{program} {} failed ({}):\n{}\n{}",
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The extension's files, copied over the test's folder (its node_modules
/// kept, so npm runs again only when the lock file changed).
fn working_copy() -> PathBuf {
    let src = root().join("editors/vscode");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("vscode-extension");
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap().flatten() {
            let name = e.file_name();
            if name == "node_modules" || name.to_string_lossy().ends_with(".vsix") {
                continue;
            }
            if e.path().is_dir() {
                copy(&e.path(), &to.join(&name));
            } else {
                std::fs::copy(e.path(), to.join(&name)).unwrap();
            }
        }
    }
    copy(&src, &dir);
    let lock = std::fs::read(dir.join("package-lock.json")).unwrap();
    let stamp = dir.join("node_modules/.installed-lock");
    if std::fs::read(&stamp).ok().as_deref() != Some(&lock[..]) {
        eprintln!(
            "test set-up: npm ci in {} (the grammar tester and vsce)",
            dir.display()
        );
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&dir)
            .stdout(std::process::Stdio::null())
            .status()
            .expect("npm runs");
        assert!(status.success(), "npm ci failed ({status})");
        std::fs::write(&stamp, &lock).unwrap();
    }
    dir
}

#[test]
fn grammar_tests_pass_and_the_extension_packages() {
    let has_npm = Command::new("npm")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_npm {
        assert!(
            !test_support::under_ci(),
            "npm is needed to test the VS Code extension"
        );
        eprintln!("skipped: npm is not installed");
        return;
    }
    let dir = working_copy();

    // The committed grammar tests are what make.py writes.
    let before: Vec<String> = ["header.oth", "image.oth"]
        .iter()
        .map(|f| std::fs::read_to_string(dir.join("tests").join(f)).unwrap())
        .collect();
    run(&dir, "python3", &["tests/make.py"]);
    for (i, f) in ["header.oth", "image.oth"].iter().enumerate() {
        let after = std::fs::read_to_string(dir.join("tests").join(f)).unwrap();
        assert_eq!(
            before[i], after,
            "editors/vscode/tests/{f} is stale: run tests/make.py"
        );
    }

    let out = run(
        &dir,
        "npx",
        &[
            "vscode-tmgrammar-test",
            "-g",
            "syntaxes/oth.tmLanguage.json",
            "tests/*.oth",
        ],
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(said.matches("run successfuly").count(), 2, "{said}");

    let vsix = dir.join("othismo.vsix");
    let _ = std::fs::remove_file(&vsix);
    run(&dir, "npx", &["vsce", "package", "--out", "othismo.vsix"]);
    let bytes = std::fs::read(&vsix).expect("vsce wrote the package");
    assert!(bytes.starts_with(b"PK"), "a .vsix is a zip archive");
    let has = |name: &str| bytes.windows(name.len()).any(|w| w == name.as_bytes());
    for f in [
        "extension/package.json",
        "extension/extension.js",
        "extension/syntaxes/oth.tmLanguage.json",
        "extension/language-configuration.json",
        "extension/node_modules/vscode-languageclient/package.json",
    ] {
        assert!(has(f), "the package lacks {f}");
    }
    assert!(
        !has("extension/tests/"),
        "the grammar tests are not shipped"
    );
}
