//! Objects written in Rust: the Cargo package `<Object>/Cargo.toml` beside
//! the `.oth` file, built with cargo for `wasm32-unknown-unknown` against
//! the `othismo` crate, which othc carries (`sdk/rust/`) and lays out in the
//! build's scratch folder: the package depends on `othismo = "0.1"`, and
//! the build points that at the crate laid out (a `[patch]` given on
//! cargo's command line, offline: nothing is fetched).
//!
//! The toolchain: rustup's, when it has the wasm32 target (`rustup target
//! add wasm32-unknown-unknown`); else Debian's `rustc` and `cargo` with
//! `libstd-rust-dev-wasm32` and `lld-14`, which build wasm32 where rustup
//! cannot fetch the target. Code and crate keep to Rust 1.63.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::toolchain::{CompileError, CompilerError, Place, Profile};

/// The `othismo` crate, as othc lays it out for a build.
pub const SDK_FILES: &[(&str, &str)] = &[
    ("Cargo.toml", include_str!("../../sdk/rust/Cargo.toml")),
    ("src/lib.rs", include_str!("../../sdk/rust/src/lib.rs")),
    ("src/abi.rs", include_str!("../../sdk/rust/src/abi.rs")),
    ("src/bson.rs", include_str!("../../sdk/rust/src/bson.rs")),
    ("src/field.rs", include_str!("../../sdk/rust/src/field.rs")),
    ("src/json.rs", include_str!("../../sdk/rust/src/json.rs")),
    ("src/text.rs", include_str!("../../sdk/rust/src/text.rs")),
    ("src/tree.rs", include_str!("../../sdk/rust/src/tree.rs")),
    (
        "src/exports.rs",
        include_str!("../../sdk/rust/src/exports.rs"),
    ),
    (
        "src/payload.rs",
        include_str!("../../sdk/rust/src/payload.rs"),
    ),
    (
        "src/request.rs",
        include_str!("../../sdk/rust/src/request.rs"),
    ),
    (
        "src/server.rs",
        include_str!("../../sdk/rust/src/server.rs"),
    ),
    ("src/stat.rs", include_str!("../../sdk/rust/src/stat.rs")),
];

const TARGET: &str = "wasm32-unknown-unknown";

/// How to run cargo for wasm32 here.
#[derive(Clone, Debug)]
pub struct Cargo {
    pub program: PathBuf,
    /// The compiler cargo is to use, when not its own.
    pub rustc: Option<PathBuf>,
}

/// The cargo that builds wasm32 on this machine, or what to install.
pub fn find() -> Result<Cargo, String> {
    let rustup_has_it = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .is_ok_and(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .any(|l| l.trim() == TARGET)
        });
    if rustup_has_it {
        return Ok(Cargo {
            program: PathBuf::from("cargo"),
            rustc: None,
        });
    }
    let (cargo, rustc) = (Path::new("/usr/bin/cargo"), Path::new("/usr/bin/rustc"));
    if cargo.exists() && rustc.exists() && Path::new("/usr/lib/rustlib").join(TARGET).exists() {
        return Ok(Cargo {
            program: cargo.to_path_buf(),
            rustc: Some(rustc.to_path_buf()),
        });
    }
    Err(format!(
        "building an object written in Rust needs the `{TARGET}` target: `rustup target add {TARGET}`, \
         or on Debian and Ubuntu `apt-get install rustc cargo libstd-rust-dev-wasm32 lld-14`"
    ))
}

impl Cargo {
    /// What names this toolchain in a cache key (another compiler, another module).
    pub fn version(&self) -> String {
        let mut c = Command::new(self.rustc.as_deref().unwrap_or(Path::new("rustc")));
        c.arg("--version");
        c.output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    }
}

/// Writes the crate under `build/sdk-rust/othismo`; its folder.
pub fn lay_out_sdk(build: &Path) -> Result<PathBuf, String> {
    let dir = build.join("sdk-rust").join("othismo");
    crate::layout::lay_out(SDK_FILES, &dir)?;
    Ok(dir)
}

/// The name of the library a package builds: `[lib] name`, or its
/// package's name with `-` as `_`; why not, for a manifest that is not
/// TOML or names no package.
fn lib_name(manifest: &str) -> Result<String, String> {
    let table: toml::Table = manifest
        .parse()
        .map_err(|e: toml::de::Error| format!("it is not valid TOML: {}", e.message()))?;
    let name_in = |section: &str| {
        table
            .get(section)
            .and_then(|s| s.get("name"))
            .and_then(|n| n.as_str())
    };
    let name = name_in("lib")
        .or_else(|| name_in("package"))
        .ok_or("it names no package (`[package]` with a `name`)")?;
    Ok(name.replace('-', "_"))
}

/// Builds the package of `manifest` into a module; `build` is a scratch
/// folder (the crate's layout, cargo's target folder).
pub fn compile(manifest: &Path, build: &Path, profile: Profile) -> Result<Vec<u8>, CompileError> {
    let fail = CompileError::Setup;
    let cargo = find().map_err(fail)?;
    let sdk = lay_out_sdk(build).map_err(fail)?;
    let text = std::fs::read_to_string(manifest)
        .map_err(|e| fail(format!("cannot read `{}`: {e}", manifest.display())))?;
    let name = lib_name(&text).map_err(|why| fail(format!("`{}`: {why}", manifest.display())))?;
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let target = absolute(&build.join("target"));
    let (profile_name, dir) = match profile {
        Profile::Release => ("release", "release"),
        Profile::Debug => ("dev", "debug"),
    };
    let mut c = Command::new(&cargo.program);
    c.args([
        "build",
        "--offline",
        "--message-format=short",
        "--target",
        TARGET,
    ])
    .arg("--manifest-path")
    .arg(absolute(manifest))
    .arg("--target-dir")
    .arg(&target)
    .arg("--config")
    .arg(format!(
        "patch.crates-io.othismo.path={:?}",
        absolute(&sdk).display().to_string()
    ))
    .args(["--config", "profile.release.opt-level=\"s\""])
    .args(["--config", "profile.release.lto=true"])
    .args(["--config", "profile.release.debug=false"])
    .args(["--config", "profile.release.strip=true"])
    .args(["--config", "profile.release.panic=\"abort\""])
    .args(["--config", "profile.dev.panic=\"abort\""])
    .env("CARGO_TERM_COLOR", "never");
    if profile == Profile::Release {
        c.arg("--release");
    }
    if let Some(rustc) = &cargo.rustc {
        c.env("RUSTC", rustc);
    }
    let out = c
        .output()
        .map_err(|e| fail(format!("cannot run `{}`: {e}", cargo.program.display())))?;
    if !out.status.success() {
        return Err(CompileError::Compiler {
            output: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    let _ = profile_name;
    let wasm = target.join(TARGET).join(dir).join(format!("{name}.wasm"));
    std::fs::read(&wasm).map_err(|e| {
        fail(format!(
            "cargo built no `{}` ({e}): the package's library must be a `cdylib` (`[lib] crate-type = [\"cdylib\"]`)",
            wasm.display()
        ))
    })
}

/// rustc's errors in cargo's short output (`src/lib.rs:5:14: error[E0425]:
/// …`), with their places relative to the package's folder.
pub fn compile_errors(output: &str) -> Vec<CompilerError> {
    let mut out = Vec::new();
    for line in output.lines() {
        let Some((place, rest)) = line.split_once(": error") else {
            continue;
        };
        let message = format!("error{rest}");
        let mut parts = place.rsplitn(3, ':');
        let (col, ln, file) = (parts.next(), parts.next(), parts.next());
        let place = match (
            file,
            ln.and_then(|l| l.parse().ok()),
            col.and_then(|c| c.parse().ok()),
        ) {
            (Some(file), Some(line), Some(column)) => Some(Place {
                file: file.to_string(),
                line,
                column,
                len: 1,
            }),
            _ => None,
        };
        out.push(CompilerError { message, place });
    }
    out
}

/// Every file of the package at `manifest` (its folder, `target/` and
/// `Cargo.lock` aside): (path relative to the folder, contents), in a
/// stable order, for the cache key.
pub fn package_files(manifest: &Path) -> Result<Vec<(PathBuf, Vec<u8>)>, String> {
    let root = manifest.parent().unwrap_or(Path::new("."));
    let mut out = Vec::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        let entries =
            std::fs::read_dir(&dir).map_err(|e| format!("cannot read `{}`: {e}", dir.display()))?;
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name();
            if name == "target" || name == "Cargo.lock" || name.to_string_lossy().starts_with('.') {
                continue;
            }
            if p.is_dir() {
                todo.push(p);
            } else if let Ok(bytes) = std::fs::read(&p) {
                out.push((p.strip_prefix(root).unwrap_or(&p).to_path_buf(), bytes));
            }
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_library_is_named_as_cargo_names_it() {
        assert_eq!(
            lib_name("[package]\nname = \"my-shouter\"\n").as_deref(),
            Ok("my_shouter")
        );
        assert_eq!(
            lib_name("[package]\nname = \"a\"\n\n[lib]\nname = \"b\"\ncrate-type = [\"cdylib\"]\n")
                .as_deref(),
            Ok("b")
        );
        // Read as TOML, not line by line: a name written with a comment
        // after it, in a table written inline, or with single quotes.
        assert_eq!(
            lib_name("package = { name = 'in-line' } # the package\n").as_deref(),
            Ok("in_line")
        );
        assert_eq!(
            lib_name("[package]\nname = \"a\" # ours\n[dependencies]\nname = \"not-this\"\n")
                .as_deref(),
            Ok("a")
        );
        assert!(
            lib_name("[package\nname = \"a\"")
                .unwrap_err()
                .contains("not valid TOML")
        );
        assert!(
            lib_name("[dependencies]\n")
                .unwrap_err()
                .contains("names no package")
        );
    }

    #[test]
    fn rustc_errors_are_read_with_their_places() {
        let output = "   Compiling shouter v0.1.0\nsrc/lib.rs:5:14: error[E0425]: cannot find value `x` in this scope\nerror: could not compile `shouter`\n";
        let errors = compile_errors(output);
        assert_eq!(errors.len(), 1);
        let p = errors[0].place.as_ref().unwrap();
        assert_eq!((p.file.as_str(), p.line, p.column), ("src/lib.rs", 5, 14));
        assert!(
            errors[0]
                .message
                .starts_with("error[E0425]: cannot find value")
        );
    }
}
