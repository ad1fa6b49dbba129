//! The checker never panics, whatever the program: every check fixture,
//! changed many ways at the level of words and lines (so most changes still
//! parse and reach the checker), must compile to some model and some
//! diagnostics. Deterministic: a fixed seed.

mod common;
use common::root;
use std::path::{Path, PathBuf};

use othc::loader::Loader;

use test_support::Rng;

/// The workspace's files, with one of them replaced.
struct Overlay {
    path: PathBuf,
    text: String,
}

impl Loader for Overlay {
    fn load(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        if path == self.path {
            return Ok(self.text.clone().into_bytes());
        }
        std::fs::read(root().join(path))
    }
}

/// Words that mean something to the checker, to splice in.
const WORDS: &[&str] = &[
    "/",
    "/**",
    "/{x}",
    "/a/b",
    "readonly",
    "operator",
    "read",
    "write",
    "watch",
    "list",
    "*",
    "text/plain",
    "*/*",
    "application/bson",
    "Stat",
    "null",
    "true",
    "0",
    "-1",
    "99999999999",
    "\"\"",
    "[]",
    "{}",
    "any",
    "u64",
    "mount /x /y",
    "bind /x /y",
    "export /e /x",
    "instance z = Z",
    "require s : text/plain",
    "needs /n { / read }",
];

fn mutate(rng: &mut Rng, src: &str) -> String {
    let mut lines: Vec<String> = src.lines().map(str::to_string).collect();
    for _ in 0..1 + rng.below(3) {
        if lines.is_empty() {
            break;
        }
        let l = rng.below(lines.len());
        match rng.below(5) {
            0 => {
                lines.remove(l);
            }
            1 => {
                let copy = lines[l].clone();
                let at = rng.below(lines.len());
                lines.insert(at, copy);
            }
            _ => {
                let words: Vec<String> = lines[l].split(' ').map(str::to_string).collect();
                let all: Vec<&str> = src.split_whitespace().collect();
                let w = rng.below(words.len());
                let replacement = if rng.below(2) == 0 {
                    WORDS[rng.below(WORDS.len())].to_string()
                } else {
                    all[rng.below(all.len())].to_string()
                };
                let mut words = words;
                words[w] = replacement;
                lines[l] = words.join(" ");
            }
        }
    }
    lines.join("\n")
}

#[test]
fn mutated_programs_never_panic_the_checker() {
    let mut files = Vec::new();
    for dir in ["fixtures/check/ok", "fixtures/check/err"] {
        for e in std::fs::read_dir(root().join(dir)).unwrap().flatten() {
            if e.path().extension().is_some_and(|x| x == "oth") {
                files.push(PathBuf::from(dir).join(e.file_name()));
            }
        }
    }
    files.sort();
    let mut rng = Rng::new(0x5eed_cafe_f00d_1234);
    let mut checked = 0;
    for _round in 0..40 {
        for f in &files {
            let src = std::fs::read_to_string(root().join(f)).unwrap();
            let text = mutate(&mut rng, &src);
            let loader = Overlay {
                path: f.clone(),
                text: text.clone(),
            };
            let result = std::panic::catch_unwind(|| {
                othc::compile(&loader, std::slice::from_ref(f), &Default::default()).map(|c| {
                    // Rendering must not panic either.
                    othc::diagnostics::render::human(&c.front.sources, &c.front.diags, false);
                    othc::diagnostics::render::json(&c.front.sources, &c.front.diags);
                })
            });
            assert!(
                result.is_ok(),
                "the checker panicked on this version of {}:\n{text}",
                f.display()
            );
            checked += 1;
        }
    }
    assert!(checked > 1000);
}
