//! Every input the fuzzers found a bug with (and the inputs of bugs found
//! by hand at the same boundaries) is kept under `fixtures/fuzz/TARGET/`
//! and replayed here through the target's own function, so each fix stays
//! fixed without a nightly toolchain. A folder for a target that does not
//! exist fails, as does a target with no folder.

use std::path::Path;

#[test]
fn every_kept_input_replays_clean() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/fuzz");
    let mut replayed = 0;
    for entry in std::fs::read_dir(&dir).expect("fixtures/fuzz").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let (_, target) = othismo_harness::TARGETS
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("fixtures/fuzz/{name}: no such target"));
        let mut inputs: Vec<_> = std::fs::read_dir(entry.path())
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.file_name().is_some_and(|n| n != "README.md"))
            .collect();
        inputs.sort();
        for input in inputs {
            let data = std::fs::read(&input).unwrap();
            eprintln!("replaying {}", input.display());
            target(&data);
            replayed += 1;
        }
    }
    for (name, _) in othismo_harness::TARGETS {
        assert!(dir.join(name).is_dir(), "fixtures/fuzz/{name} is missing");
    }
    assert!(replayed >= othismo_harness::TARGETS.len());
}

/// Each target runs on its seeds (what `fuzz/run` seeds the corpora with)
/// without failing: the harness itself is sound.
#[test]
fn every_target_takes_the_seed_fixtures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut oth = test_support::files_with_extension(&root.join("fixtures/check"), "oth");
    oth.sort();
    assert!(oth.len() > 20);
    for f in oth.iter().take(40) {
        let data = std::fs::read(f).unwrap();
        for (name, target) in othismo_harness::TARGETS {
            if matches!(
                *name,
                "lex_parse" | "check_render" | "fmt_roundtrip" | "values"
            ) {
                target(&data);
            }
        }
    }
    let host_abi = othismo_harness::TARGETS
        .iter()
        .find(|(n, _)| *n == "host_abi")
        .unwrap()
        .1;
    host_abi(&[
        0, 3, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 2, 0xf0, 1, 0, 10, 15, 5,
    ]);
}
