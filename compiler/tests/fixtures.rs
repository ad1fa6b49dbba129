//! Fixture-driven tests of the front end, one test per file.
//!
//! - `fixtures/{parse,check}/err/*.oth` start with `# expect: CODE...`: the run
//!   must report exactly those codes (as a multiset), and its rendered
//!   diagnostics (human and JSON) are snapshot-tested.
//! - `fixtures/parse/ok/*.oth`, `fixtures/check/ok/**/*.oth` and every `.oth`
//!   under `../shared/examples` must check with no diagnostic at all.
//! - Every registered code has at least one fixture that expects it.

mod common;
use common::{RootLoader, root};
use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use othc::diagnostics::{codes, render};

fn expected_codes(src: &str) -> Option<Vec<String>> {
    let line = src.lines().find(|l| l.starts_with("# expect:"))?;
    let mut codes: Vec<String> = line["# expect:".len()..]
        .split([' ', ','])
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    codes.sort();
    Some(codes)
}

/// A fixture may say `# values: FILE` (relative to the workspace root) and
/// `# set: slot=Value` to give its image's slots values, and `# mode: build`
/// to be checked as `othc build` checks.
fn inputs(src: &str) -> othc::ValueInputs {
    let mut inputs = othc::ValueInputs::default();
    for line in src.lines() {
        if let Some(v) = line.strip_prefix("# values:") {
            inputs.files.push(PathBuf::from(v.trim()));
        } else if let Some(v) = line.strip_prefix("# set:") {
            inputs.sets.push(v.trim().to_string());
        }
    }
    inputs
}

/// A fixture may say `# placement: FILE` (relative to the workspace root):
/// that placement is checked against the image it names, as `othc check
/// --placement` does.
fn placement(src: &str) -> Option<PathBuf> {
    let line = src.lines().find_map(|l| l.strip_prefix("# placement:"))?;
    Some(PathBuf::from(line.trim()))
}

/// Parse fixtures run the front end only; check fixtures the whole checker.
fn check(rel: &Path) -> Result<othc::FrontEnd, Failed> {
    if rel.starts_with("fixtures/parse") {
        return othc::load(&RootLoader, &[rel.to_path_buf()])
            .map_err(|e| Failed::from(e.to_string()));
    }
    let src = std::fs::read_to_string(root().join(rel)).unwrap_or_default();
    let mut c = othc::compile(&RootLoader, &[rel.to_path_buf()], &inputs(&src))
        .map_err(|e| Failed::from(e.to_string()))?;
    // `# mode: build`: also what only `othc build` checks (E0407).
    if src.lines().any(|l| l.trim() == "# mode: build") {
        let mut diags = std::mem::take(&mut c.front.diags);
        othc::check::check_implementations(&c.front, &c.checked, &RootLoader, &mut diags);
        c.front.diags = diags;
    }
    if let Some(p) = placement(&src) {
        let text = std::fs::read_to_string(root().join(&p))?;
        othc::placement::check_in(&mut c, p.display().to_string(), text);
    }
    Ok(c.front)
}

fn run_err(rel: PathBuf) -> Result<(), Failed> {
    let src = std::fs::read_to_string(root().join(&rel))?;
    let want = expected_codes(&src).ok_or("an err fixture starts with `# expect: CODE`")?;
    let fe = check(&rel)?;
    let human = render::human(&fe.sources, &fe.diags, false);
    let mut got: Vec<String> = fe.diags.iter().map(|d| d.code.to_string()).collect();
    got.sort();
    if got != want {
        return Err(format!("expected {want:?}, got {got:?}:\n{human}").into());
    }
    let json = render::json(&fe.sources, &fe.diags);
    let mut src = src;
    if let Some(p) = placement(&src) {
        let text = std::fs::read_to_string(root().join(&p))?;
        src = format!("{src}\n----- PLACEMENT {}\n{text}", p.display());
    }
    let body = format!("----- SOURCE\n{src}\n----- DIAGNOSTICS\n{human}\n----- JSON\n{json}");
    let name = rel
        .strip_prefix("fixtures")
        .unwrap_or(&rel)
        .with_extension("")
        .to_string_lossy()
        .replace('/', "__");
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(root().join("snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_input_file(root().join(&rel));
    settings.bind(|| insta::assert_snapshot!(name, body));
    Ok(())
}

fn run_ok(rel: PathBuf) -> Result<(), Failed> {
    let fe = check(&rel)?;
    if fe.diags.iter().next().is_some() {
        return Err(format!(
            "expected no diagnostics:\n{}",
            render::human(&fe.sources, &fe.diags, false)
        )
        .into());
    }
    Ok(())
}

fn oth_files(dir: &Path, recursive: bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() && recursive {
            oth_files(&p, true, out);
        } else if p.extension().is_some_and(|x| x == "oth") {
            out.push(p);
        }
    }
}

/// Paths relative to the workspace root, sorted.
fn fixtures(dir: &str, recursive: bool) -> Vec<PathBuf> {
    let mut v = Vec::new();
    oth_files(&root().join(dir), recursive, &mut v);
    let mut v: Vec<PathBuf> = v
        .into_iter()
        .map(|p| p.strip_prefix(root()).expect("under root").to_path_buf())
        .collect();
    v.sort();
    v
}

fn every_code_has_a_fixture() -> Result<(), Failed> {
    let mut expected = Vec::new();
    for dir in ["fixtures/parse/err", "fixtures/check/err"] {
        for f in fixtures(dir, false) {
            let src = std::fs::read_to_string(root().join(&f))?;
            expected.extend(expected_codes(&src).unwrap_or_default());
        }
    }
    // Build fixtures (tests/build.rs): one folder per case, its `App.oth`
    // says; contract fixtures (cli/tests/contracts.rs): one folder per
    // broken contract, its object's header says.
    for f in fixtures("fixtures/build/err", true)
        .into_iter()
        .chain(fixtures("fixtures/build/rust", true))
        .chain(fixtures("fixtures/contracts", true))
    {
        let src = std::fs::read_to_string(root().join(&f))?;
        expected.extend(expected_codes(&src).unwrap_or_default());
    }
    // Codes whose input is no fixture file: too big to keep (a generated
    // text), or a state of the machine (a folder that cannot be written).
    // Each is produced by the test named, which must name the code.
    const ELSEWHERE: &[(&str, &str)] = &[
        ("E0110", "compiler/tests/too_large.rs"),
        ("E0704", "cli/tests/build_io.rs"),
    ];
    for (code, test) in ELSEWHERE {
        let text = std::fs::read_to_string(root().join(test))?;
        if !text.contains(code) {
            return Err(format!("{test} is said to produce {code} but never names it").into());
        }
        expected.push(code.to_string());
    }
    let missing: Vec<&str> = codes::ALL
        .iter()
        .map(|i| i.id)
        .filter(|id| !expected.iter().any(|e| e == id))
        .collect();
    let unknown: Vec<&String> = expected
        .iter()
        .filter(|e| !codes::ALL.iter().any(|i| i.id == e.as_str()))
        .collect();
    if !missing.is_empty() || !unknown.is_empty() {
        return Err(format!("codes without a fixture: {missing:?}; fixtures expecting unregistered codes: {unknown:?}").into());
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    for dir in ["fixtures/parse/err", "fixtures/check/err"] {
        for rel in fixtures(dir, false) {
            let name = rel.to_string_lossy().into_owned();
            trials.push(Trial::test(name, move || run_err(rel)));
        }
    }
    let mut ok = fixtures("fixtures/parse/ok", false);
    ok.extend(fixtures("fixtures/check/ok", true));
    // The seed's examples sit beside the checkout in `shared/`, as CI lays it
    // out. Under CI their absence fails; elsewhere (a bare clone) the tests
    // that read them are reported as ignored, never passed silently.
    let shared = fixtures("../shared/examples", true);
    let must_have_shared = std::env::var("CI").is_ok_and(|v| v == "true");
    let missing = shared.is_empty();
    trials.push(
        Trial::test("shared examples are present", move || {
            if missing {
                Err("no .oth files under ../shared/examples: these tests read the seed's examples from the `shared/` folder beside the checkout, as CI lays it out".into())
            } else {
                Ok(())
            }
        })
        .with_ignored_flag(missing && !must_have_shared),
    );
    ok.extend(shared);
    for rel in ok {
        let name = format!("checks clean: {}", rel.display());
        trials.push(Trial::test(name, move || run_ok(rel)));
    }
    trials.push(Trial::test(
        "every code has a fixture",
        every_code_has_a_fixture,
    ));
    libtest_mimic::run(&args, trials).exit();
}
