//! The files of one compilation, and positions in them.

pub use oth_syntax::Span;

/// Index of a file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// A span in a particular file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileSpan {
    pub file: FileId,
    pub span: Span,
}

impl FileSpan {
    pub fn new(file: FileId, span: Span) -> FileSpan {
        FileSpan { file, span }
    }
}

pub struct SourceFile {
    /// The name shown to people: the path as the user wrote it, or `othismo:env`.
    pub name: String,
    pub text: String,
    /// Where each line starts, found the first time a position is asked
    /// for: a check that reports nothing never needs them, and finding them
    /// is a pass over the whole text on the way to the first diagnostic.
    /// Offsets as `u32`, like spans: lines past 4 GiB are never asked for,
    /// since the parsers refuse such a text whole (E0110).
    line_starts: std::sync::OnceLock<Vec<u32>>,
}

/// A 1-based line and column; columns count Unicode scalar values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineCol {
    pub line: usize,
    pub column: usize,
}

impl SourceFile {
    pub fn new(name: String, text: String) -> SourceFile {
        SourceFile {
            name,
            text,
            line_starts: std::sync::OnceLock::new(),
        }
    }

    /// Where each line starts (the first at 0), found once and kept: what
    /// turns offsets into positions, for the renderers and the language
    /// server alike.
    pub fn line_starts(&self) -> &[u32] {
        self.line_starts.get_or_init(|| {
            // A plain byte loop: lines are short, and a search call per line
            // cost several times the bytes it looked at.
            let mut line_starts = vec![0];
            for (i, &b) in self.text.as_bytes().iter().enumerate() {
                if b == b'\n' {
                    match u32::try_from(i + 1) {
                        Ok(start) => line_starts.push(start),
                        Err(_) => break,
                    }
                }
            }
            line_starts
        })
    }

    /// Where byte `offset` is. Offsets past the end clamp to the end.
    pub fn line_col(&self, offset: usize) -> LineCol {
        let offset = offset.min(self.text.len());
        let line_starts = self.line_starts();
        let line = line_starts.partition_point(|&s| s as usize <= offset) - 1;
        let start = line_starts[line] as usize;
        // A span never ends inside a character, but be safe about it.
        let mut end = offset;
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        LineCol {
            line: line + 1,
            column: self.text[start..end].chars().count() + 1,
        }
    }
}

#[derive(Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    pub fn add(&mut self, name: String, text: String) -> FileId {
        self.files.push(SourceFile::new(name, text));
        FileId(self.files.len() as u32 - 1)
    }

    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (FileId(i as u32), f))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_count_scalars() {
        let f = SourceFile::new("x".into(), "ab\nçé z\n".into());
        assert_eq!(f.line_col(0), LineCol { line: 1, column: 1 });
        assert_eq!(f.line_col(2), LineCol { line: 1, column: 3 });
        assert_eq!(f.line_col(3), LineCol { line: 2, column: 1 });
        // `z` is after two two-byte characters and a space.
        assert_eq!(f.line_col(8), LineCol { line: 2, column: 4 });
        assert_eq!(f.line_col(100), LineCol { line: 3, column: 1 });
    }
}
