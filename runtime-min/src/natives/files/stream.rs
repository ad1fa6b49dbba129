//! What `Files` answers a read of a big file or a listing with: a stream
//! whose parts are made one at a time, each once its reader has taken the
//! one before (the runtime's `pace`). So neither a file nor a directory is
//! ever held whole as answers: at most a part in the host and one in the
//! reader, whatever the size.

use std::fs;
use std::sync::Arc;
use std::time::Instant;

use super::listing::Listing;
use super::{Reply, SLOW_DISK};
use crate::Payload;
use crate::abi::errno;

/// The rest of a stream of answers, a part at a time.
#[derive(Debug)]
pub struct Stream {
    rest: Rest,
    /// Its last part took long to make (`SLOW_DISK`): the next is made on
    /// a worker, so the disk stalls nobody else.
    pub slow: bool,
}

#[derive(Debug)]
enum Rest {
    File(FileParts),
    Listing(Listing),
}

/// A stream being read is itself and no other.
impl PartialEq for Stream {
    fn eq(&self, other: &Stream) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Stream {
    pub(super) fn of_file(parts: FileParts) -> Stream {
        Stream {
            rest: Rest::File(parts),
            slow: false,
        }
    }

    pub(super) fn of_listing(listing: Listing) -> Stream {
        Stream {
            rest: Rest::Listing(listing),
            slow: false,
        }
    }

    /// The next part: the last one is `done`, or an error.
    pub fn next_part(&mut self) -> Reply {
        let began = Instant::now();
        let part = match &mut self.rest {
            Rest::File(f) => f.next_part(),
            Rest::Listing(l) => l.next_part(),
        };
        self.slow = began.elapsed() > SLOW_DISK;
        part
    }

    /// Its first part, and itself for the rest if there is more: the
    /// answers a request gets at once.
    pub(super) fn begin(mut self) -> Vec<Reply> {
        let first = self.next_part();
        if first.is_last() {
            vec![first]
        } else {
            vec![first, Reply::Paced(Box::new(self))]
        }
    }
}

/// The rest of a file being read.
#[derive(Debug)]
pub(super) struct FileParts {
    /// Read at `at` (`pread`): the handle may be kept open for later reads
    /// of the same file too (`held`).
    pub file: Arc<fs::File>,
    pub at: u64,
    /// Bytes still to send: the file's length when it was opened, less
    /// what has been sent.
    pub left: u64,
    pub content_type: &'static str,
    pub part: usize,
    pub shown: String,
}

impl FileParts {
    /// A file that ends before its length when opened (cut short
    /// meanwhile) ends the stream with an error, so a reader never takes a
    /// short file for a whole one.
    fn next_part(&mut self) -> Reply {
        let want = self.left.min(self.part as u64) as usize;
        let data = match read_at(&self.file, want, self.at) {
            Err(e) => return Reply::io(&e, &self.shown),
            Ok(data) if data.len() < want => {
                return Reply::error(
                    errno::IO_ERROR,
                    format!("{} was cut short while it was read", self.shown),
                );
            }
            Ok(data) => data,
        };
        self.at += want as u64;
        self.left -= want as u64;
        Reply::Answer {
            done: self.left == 0,
            payload: Some(Payload {
                content_type: self.content_type.into(),
                data,
            }),
        }
    }
}

/// `want` bytes of `file` from `at`, or as many as it has there (read
/// into memory not zeroed first: a part is up to 256 KiB).
fn read_at(file: &fs::File, want: usize, at: u64) -> std::io::Result<Vec<u8>> {
    let mut data = Vec::with_capacity(want);
    while data.len() < want {
        let from = at + data.len() as u64;
        match rustix::io::pread(file, rustix::buffer::spare_capacity(&mut data), from) {
            Ok(0) => break,
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    // (The capacity may be more than asked for.)
    data.truncate(want);
    Ok(data)
}
