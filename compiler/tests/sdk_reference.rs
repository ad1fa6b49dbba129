//! The SDK's reference page (book: reference/sdk.md) is complete and true:
//! every name `sdk/assemblyscript/index.ts` exports, and every public method,
//! getter and static of the classes it exports, is on the page as
//! `` `Class.member` ``; and every `` `Class.member` `` on the page of a class
//! the SDK exports is one the sources have.

mod common;
use common::root;
use std::collections::BTreeSet;

/// The names `index.ts` exports: `export { A, B } from "./x"`.
fn exported_names(index: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in index.lines() {
        let Some(rest) = line.strip_prefix("export { ") else {
            continue;
        };
        let Some((names, _)) = rest.split_once(" }") else {
            continue;
        };
        out.extend(names.split(',').map(|n| n.trim().to_string()));
    }
    out
}

/// Each exported class of a source, with its public members (methods,
/// getters, statics; not constructors or private ones).
fn class_members(src: &str) -> Vec<(String, BTreeSet<String>)> {
    let mut out: Vec<(String, BTreeSet<String>)> = Vec::new();
    for line in src.lines() {
        if let Some(rest) = line.strip_prefix("export class ") {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            out.push((name, BTreeSet::new()));
            continue;
        }
        if line.starts_with('}') || !line.starts_with("  ") || line.starts_with("   ") {
            continue;
        }
        let Some((_, members)) = out.last_mut() else {
            continue;
        };
        let t = line.trim_start();
        let t = t.strip_prefix("static ").unwrap_or(t);
        let t = t.strip_prefix("get ").unwrap_or(t);
        let name: String = t
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let after = &t[name.len()..];
        let is_member =
            after.starts_with('(') || after.starts_with(':') && line.contains("static ");
        if !name.is_empty() && name != "constructor" && is_member && !name.starts_with('_') {
            members.insert(name);
        }
    }
    out
}

#[test]
fn the_sdk_page_names_everything_the_sdk_exports_and_nothing_else() {
    let sdk = root().join("sdk/assemblyscript");
    let page = std::fs::read_to_string(root().join("book/src/reference/sdk.md")).unwrap();
    let index = std::fs::read_to_string(sdk.join("index.ts")).unwrap();
    let names = exported_names(&index);
    assert!(names.len() > 20, "{names:?}");
    let mut missing = Vec::new();
    for n in &names {
        if !page.contains(&format!("`{n}")) {
            missing.push(n.clone());
        }
    }
    let mut classes: Vec<(String, BTreeSet<String>)> = Vec::new();
    for f in test_support::files_with_extension(&sdk, "ts") {
        let src = std::fs::read_to_string(&f).unwrap();
        classes.extend(
            class_members(&src)
                .into_iter()
                .filter(|(c, _)| names.contains(c)),
        );
    }
    // Each callback's `deliver` is the base's, documented once there.
    for (class, members) in &classes {
        for m in members {
            if m == "deliver" && class != "Answers" {
                continue;
            }
            if !page.contains(&format!("`{class}.{m}")) {
                missing.push(format!("{class}.{m}"));
            }
        }
    }
    assert!(missing.is_empty(), "not on reference/sdk.md: {missing:?}");
    // And nothing the sources do not have.
    let mut stale = Vec::new();
    for chunk in page.split('`').skip(1).step_by(2) {
        let Some((class, member)) = chunk.split_once('.') else {
            continue;
        };
        let member: String = member
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if let Some((_, members)) = classes.iter().find(|(c, _)| c == class)
            && !members.contains(&member)
        {
            stale.push(format!("{class}.{member}"));
        }
    }
    assert!(
        stale.is_empty(),
        "on reference/sdk.md but not in the SDK: {stale:?}"
    );
}
