//! The front end never panics, whatever the input: every fixture, corrupted
//! many ways (bytes replaced, removed, duplicated, truncated), must lex and
//! parse to some tree and some errors. Deterministic: a fixed seed.

use std::path::Path;

use test_support::Rng;

/// Characters that matter to the lexer and grammar, plus multi-byte text.
const INTERESTING: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    "\\",
    "/",
    "*",
    "#",
    "##",
    "\n",
    ";",
    "=",
    ":",
    ",",
    "?",
    "->",
    "|",
    "-",
    "0x",
    "1.",
    "{x}",
    "**",
    "é",
    "😀",
    "\u{feff}",
    "schemas application/bson {",
    "object",
    "message",
    "\\u{",
];

fn corrupt(src: &str, rng: &mut Rng) -> String {
    let mut s = src.to_string();
    for _ in 0..1 + rng.below(4) {
        let mut at = rng.below(s.len() + 1);
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        match rng.below(4) {
            0 => s.insert_str(at, INTERESTING[rng.below(INTERESTING.len())]),
            1 => {
                let mut end = (at + 1 + rng.below(8)).min(s.len());
                while !s.is_char_boundary(end) {
                    end += 1;
                }
                s.replace_range(at..end, "");
            }
            2 => s.truncate(at),
            _ => {
                let piece = s[at..].chars().take(rng.below(20)).collect::<String>();
                s.insert_str(at, &piece);
            }
        }
    }
    s
}

#[test]
fn corrupted_fixtures_never_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let mut sources = Vec::new();
    for dir in ["parse/ok", "parse/err", "check/err", "check/ok"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap().flatten() {
            if let Ok(text) = std::fs::read_to_string(e.path()) {
                sources.push(text);
            }
        }
    }
    assert!(sources.len() > 10);
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    for round in 0..3000 {
        let src = corrupt(&sources[round % sources.len()], &mut rng);
        let parsed = oth_syntax::parse_file(&src);
        for item in &parsed.tree.items {
            if let oth_syntax::ast::Item::Schemas(s) = item {
                let _ = oth_syntax::parse_bson(&src[s.body.range()], s.body.start());
            }
        }
        let _ = oth_syntax::parse_values(&src);
        let _ = oth_syntax::parse_bson(&src, 0);
        // Every error span lies inside the text.
        for e in &parsed.errors {
            let sp = e.span();
            assert!(
                sp.start() <= sp.end() && sp.end() <= src.len(),
                "{e:?} in {src:?}"
            );
        }
    }
}
