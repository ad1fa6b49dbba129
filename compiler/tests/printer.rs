//! The canonical printer: for every fixture that parses, `parse(print(x))`
//! is `x` (spans aside, schema bodies compared as parsed), and printing is
//! idempotent. The seed's examples are already in the canonical layout.

mod common;
use common::root;

use othc::printer;

/// A tree's debug text with every span (`12..34`) and raw schema body taken out.
fn shape(src: &str) -> String {
    let parsed = oth_syntax::parse_file(src);
    let mut text = format!("{:#?}", parsed.tree.items);
    for item in &parsed.tree.items {
        if let oth_syntax::ast::Item::Schemas(s) = item {
            text.push_str(&format!(
                "{:#?}",
                oth_syntax::parse_bson(&src[s.body.range()], s.body.start()).tree
            ));
        }
    }
    let mut out = String::with_capacity(text.len());
    for l in text.lines() {
        if l.trim_start().starts_with("body: ") {
            continue;
        }
        out.push_str(&strip_spans(l));
        out.push('\n');
    }
    out
}

fn strip_spans(l: &str) -> String {
    let mut out = String::new();
    let b = l.as_bytes();
    let mut i = 0;
    while i < b.len() {
        // digits, "..", digits
        let start = i;
        let mut j = i;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > start && l[j..].starts_with("..") {
            let mut k = j + 2;
            while k < b.len() && b[k].is_ascii_digit() {
                k += 1;
            }
            if k > j + 2 {
                out.push_str("SPAN");
                i = k;
                continue;
            }
        }
        out.push(b[i] as char);
        i += 1;
    }
    out
}

#[test]
fn printing_round_trips_every_fixture() {
    let mut all = Vec::new();
    for d in ["fixtures", "examples", "sdk/env"] {
        all.extend(test_support::files_with_extension(&root().join(d), "oth"));
    }
    let mut checked = 0;
    for f in all {
        // Fixtures of unreadable files (Latin-1) are not source.
        let Ok(src) = std::fs::read_to_string(&f) else {
            continue;
        };
        let Ok(printed) = printer::format_file(&src) else {
            continue; // a fixture of syntax errors
        };
        let again = printer::format_file(&printed)
            .unwrap_or_else(|_| panic!("{}: the printed text parses:\n{printed}", f.display()));
        assert_eq!(again, printed, "{}: printing is idempotent", f.display());
        // No comment and no doc is ever lost, attached or not.
        let mut trivia = oth_syntax::parse_file(&src).trivia;
        for item in &oth_syntax::parse_file(&src).tree.items {
            if let oth_syntax::ast::Item::Schemas(s) = item {
                trivia.extend(oth_syntax::parse_bson(&src[s.body.range()], s.body.start()).trivia);
            }
        }
        for t in &trivia {
            assert!(
                printed.contains(t.text.trim()),
                "{}: the comment `{}` was lost:\n{printed}",
                f.display(),
                t.text.trim()
            );
        }
        assert_eq!(
            shape(&printed),
            shape(&src),
            "{}: parse(print(x)) == x",
            f.display()
        );
        checked += 1;
    }
    assert!(checked > 40, "only {checked} fixtures");
}

#[test]
fn the_seed_examples_are_canonical() {
    for f in ["Greeter.oth", "Hello.oth", "Shouter.oth"] {
        let src = std::fs::read_to_string(root().join("examples/hello").join(f)).unwrap();
        assert_eq!(
            printer::format_file(&src).ok().as_deref(),
            Some(src.as_str()),
            "{f}"
        );
    }
}
