//! The repository's shape, held: no source file over 600 lines; no cycle
//! among a module's children beyond the ones still listed below (the
//! list only shrinks: a cycle broken must leave it, a new one fails); and
//! no more functions of 80 lines or more, or of six parameters or more,
//! than the bounds below (lowered as functions are split, never raised).
//! How the code is read: `test_support::rust_source`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use test_support::rust_source::code_of;
use test_support::rust_source::functions::functions;
use test_support::rust_source::modules::cycles_of;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every crate whose modules are held: the workspace's, and the SDK's
/// Rust crate (built for wasm32 on its own).
const CRATES: &[&str] = &[
    "grammar",
    "compiler",
    "driver",
    "cli",
    "lsp",
    "runtime-min",
    "crucible",
    "test-support",
    "harness",
    "contracts",
    "write-whole",
    "sdk/rust",
];

/// Cycles not yet broken, each as `crate: parent: a, b, ...` (the
/// members of one strongly connected set of siblings, sorted).
const KNOWN_CYCLES: &[&str] = &[];

#[test]
fn no_source_file_is_over_600_lines() {
    let mut long = Vec::new();
    let mut files = Vec::new();
    for krate in CRATES {
        files.extend(test_support::files_with_extension(
            &root().join(krate),
            "rs",
        ));
    }
    for (dir, ext) in [
        ("sdk", "ts"),
        ("editors", "el"),
        ("editors", "lua"),
        ("editors", "js"),
    ] {
        files.extend(test_support::files_with_extension(&root().join(dir), ext));
    }
    for file in files {
        let rel = file.strip_prefix(root()).unwrap();
        // Generated bindings and installed packages are not the repository's.
        let ours = !rel
            .components()
            .any(|c| c.as_os_str() == "node_modules" || c.as_os_str() == "target")
            && !rel.to_string_lossy().ends_with(".oth.ts");
        let lines = std::fs::read_to_string(&file).map_or(0, |t| t.lines().count());
        if ours && lines > 600 {
            long.push(format!("{} ({lines} lines)", rel.display()));
        }
    }
    assert!(
        long.is_empty(),
        "split these by what each part does:\n{}",
        long.join("\n")
    );
}

/// Functions of 80 lines or more (their braces, outside tests): at most.
const LONG_FUNCTIONS: usize = 24;
/// Functions of six parameters or more (`self` not counted), the host
/// ABI's imports and exports among them (14: the runtime's five host
/// functions, the SDK's six imports and three exports): at most.
const WIDE_FUNCTIONS: usize = 29;

#[test]
fn no_more_long_or_wide_functions_than_the_bounds() {
    let mut long = Vec::new();
    let mut wide = Vec::new();
    for krate in CRATES {
        let src = root().join(krate).join("src");
        for file in test_support::files_with_extension(&src, "rs") {
            if file.file_name().is_some_and(|n| n == "tests.rs") {
                continue;
            }
            let code = code_of(&std::fs::read_to_string(&file).unwrap());
            let rel = file.strip_prefix(root()).unwrap().display().to_string();
            for f in functions(&code) {
                let at = format!("{rel}:{} {}", f.line, f.name);
                if f.lines >= 80 {
                    long.push(format!("{at} ({} lines)", f.lines));
                }
                if f.params >= 6 {
                    wide.push(format!("{at} ({} parameters)", f.params));
                }
            }
        }
    }
    assert!(
        long.len() <= LONG_FUNCTIONS,
        "{} functions of 80 lines or more, at most {LONG_FUNCTIONS}:\n{}",
        long.len(),
        long.join("\n")
    );
    assert!(
        wide.len() <= WIDE_FUNCTIONS,
        "{} functions of six parameters or more, at most {WIDE_FUNCTIONS}:\n{}",
        wide.len(),
        wide.join("\n")
    );
}

#[test]
fn no_module_cycles_but_the_known_ones() {
    let mut found = BTreeSet::new();
    for krate in CRATES {
        for cycle in cycles_of(&root().join(krate).join("src")) {
            found.insert(format!("{krate}: {cycle}"));
        }
    }
    let known: BTreeSet<String> = KNOWN_CYCLES.iter().map(|s| s.to_string()).collect();
    let new: Vec<_> = found.difference(&known).collect();
    let gone: Vec<_> = known.difference(&found).collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "module cycles changed.\nnew (make the dependency run one way):\n{}\n\
         broken (take them off KNOWN_CYCLES):\n{}",
        lines(&new),
        lines(&gone)
    );
}

fn lines(list: &[&String]) -> String {
    list.iter().map(|s| format!("  {s}\n")).collect()
}
