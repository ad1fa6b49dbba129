//! Parse trees of `fixtures/parse/ok/*`, snapshot-tested (one test per file).
//!
//! Each snapshot holds the source, the tree, and the tree of every schema
//! block body (parsed by the BSON grammar). A fixture here must parse with no
//! error and no warning.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use oth_syntax::ast::Item;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn snapshot(path: &Path) -> Result<(), Failed> {
    let src = std::fs::read_to_string(path)?;
    let mut out = String::new();
    writeln!(out, "----- SOURCE\n{src}")?;
    let mut errors = Vec::new();
    if path.extension().is_some_and(|e| e == "values") {
        let p = oth_syntax::parse_values(&src);
        writeln!(out, "----- TREE\n{:#?}", p.tree)?;
        errors.extend(p.errors);
    } else {
        let p = oth_syntax::parse_file(&src);
        writeln!(out, "----- TREE\n{:#?}", p.tree)?;
        errors.extend(p.errors);
        for (i, item) in p.tree.items.iter().enumerate() {
            if let Item::Schemas(s) = item {
                let b = oth_syntax::parse_bson(&src[s.body.range()], s.body.start());
                writeln!(out, "----- SCHEMAS (item {i})\n{:#?}", b.tree)?;
                errors.extend(b.errors);
            }
        }
    }
    if !errors.is_empty() {
        return Err(format!("{} must parse cleanly, but: {errors:#?}", path.display()).into());
    }
    let name = format!(
        "parse__ok__{}",
        path.file_name()
            .unwrap()
            .to_string_lossy()
            .replace('.', "_")
    );
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(root().join("snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_input_file(path);
    settings.bind(|| insta::assert_snapshot!(name, out));
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let dir = root().join("fixtures/parse/ok");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixtures/parse/ok exists")
        .map(|e| e.expect("readable").path())
        .filter(|p| p.extension().is_some_and(|e| e == "oth" || e == "values"))
        .collect();
    files.sort();
    let trials = files
        .into_iter()
        .map(|p| {
            let name = format!("parse/ok/{}", p.file_name().unwrap().to_string_lossy());
            Trial::test(name, move || snapshot(&p))
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
