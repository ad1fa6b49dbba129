//! Byte ranges into one source text.

use std::fmt;
use std::ops::Range;

/// A byte range `start..end` into the text of one file.
///
/// Spans are file-relative here; the compiler pairs them with a file id.
/// Offsets are stored as `u32` (a large schema holds hundreds of thousands
/// of spans, and half of a field's tree node was spans): the parsers refuse
/// text over [`MAX_SOURCE_BYTES`] (E0110), so every offset fits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Span {
    start: u32,
    end: u32,
}

/// The most bytes a parsed text may have: 256 MiB, far above any schema
/// written or generated (100,000 messages are 16 MB), well inside a `u32`,
/// and the language server's limit on one message from the editor.
pub const MAX_SOURCE_BYTES: usize = 256 << 20;

/// An offset as stored. Every offset comes from a text the parsers accepted,
/// so it fits; clamping keeps an impossible one from wrapping around.
fn offset(at: usize) -> u32 {
    u32::try_from(at).unwrap_or(u32::MAX)
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: offset(start),
            end: offset(end),
        }
    }

    /// The zero-width span at `at`.
    pub fn point(at: usize) -> Span {
        Span::new(at, at)
    }

    pub fn start(self) -> usize {
        self.start as usize
    }

    pub fn end(self) -> usize {
        self.end as usize
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    pub fn shift(self, by: usize) -> Span {
        Span::new(self.start() + by, self.end() + by)
    }

    pub fn range(self) -> Range<usize> {
        self.start()..self.end()
    }

    pub fn len(self) -> usize {
        (self.end - self.start) as usize
    }

    pub fn is_empty(self) -> bool {
        self.start == self.end
    }
}

// Compact on purpose: parse-tree snapshots print thousands of these.
impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

impl From<Range<usize>> for Span {
    fn from(r: Range<usize>) -> Span {
        Span::new(r.start, r.end)
    }
}
