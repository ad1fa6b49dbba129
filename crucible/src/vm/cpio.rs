//! The initramfs format: a `newc` cpio archive, written deterministically
//! (every time stamp 0, inode numbers in order) so the same inputs give the
//! same bytes and the same cache key.

/// A cpio archive being written.
#[derive(Default)]
pub struct Cpio {
    bytes: Vec<u8>,
    ino: u32,
    names: std::collections::HashSet<String>,
}

const DIR: u32 = 0o040_000;
const FILE: u32 = 0o100_000;
const LINK: u32 = 0o120_000;

impl Cpio {
    pub fn dir(&mut self, path: &str) {
        self.entry(path, DIR | 0o755, &[]);
    }

    pub fn file(&mut self, path: &str, mode: u32, data: &[u8]) {
        self.entry(path, FILE | (mode & 0o7777), data);
    }

    pub fn symlink(&mut self, path: &str, target: &str) {
        self.entry(path, LINK | 0o777, target.as_bytes());
    }

    /// Whether `path` was written.
    pub fn has(&self, path: &str) -> bool {
        self.names.contains(path.trim_start_matches('/'))
    }

    fn entry(&mut self, path: &str, mode: u32, data: &[u8]) {
        let name = path.trim_start_matches('/');
        self.names.insert(name.to_string());
        self.ino += 1;
        let fields = [
            self.ino,
            mode,
            0, // uid
            0, // gid
            if mode & DIR == DIR { 2 } else { 1 },
            0, // mtime
            data.len() as u32,
            0,
            0,
            0,
            0,
            name.len() as u32 + 1,
            0, // check
        ];
        self.bytes.extend_from_slice(b"070701");
        for f in fields {
            self.bytes.extend_from_slice(format!("{f:08x}").as_bytes());
        }
        self.bytes.extend_from_slice(name.as_bytes());
        self.bytes.push(0);
        self.pad();
        self.bytes.extend_from_slice(data);
        self.pad();
    }

    fn pad(&mut self) {
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(0);
        }
    }

    /// The archive, with its trailer.
    pub fn finish(mut self) -> Vec<u8> {
        self.entry("TRAILER!!!", 0, &[]);
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `cpio -t` (GNU) lists is what was written; checked by hand once
    /// and kept here as bytes: a header is 110 bytes, names and data padded
    /// to 4.
    #[test]
    fn entries_are_newc_and_padded() {
        let mut c = Cpio::default();
        c.dir("/bin");
        c.file("/bin/x", 0o755, b"abc");
        c.symlink("/sh", "bin/x");
        let b = c.finish();
        assert_eq!(&b[..6], b"070701");
        // "bin\0" after the 110-byte header, 114 bytes: padded to 116.
        assert_eq!(&b[110..114], b"bin\0");
        let second = 116;
        assert_eq!(&b[second..second + 6], b"070701");
        // mode field of the file: 0o100755.
        assert_eq!(&b[second + 14..second + 22], b"000081ed");
        assert!(b.len().is_multiple_of(4));
        assert!(b.windows(10).any(|w| w == b"TRAILER!!!"));
    }
}
