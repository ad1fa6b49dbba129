//! Byte offsets (the compiler's) to LSP positions and back. LSP counts a
//! line's characters in UTF-16 code units: `é` is one, `𝄞` is two, and a
//! byte offset is neither.

use std::borrow::Cow;

use lsp_types::{Position, Range};
use othc::source::SourceFile;

pub struct LineIndex<'a> {
    text: &'a str,
    /// Where each line starts: a loaded file's own (kept by the source
    /// map, found once), or found here for a text being edited.
    starts: Cow<'a, [u32]>,
}

impl<'a> LineIndex<'a> {
    /// A text the source map does not hold (an open document's, between
    /// checks).
    pub fn new(text: &'a str) -> LineIndex<'a> {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i as u32 + 1))
            .collect();
        LineIndex {
            text,
            starts: Cow::Owned(starts),
        }
    }

    /// A loaded file's, with the line starts the source map keeps for it:
    /// nothing is scanned again, however many places are asked for.
    pub fn of(file: &'a SourceFile) -> LineIndex<'a> {
        LineIndex {
            text: &file.text,
            starts: Cow::Borrowed(file.line_starts()),
        }
    }

    /// The position of byte `offset` (clamped to the text, and back to the
    /// start of a character it falls inside).
    pub fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s as usize <= offset) - 1;
        let start = self.starts[line] as usize;
        let character = self.text[start..offset].encode_utf16().count();
        Position::new(line as u32, character as u32)
    }

    pub fn range(&self, span: othc::source::Span) -> Range {
        Range::new(self.position(span.start()), self.position(span.end()))
    }

    /// The byte offset of `pos`. A line past the end is the end of the
    /// text; a character past its line's end is the line's end (the spec
    /// says to treat it so); one inside a surrogate pair is the character's
    /// start.
    pub fn offset(&self, pos: Position) -> usize {
        let Some(&start) = self.starts.get(pos.line as usize) else {
            return self.text.len();
        };
        let start = start as usize;
        let end = self
            .starts
            .get(pos.line as usize + 1)
            .map_or(self.text.len(), |&e| e as usize - 1);
        let line = &self.text[start..end];
        let mut units = 0u32;
        for (i, c) in line.char_indices() {
            if units >= pos.character {
                return start + i;
            }
            units += c.len_utf16() as u32;
            if units > pos.character {
                return start + i;
            }
        }
        end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_utf16_units() {
        // `é` is 2 bytes and 1 unit; `𝄞` is 4 bytes and 2 units.
        let text = "ab\n é𝄞x\n";
        let ix = LineIndex::new(text);
        let x = text.find('x').unwrap();
        assert_eq!(ix.position(x), Position::new(1, 4));
        assert_eq!(ix.offset(Position::new(1, 4)), x);
        assert_eq!(ix.offset(Position::new(1, 3)), text.find('𝄞').unwrap());
        assert_eq!(ix.position(0), Position::new(0, 0));
        assert_eq!(ix.offset(Position::new(0, 99)), 2);
        assert_eq!(ix.offset(Position::new(9, 0)), text.len());
        // Inside a character: back to its start.
        assert_eq!(
            ix.position(text.find('é').unwrap() + 1),
            Position::new(1, 1)
        );
    }
}
