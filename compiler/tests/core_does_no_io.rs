//! The compiler's core does no IO: files come in through a `Loader`, and
//! everything goes out as values (the build driver, `othc-driver`, writes
//! files and runs programs; the CLI prints). A use of the file system,
//! processes, the network, the environment or the standard streams in
//! `compiler/src` (outside its unit tests) fails this test.

use std::path::Path;

#[test]
fn the_core_does_no_io() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = test_support::files_with_extension(&src, "rs");
    assert!(files.len() > 30);
    let forbidden = [
        "std::fs",
        "std::process",
        "std::net",
        "std::env",
        "std::io::stdin",
        "std::io::stdout",
        "std::io::stderr",
        "println!",
        "eprintln!",
        "print!(",
        "eprint!(",
    ];
    let mut found = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        // Unit tests may read fixtures.
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        for (n, line) in code.lines().enumerate() {
            for word in forbidden {
                if line.contains(word) && !line.trim_start().starts_with("//") {
                    found.push(format!("{}:{}: {word}", f.display(), n + 1));
                }
            }
        }
    }
    assert!(found.is_empty(), "IO in the core:\n{}", found.join("\n"));
}
