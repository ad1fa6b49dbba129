//! The edit-build loop: stale bindings written again (unless edited by
//! hand), the module cache keyed by content, and the compiler's errors at
//! their place in the implementation.

mod common;
use common::building::{build, copy_dir, scratch};
use common::root;

use othc::Code;

/// Stale bindings are written again by the build when they are as othc
/// left them (it used to stop with E0703 on every header edit), and never
/// when they were edited by hand (E0703).
#[test]
fn stale_bindings_are_regenerated_unless_edited_by_hand() {
    let work = scratch("stale_bindings");
    copy_dir(&root().join("examples/hello"), &work);
    let hello = work.join("Hello.oth");
    let (_, built, diags) = build(&hello, &work.join("out"), &work.join("cache"));
    assert!(!diags.has_errors() && built.len() == 2);
    let bindings = work.join("Shouter.oth.ts");
    assert_eq!(
        othc::backends::stamp::written(&std::fs::read_to_string(&bindings).unwrap()),
        othc::backends::stamp::Written::AsGenerated
    );
    // A header edit: the build writes the bindings again and goes on.
    let shouter = work.join("Shouter.oth");
    let text = std::fs::read_to_string(&shouter).unwrap();
    std::fs::write(
        &shouter,
        text.replace("export object Shouter", "## Loud.\nexport object Shouter"),
    )
    .unwrap();
    let (_, built, diags) = build(&hello, &work.join("out"), &work.join("cache"));
    assert!(
        !diags.has_errors(),
        "{:?}",
        diags.iter().map(|d| &d.message).collect::<Vec<_>>()
    );
    assert_eq!(built.len(), 2);
    assert!(
        std::fs::read_to_string(&bindings)
            .unwrap()
            .contains("Loud.")
    );
    // Edited by hand, then the header changes: left alone, E0703.
    let edited = std::fs::read_to_string(&bindings).unwrap() + "// mine\n";
    std::fs::write(&bindings, &edited).unwrap();
    let text = std::fs::read_to_string(&shouter).unwrap();
    std::fs::write(&shouter, text.replace("## Loud.", "## Very loud.")).unwrap();
    let (_, built, diags) = build(&hello, &work.join("out"), &work.join("cache"));
    let codes: Vec<&str> = diags.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["E0703"]);
    assert!(built.iter().all(|b| b.name != "Shouter"));
    assert_eq!(
        std::fs::read_to_string(&bindings).unwrap(),
        edited,
        "not overwritten"
    );
}

/// The module cache is keyed by content, not by folder: the same sources in
/// another folder come from the cache, and compiling them there afresh
/// gives the same bytes (so the cached module is the right one).
#[test]
fn the_cache_is_keyed_by_content_not_by_folder() {
    let work = scratch("cache_by_content");
    copy_dir(&root().join("examples/hello"), &work.join("one/hello"));
    copy_dir(&root().join("examples/hello"), &work.join("two/elsewhere"));
    let cache = work.join("cache");
    let (_, first, d1) = build(
        &work.join("one/hello/Hello.oth"),
        &work.join("out1"),
        &cache,
    );
    assert!(!d1.has_errors());
    let (_, second, d2) = build(
        &work.join("two/elsewhere/Hello.oth"),
        &work.join("out2"),
        &cache,
    );
    assert!(!d2.has_errors());
    assert!(
        second.iter().all(|b| b.cached),
        "compiled again in another folder"
    );
    let (_, fresh, d3) = build(
        &work.join("two/elsewhere/Hello.oth"),
        &work.join("out3"),
        &work.join("fresh_cache"),
    );
    assert!(!d3.has_errors());
    for (a, b) in first.iter().zip(&fresh) {
        assert!(!b.cached);
        assert_eq!(
            a.sha256, b.sha256,
            "{}: the folder changed the module",
            a.name
        );
    }
}

/// The AssemblyScript compiler's errors point at their place in the
/// implementation, so editors and JSON readers go to the line to fix (they
/// used to point at the object's name in the .oth file).
#[test]
fn compile_errors_point_into_the_implementation() {
    let work = scratch("asc_error_place");
    copy_dir(
        &root().join("fixtures/build/err/E0701_compile_error"),
        &work,
    );
    let (c, built, diags) = build(
        &work.join("App.oth"),
        &work.join("out"),
        &work.join("cache"),
    );
    assert!(built.is_empty());
    let d: Vec<_> = diags.iter().collect();
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].code, Code::E0701);
    let file = c.front.sources.get(d[0].primary.at.file);
    assert!(
        file.name.ends_with("App.ts"),
        "{}: {} {:?}",
        file.name,
        d[0].message,
        d[0].help
    );
    let at = file.line_col(d[0].primary.at.span.start());
    assert_eq!((at.line, at.column), (5, 14));
    assert_eq!(&file.text[d[0].primary.at.span.range()], "Request");
    assert!(d[0].message.contains("Cannot find name 'Request'"));
    assert!(
        d[0].labels
            .iter()
            .any(|l| c.front.sources.get(l.at.file).name.ends_with("App.oth"))
    );
}
