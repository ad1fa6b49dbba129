//! `othc diff`'s classification, one test per `fixtures/diff/*.othdiff`: a
//! comment saying the case, then `=== old` and `=== new`, each the text of
//! one version of the object's file. The changes found are snapshot-tested
//! under `snapshots/diff__NAME.snap`, and a case whose comment says
//! "compatible" must find nothing breaking.

mod common;
use common::root;
use std::path::PathBuf;

use libtest_mimic::{Arguments, Failed, Trial};
use othc::diff::{Version, diff};
use othc::loader::MemoryLoader;
use othc::model::ObjectId;

fn compiled(text: &str) -> Result<othc::Compilation, Failed> {
    let mut l = MemoryLoader::new();
    l.add("Board.oth", text);
    let c = othc::compile(&l, &[PathBuf::from("Board.oth")], &Default::default())
        .map_err(|e| Failed::from(e.to_string()))?;
    if c.front.diags.has_errors() {
        return Err(
            othc::diagnostics::render::human(&c.front.sources, &c.front.diags, false).into(),
        );
    }
    Ok(c)
}

fn object(c: &othc::Compilation) -> Result<ObjectId, Failed> {
    let k = c
        .checked
        .model
        .objects
        .iter()
        .position(|o| !o.native)
        .ok_or("no object")?;
    Ok(ObjectId(k as u32))
}

fn run(path: PathBuf) -> Result<(), Failed> {
    let text = std::fs::read_to_string(&path)?;
    let (head, rest) = text.split_once("=== old\n").ok_or("no `=== old`")?;
    let (old, new) = rest.split_once("=== new\n").ok_or("no `=== new`")?;
    let (a, b) = (compiled(old)?, compiled(new)?);
    let changes = diff(
        &Version {
            model: &a.checked.model,
            id: object(&a)?,
        },
        &Version {
            model: &b.checked.model,
            id: object(&b)?,
        },
    );
    if changes.is_empty() {
        return Err("the versions differ, but no change was found".into());
    }
    let says_compatible = head.contains("compatible") && !head.contains("break");
    if says_compatible && changes.iter().any(|c| c.class.is_breaking()) {
        return Err(format!("the case says compatible, but: {changes:#?}").into());
    }
    let body: String = changes
        .iter()
        .map(|c| format!("{:16} {}: {}\n", c.class.label(), c.subject, c.what))
        .collect();
    let name = path.file_stem().unwrap().to_string_lossy().into_owned();
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(root().join("snapshots"));
    settings.set_prepend_module_to_snapshot(true);
    settings.set_input_file(&path);
    settings.bind(|| insta::assert_snapshot!(name, body));
    Ok(())
}

fn main() {
    let files = test_support::files_with_extension(&root().join("fixtures/diff"), "othdiff");
    assert!(files.len() >= 10, "the diff cases are there");
    let trials = files
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            Trial::test(name, move || run(p))
        })
        .collect();
    libtest_mimic::run(&Arguments::from_args(), trials).exit();
}
