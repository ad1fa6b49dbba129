//! A text over the parsers' size limit (E0110) is one error, and nothing of
//! it is parsed: spans are 32-bit offsets, so this is what keeps every
//! offset in range. The texts are generated (a fixture file would be 256 MiB).

use std::path::PathBuf;

use oth_syntax::MAX_SOURCE_BYTES;
use othc::loader::MemoryLoader;
use othc::{ValueInputs, compile};

/// A file of `len` bytes: a valid object, then a comment running to the end.
fn file_of(len: usize) -> String {
    let mut s = String::from("export object Keeper { serves { /box write text/plain } }\n# ");
    s.push_str(&"x".repeat(len - s.len() - 1));
    s.push('\n');
    assert_eq!(s.len(), len);
    s
}

#[test]
fn a_file_over_the_limit_is_one_error_at_its_start() {
    let mut l = MemoryLoader::new();
    l.add("huge.oth", file_of(MAX_SOURCE_BYTES + 1));
    let c = compile(&l, &[PathBuf::from("huge.oth")], &ValueInputs::default()).unwrap();
    let diags: Vec<_> = c.front.diags.iter().collect();
    assert_eq!(diags.len(), 1, "{diags:?}");
    let d = diags[0];
    assert_eq!(d.code.as_str(), "E0110");
    assert!(
        d.message
            .contains(&format!("{} bytes", MAX_SOURCE_BYTES + 1)),
        "{}",
        d.message
    );
    assert_eq!(d.primary.at.span.range(), 0..0);
    assert!(
        c.checked.model.objects.is_empty(),
        "nothing of it is checked"
    );
}

#[test]
fn the_parsers_refuse_it_before_lexing_it() {
    let text = " ".repeat(MAX_SOURCE_BYTES + 1);
    for parsed in [
        oth_syntax::parse_file(&text).errors,
        oth_syntax::parse_values(&text).errors,
        oth_syntax::parse_bson(&text, 0).errors,
        // A block that fits, at an offset that takes its end past the limit.
        oth_syntax::parse_bson(" ", MAX_SOURCE_BYTES).errors,
    ] {
        let codes: Vec<_> = parsed.iter().map(|e| e.code()).collect();
        assert_eq!(codes, ["E0110"]);
    }
    assert!(
        oth_syntax::parse_bson(" ", MAX_SOURCE_BYTES - 1)
            .errors
            .is_empty()
    );
}

/// A block large enough to be parsed in pieces, ending past the limit: it
/// is refused whole, as one parse refuses it (the piece that crosses the
/// limit gives up, and a piece that gives up sends the block to one parse),
/// not kept up to that piece.
#[test]
fn a_block_parsed_in_pieces_is_refused_whole() {
    let body = "message M { a: i32 }\n".repeat(oth_syntax::chunks::MIN_PARALLEL_BYTES / 10);
    let offset = MAX_SOURCE_BYTES - body.len() / 2;
    let parsed = oth_syntax::parse_bson(&body, offset);
    let codes: Vec<_> = parsed.errors.iter().map(|e| e.code()).collect();
    assert_eq!(codes, ["E0110"]);
    assert!(parsed.tree.decls.is_empty(), "nothing of it is parsed");
}
