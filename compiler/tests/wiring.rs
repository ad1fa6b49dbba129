//! `othc ns`'s report, one test per `fixtures/ns/*.oth` (and the examples):
//! the tables, the JSON and the DOT graph of each image the file declares,
//! snapshot-tested under `snapshots/wiring__NAME.snap`.

mod common;
use common::{RootLoader, root};
use std::path::PathBuf;

use libtest_mimic::{Arguments, Failed, Trial};

fn run(rel: PathBuf) -> Result<(), Failed> {
    let mut c = othc::compile(
        &RootLoader,
        std::slice::from_ref(&rel),
        &othc::ValueInputs::default(),
    )
    .map_err(|e| Failed::from(e.to_string()))?;
    // `NAME.placement` beside `NAME.oth`: its image's instances say their nodes.
    let placement = root().join(rel.with_extension("placement"));
    let placed = match std::fs::read_to_string(&placement) {
        Ok(text) => {
            let name = rel.with_extension("placement").display().to_string();
            Some(othc::placement::check_in(&mut c, name, text))
        }
        Err(_) => None,
    };
    let diags = othc::diagnostics::render::human(&c.front.sources, &c.front.diags, false);
    let mut body = String::new();
    if !diags.trim().is_empty() {
        body.push_str(&format!("----- DIAGNOSTICS\n{diags}\n"));
    }
    for id in c.root_images() {
        let img = c.checked.model.image(id);
        let mut w = othc::wiring::of_image(&c, id);
        if let Some((p, Some(placed))) = &placed
            && *placed == id
        {
            othc::wiring::place(&mut w, p);
        }
        body.push_str(&format!(
            "----- TABLES {}\n{}\n----- DOT {}\n{}\n----- JSON {}\n{}\n",
            img.name,
            othc::wiring::text::render(&w, None),
            img.name,
            othc::wiring::dot::render(&w),
            img.name,
            serde_json::to_string_pretty(&w)?,
        ));
    }
    if body.is_empty() {
        return Err("the file declares no image".into());
    }
    let name = rel
        .with_extension("")
        .to_string_lossy()
        .replace("fixtures/ns/", "")
        .replace('/', "__");
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(root().join("snapshots"));
    settings.set_prepend_module_to_snapshot(true);
    settings.set_input_file(root().join(&rel));
    settings.bind(|| insta::assert_snapshot!(name, body));
    Ok(())
}

fn main() {
    let mut files: Vec<PathBuf> =
        test_support::files_with_extension(&root().join("fixtures/ns"), "oth")
            .into_iter()
            .filter_map(|p| p.strip_prefix(root()).ok().map(PathBuf::from))
            .collect();
    for example in [
        "examples/hello/Hello.oth",
        "examples/files/Shelf.oth",
        "examples/site/Site.oth",
    ] {
        files.push(PathBuf::from(example));
    }
    files.sort();
    let trials = files
        .into_iter()
        .map(|rel| {
            let name = rel.to_string_lossy().to_string();
            Trial::test(name, move || run(rel))
        })
        .collect();
    libtest_mimic::run(&Arguments::from_args(), trials).exit();
}
