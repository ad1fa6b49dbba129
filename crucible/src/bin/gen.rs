//! `cargo run -p crucible --bin gen [DIR]`: writes the conformance fixtures
//! (default: `fixtures/crucible` of the workspace).

fn main() -> std::process::ExitCode {
    let dir = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/crucible")
        });
    match crucible::fixtures::write(&dir) {
        Ok(()) => {
            eprintln!(
                "wrote the fixtures and manifest.json into {}",
                dir.display()
            );
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: cannot write into {}: {e}", dir.display());
            std::process::ExitCode::from(2)
        }
    }
}
