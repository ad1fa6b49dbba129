//! A schema block parsed in pieces gives what one parse gives: the same
//! declarations, comments and errors (book: dev/performance.md). For every
//! schema block of every `.oth` file under `fixtures/`, `examples/` and
//! `sdk/`, cut in two, in three and after every declaration; and the same
//! for copies with a byte deleted or brackets, quotes, comments or
//! keywords inserted, so that errors fall in every piece.

use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use oth_syntax::ast::Item;
use oth_syntax::{chunks, parse_bson_whole};
use test_support::Rng;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every way of cutting `body` agrees with the one-piece parse.
fn agrees(body: &str, offset: usize, what: &str) -> Result<(), Failed> {
    let whole = parse_bson_whole(body, offset);
    for pieces in [2, 3, body.len().max(2)] {
        let p = chunks::parse_in_pieces(body, offset, pieces, parse_bson_whole);
        let cuts = chunks::cuts(body, pieces);
        if p.tree != whole.tree {
            let (a, b) = (&p.tree.decls, &whole.tree.decls);
            let i = a
                .iter()
                .zip(b)
                .position(|(x, y)| x != y)
                .unwrap_or(a.len().min(b.len()));
            return Err(format!(
                "{what}: cut at {cuts:?}, the declarations differ from the {i}th on ({} in pieces, {} whole):\n  pieces: {:?}\n  whole:  {:?}",
                a.len(),
                b.len(),
                a.get(i),
                b.get(i)
            )
            .into());
        }
        if p.trivia != whole.trivia {
            return Err(format!("{what}: cut at {cuts:?}, the comments differ").into());
        }
        if p.gave_up != whole.gave_up {
            return Err(format!("{what}: cut at {cuts:?}, only one gave up").into());
        }
        if p.errors != whole.errors {
            return Err(format!(
                "{what}: cut at {cuts:?}, the errors differ:\n  pieces: {:?}\n  whole:  {:?}",
                p.errors, whole.errors
            )
            .into());
        }
    }
    Ok(())
}

fn check_file(path: &Path) -> Result<(), Failed> {
    let Ok(src) = String::from_utf8(std::fs::read(path)?) else {
        // Not UTF-8 (a fixture for E0101): never lexed, so never cut.
        return Ok(());
    };
    let file = oth_syntax::parse_file(&src);
    let mut rng = Rng::new(src.len() as u64);
    for item in &file.tree.items {
        let Item::Schemas(s) = item else { continue };
        let body = &src[s.body.range()];
        agrees(body, s.body.start(), "as written")?;
        // Damaged copies: one byte (and the char it is part of) deleted.
        for _ in 0..16 {
            if body.is_empty() {
                break;
            }
            let mut at = rng.below(body.len());
            while !body.is_char_boundary(at) {
                at -= 1;
            }
            let mut damaged = body.to_string();
            let c = damaged.remove(at);
            agrees(
                &damaged,
                s.body.start(),
                &format!("with {c:?} at byte {at} deleted"),
            )?;
            // And text that opens, closes or hides something, inserted.
            let text: &str = rng.pick(&[
                "{", "}", "[", "]", "\"", "#", "## d\n", "\n", "message ", "enum E {",
            ]);
            let mut damaged = body.to_string();
            damaged.insert_str(at, text);
            agrees(
                &damaged,
                s.body.start(),
                &format!("with {text:?} inserted at byte {at}"),
            )?;
        }
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let root = root();
    let mut trials = Vec::new();
    for dir in ["fixtures", "examples", "sdk"] {
        for p in test_support::files_with_extension(&root.join(dir), "oth") {
            let name = p.strip_prefix(&root).unwrap().display().to_string();
            trials.push(Trial::test(name, move || check_file(&p)));
        }
    }
    assert!(trials.len() > 100, "the fixtures are found");
    libtest_mimic::run(&args, trials).exit();
}
