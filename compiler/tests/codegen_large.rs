//! A file with thousands of messages: its classes are rendered in parallel
//! runs (`backends/as_messages.rs`). The text must be the one a single pass
//! writes: every class once, in the file's order, and each list helper
//! numbered in the order the fields first name it, whichever run renders
//! the field.

use std::fmt::Write as _;
use std::path::PathBuf;

use othc::backends::assemblyscript;
use othc::loader::MemoryLoader;
use othc::model::FileIx;

/// More messages than one thread renders (so several runs on any machine
/// with more than one core), each with a list of its own element type,
/// so that each class names a helper of its own.
const MESSAGES: usize = 2100;

#[test]
fn classes_and_helpers_of_a_large_file_come_in_the_files_order() {
    let mut src = String::from("export schemas application/bson {\n  message M0 { id: i32 }\n");
    for i in 1..MESSAGES {
        let _ = writeln!(src, "  message M{i} {{ before: [M{}]  n: i32 }}", i - 1);
    }
    src.push_str("}\n");
    let mut loader = MemoryLoader::new();
    loader.add("big.oth", src.clone());
    let c =
        othc::compile(&loader, &[PathBuf::from("big.oth")], &Default::default()).expect("loads");
    assert!(!c.front.diags.has_errors());
    let text = assemblyscript::generate(&c.checked.model, FileIx(0), &src).text;

    // Every class once, in order.
    let classes: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("export class "))
        .map(|l| l.split(' ').next().unwrap_or_default())
        .collect();
    let expected: Vec<String> = (0..MESSAGES).map(|i| format!("M{i}")).collect();
    assert_eq!(classes, expected);

    // M{i} (i ≥ 1) names helper #{i-1}, and that helper reads M{i-1}s.
    for i in 1..MESSAGES {
        let shape = format!("bson.shape<M{i}>(\"M{i}\", \"before #{} n i\", __h)", i - 1);
        assert!(text.contains(&shape), "no `{shape}`");
        let reader = format!("function __read{}(r: bson.BsonReader): usize {{", i - 1);
        let at = text
            .find(&reader)
            .unwrap_or_else(|| panic!("no `{reader}`"));
        let body = &text[at..at + 400];
        assert!(
            body.contains(&format!("const out = new Array<M{}>()", i - 1)),
            "helper {} is not M{}'s list: {body}",
            i - 1,
            i - 1
        );
    }
}
