//! Generated servers route by verb and path (a literal before `{name}`
//! before `**`), decode what their entries take, and answer `not_found`,
//! `not_supported`, `unsupported_type` and `invalid` themselves, in both
//! languages alike: one table of requests and answers is run against a
//! server built on the generated AssemblyScript `KitchenServer`
//! (`tests/as/routing.ts`) and on the generated Rust one
//! (`tests/rust/routing`), each sent the requests through the real exports
//! (`othismo_alloc`, `othismo_serve`) in a node host, which records every
//! `answer` and `fail` call.

mod common;
use common::{build_with_everything, root};
use std::path::Path;
use std::process::Command;

use bson::doc;
use othc_driver::toolchain::Profile;

/// (verb, path, payload type, payload bytes) → what the server answers.
type Case<'a> = (i32, &'a str, Option<&'a str>, Vec<u8>, &'a str);

#[test]
fn the_assemblyscript_server_routes_and_answers_errors_itself() {
    let dir = scratch("codegen_routing");
    let wasm = build_with_everything(&dir, "compiler/tests/as/routing.ts", Profile::Debug);
    holds_to_the_table(&dir, &wasm);
}

#[test]
fn the_rust_server_routes_and_answers_errors_as_the_assemblyscript_one() {
    if !test_support::runnable(test_support::ensure_rust_wasm32()) {
        return;
    }
    let dir = scratch("codegen_routing_rust");
    let krate = dir.join("routing");
    std::fs::create_dir_all(krate.join("src")).unwrap();
    for file in ["Cargo.toml", "src/lib.rs"] {
        std::fs::copy(
            root().join("compiler/tests/rust/routing").join(file),
            krate.join(file),
        )
        .unwrap();
    }
    let rel = std::path::PathBuf::from("fixtures/codegen/everything.oth");
    let c = othc::compile(
        &common::RootLoader,
        std::slice::from_ref(&rel),
        &Default::default(),
    )
    .unwrap();
    let root_module = c.front.program.roots[0];
    let text = &c
        .front
        .sources
        .get(c.front.program.module(root_module).file)
        .text;
    let g =
        othc::backends::rust::generate(&c.checked.model, othc::model::FileIx(root_module.0), text);
    std::fs::write(krate.join("everything.oth.rs"), g.text).unwrap();
    let bytes = othc_driver::rust_toolchain::compile(
        &krate.join("Cargo.toml"),
        &dir.join("build"),
        Profile::Debug,
    )
    .unwrap_or_else(|e| panic!("cargo failed:\n{e}"));
    let wasm = dir.join("routing.wasm");
    std::fs::write(&wasm, bytes).unwrap();
    holds_to_the_table(&dir, &wasm);
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Sends the table's requests to the server `wasm` and holds each answer
/// to the table's.
fn holds_to_the_table(dir: &Path, wasm: &Path) {
    let note = bson::to_vec(&doc! { "$type": "Note", "text": "hi" }).unwrap();
    let nested = bson::to_vec(&doc! {
        "$type": "Nested", "inner": { "label": "in", "default": 0 }, "inners": [], "grid": [],
        "byName": {}, "tags": {}, "moods": [], "anything": [],
    })
    .unwrap();
    let (read, write, remove, stat) = (1, 5, 7, 4);
    let bson_ct = "application/bson";
    let cases: Vec<Case> = vec![
        (read, "/", None, vec![], "answer read"),
        (read, "/items/7", None, vec![], "answer readItems 7"),
        (
            read,
            "/items/special",
            None,
            vec![],
            "answer readItemsSpecial",
        ),
        (read, "/files/a/b", None, vec![], "answer readFiles /a/b"),
        (read, "/files", None, vec![], "answer readFiles /"),
        (
            write,
            "/items/7",
            Some(bson_ct),
            note.clone(),
            "answer writeItemsWithNote 7 hi",
        ),
        (
            write,
            "/items/8",
            Some(bson_ct),
            nested,
            "answer writeItemsWithNested 8 in",
        ),
        (
            remove,
            "/items/7/tags/red",
            None,
            vec![],
            "answer removeItemsTags 7 red",
        ),
        (
            write,
            "/raw",
            Some("text/markdown"),
            b"# hi".to_vec(),
            "answer writeRaw text/markdown",
        ),
        (
            write,
            "/raw",
            Some("image/png"),
            vec![1],
            "fail 6 unsupported_type",
        ),
        (
            write,
            "/items/7",
            Some("text/plain"),
            b"hi".to_vec(),
            "fail 6 unsupported_type",
        ),
        (
            write,
            "/items/7",
            Some(bson_ct),
            vec![5, 0, 0, 0, 0],
            "fail 4 invalid",
        ),
        (write, "/items/7", None, vec![], "fail 6 unsupported_type"),
        (
            read,
            "/",
            Some("text/plain"),
            b"x".to_vec(),
            "fail 6 unsupported_type",
        ),
        (stat, "/items/7", None, vec![], "fail 2 not_supported"),
        (read, "/nothing/here", None, vec![], "fail 1 not_found"),
        (write, "/config", Some(bson_ct), note, "fail 4 invalid"),
        (read, "/feed", None, vec![], "fail 2 not_supported"),
        // A stream: two answers, the last one done.
        (
            read,
            "/ticks",
            None,
            vec![],
            "answer tick 1 (more) | answer tick 2",
        ),
    ];
    let requests: Vec<serde_json::Value> = cases
        .iter()
        .map(|(verb, path, ty, data, _)| {
            let mut r = serde_json::json!({ "verb": verb, "path": path });
            if let Some(t) = ty {
                r["type"] = serde_json::json!(t);
                r["data"] = serde_json::json!(data);
            }
            r
        })
        .collect();
    let file = dir.join("requests.json");
    std::fs::write(&file, serde_json::to_string(&requests).unwrap()).unwrap();
    let out = common::succeed(
        Command::new("node")
            .arg(root().join("compiler/tests/as/host.cjs"))
            .arg(wasm)
            .arg("serve")
            .arg(&file),
    );
    let calls: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for (i, (verb, path, _, _, want)) in cases.iter().enumerate() {
        let id = i as u64 + 1;
        let got: Vec<String> = calls
            .iter()
            .filter(|c| c["id"] == id)
            .map(|c| match c["call"].as_str() {
                // An answer that is not the last says so.
                Some("answer") if c["done"] == 0 => {
                    format!("answer {} (more)", c["text"].as_str().unwrap_or(""))
                }
                Some("answer") => format!("answer {}", c["text"].as_str().unwrap_or("")),
                _ => format!("fail {} {}", c["errno"], c["code"].as_str().unwrap_or("")),
            })
            .collect();
        let want: Vec<&str> = want.split(" | ").collect();
        assert_eq!(
            got,
            want,
            "{}: request {id}: verb {verb} {path}",
            wasm.display()
        );
    }
}
