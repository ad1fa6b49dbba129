//! The tutorial cannot rot: a code block marked `<!-- file: PATH -->` is
//! that file of the repository, byte for byte (and the files are built and
//! run by the CLI's tests), and a block marked `<!-- checked: PATH -->`
//! shows lines of what `othc check PATH` reports.

mod common;
use common::{RootLoader, root};
use std::path::PathBuf;

/// (marker, its argument, the block's text) for each marked block.
fn marked_blocks(page: &str) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let mut lines = page.lines();
    while let Some(line) = lines.next() {
        let Some(inner) = line
            .trim()
            .strip_prefix("<!-- ")
            .and_then(|l| l.strip_suffix(" -->"))
        else {
            continue;
        };
        let Some((marker, arg)) = inner.split_once(": ") else {
            continue;
        };
        let fence = lines.next().unwrap_or_default();
        assert!(
            fence.starts_with("```"),
            "a marked block starts with a fence: {line}"
        );
        let mut body = String::new();
        for l in lines.by_ref() {
            if l.starts_with("```") {
                break;
            }
            body.push_str(l);
            body.push('\n');
        }
        out.push((marker.to_string(), arg.to_string(), body));
    }
    out
}

#[test]
fn the_tutorial_shows_the_files_and_output_as_they_are() {
    let dir = root().join("book/src/tutorial");
    let mut seen = 0;
    for page in test_support::files_with_extension(&dir, "md") {
        let text = std::fs::read_to_string(&page).unwrap();
        for (marker, arg, body) in marked_blocks(&text) {
            seen += 1;
            match marker.as_str() {
                "file" => {
                    let file = std::fs::read_to_string(root().join(&arg)).unwrap();
                    assert_eq!(body, file, "{}: the block of {arg}", page.display());
                }
                "checked" => {
                    let c = othc::compile(&RootLoader, &[PathBuf::from(&arg)], &Default::default())
                        .unwrap();
                    let report =
                        othc::diagnostics::render::human(&c.front.sources, &c.front.diags, false);
                    let said: Vec<&str> = report.lines().map(str::trim).collect();
                    for line in body.lines().map(str::trim).filter(|l| !l.is_empty()) {
                        assert!(
                            said.iter().any(|s| s.ends_with(line) || *s == line),
                            "{}: `othc check {arg}` does not say {line:?}:\n{report}",
                            page.display()
                        );
                    }
                }
                other => panic!("{}: unknown marker {other}", page.display()),
            }
        }
    }
    assert!(seen >= 5, "the tutorial's marked blocks: {seen}");
}
