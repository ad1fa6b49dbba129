//! How source files come in. The compiler core does no IO: the CLI reads the
//! disk, tests and the language server bring their own loaders.

use std::collections::HashMap;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

/// The most bytes a loader reading the disk takes of one file: the parsers
/// take no longer text (E0110), and a module's header is far less.
pub const MAX_FILE_BYTES: u64 = oth_syntax::MAX_SOURCE_BYTES as u64;

/// All of `r`, for a loader reading the disk, or an error once it passes
/// `MAX_FILE_BYTES`, never holding more: an import may name a device that
/// never ends (a link to `/dev/zero` in a project opened in an editor), and
/// reading it whole would take every byte of memory there is.
pub fn read_bounded(r: impl io::Read) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    r.take(MAX_FILE_BYTES + 1).read_to_end(&mut out)?;
    if out.len() as u64 > MAX_FILE_BYTES {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!(
                "it is over {} MiB, the most othc reads of a file",
                MAX_FILE_BYTES >> 20
            ),
        ));
    }
    Ok(out)
}

pub trait Loader {
    /// The bytes of the file at `path` (normalized, relative to wherever the
    /// loader is rooted, or absolute).
    fn load(&self, path: &Path) -> io::Result<Vec<u8>>;
}

/// Files held in memory, for tests and editors.
#[derive(Default)]
pub struct MemoryLoader {
    files: HashMap<PathBuf, Vec<u8>>,
}

impl MemoryLoader {
    pub fn new() -> MemoryLoader {
        MemoryLoader::default()
    }

    pub fn add(&mut self, path: impl AsRef<Path>, text: impl Into<Vec<u8>>) -> &mut Self {
        self.files.insert(normalize(path.as_ref()), text.into());
        self
    }
}

impl Loader for MemoryLoader {
    fn load(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.files
            .get(path)
            .cloned()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such file"))
    }
}

/// Collapses `.` and `..` without touching the disk: `a/./b/../c` → `a/c`.
/// A `..` above a relative start is kept (`../x`).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out: Vec<Component> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            c => out.push(c),
        }
    }
    if out.is_empty() {
        return PathBuf::from(".");
    }
    out.iter().collect()
}

/// Decodes a source file, or says in words why it is not one.
pub fn decode_source(bytes: Vec<u8>) -> Result<String, String> {
    if bytes.starts_with(b"\0asm") {
        return Err(
            "it is a WebAssembly module, not .oth source (import it by its .wasm path)".into(),
        );
    }
    if bytes.iter().take(8192).any(|&b| b == 0) {
        return Err("it looks like a binary file (it contains NUL bytes)".into());
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        let col_start = bytes[..at].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&bytes[col_start..at]).chars().count() + 1;
        format!(
            "it is not valid UTF-8 (byte 0x{:02x} at line {line}, column {column}); .oth files are UTF-8",
            bytes[at]
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_lexically() {
        assert_eq!(
            normalize(Path::new("a/./b/../c.oth")),
            PathBuf::from("a/c.oth")
        );
        assert_eq!(normalize(Path::new("../x/../y")), PathBuf::from("../y"));
        assert_eq!(normalize(Path::new("/a/../../b")), PathBuf::from("/b"));
        assert_eq!(normalize(Path::new("a/..")), PathBuf::from("."));
    }

    #[test]
    fn refuses_non_text() {
        assert!(
            decode_source(b"\0asm\x01\0\0\0".to_vec())
                .unwrap_err()
                .contains("WebAssembly")
        );
        assert!(
            decode_source(b"ab\0cd".to_vec())
                .unwrap_err()
                .contains("binary")
        );
        let e = decode_source(b"ok\nx\xffy".to_vec()).unwrap_err();
        assert!(e.contains("0xff at line 2, column 2"), "{e}");
        assert_eq!(
            decode_source(b"object A {}".to_vec()).unwrap(),
            "object A {}"
        );
    }
}
