//! What the real-editor tests share (Neovim, Emacs): the repository's
//! root, and the rule that the book shows each editor's configuration as
//! the test uses it.

use std::path::Path;

pub fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// Fails unless book/src/reference/editors.md shows `config` (a path from
/// the root) whole, in a block fenced as `lang`.
pub fn assert_book_shows(config: &str, lang: &str) {
    let book = std::fs::read_to_string(root().join("book/src/reference/editors.md")).unwrap();
    let text = std::fs::read_to_string(root().join(config)).unwrap();
    assert!(
        book.contains(&format!("```{lang}\n{text}```")),
        "book/src/reference/editors.md must show {config} as it is"
    );
}
