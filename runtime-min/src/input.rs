//! Console input, a line at a time: what a source gives the run, and the
//! reading of lines from a byte stream (standard input) in bounded memory.
//!
//! A line the console cannot deliver is still a line: it is counted, the
//! run says on standard error which one and why, and input goes on (the
//! run ends with status 1: input was lost). A line is text (UTF-8), and at
//! most the payload limit long: a longer one is read through and dropped as
//! it comes, never held whole, so a stream with no line end in it costs no
//! more memory than the limit.

use std::io::{self, BufRead};

/// One line of console input, as its source read it.
#[derive(Debug, PartialEq)]
pub enum InputLine {
    /// A line, without its line end (`\n` or `\r\n`).
    Text(String),
    /// A line that cannot be delivered, `bytes` long without its line end.
    Unfit { bytes: u64, why: Unfit },
    /// Reading failed (why, in the system's words): input ends here.
    Failed(String),
}

/// Why a line cannot be delivered.
#[derive(Debug, PartialEq)]
pub enum Unfit {
    /// It is not UTF-8: the first byte that is not is at `at` (from 0).
    NotUtf8 { at: u64 },
    /// It is longer than the payload limit.
    TooLong,
}

impl From<String> for InputLine {
    fn from(text: String) -> InputLine {
        InputLine::Text(text)
    }
}

/// The next line of `r`, holding at most `limit` bytes of it (the payload
/// limit); `None` at the end of the stream. A last line without a line end
/// is a line.
pub fn read_line(r: &mut impl BufRead, limit: usize) -> Option<InputLine> {
    // Up to the limit and a `\r` are held: a line that fits is then whole.
    let hold = limit.saturating_add(1);
    let mut line = Vec::new();
    let mut bytes: u64 = 0;
    // Whether anything was read (an empty line is a line), and the last
    // byte before the line end (a `\r` is part of it).
    let (mut any, mut last) = (false, None);
    loop {
        let buf = match r.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Some(InputLine::Failed(e.to_string())),
        };
        if buf.is_empty() {
            if !any {
                return None;
            }
            break;
        }
        any = true;
        let (take, ended) = match buf.iter().position(|&b| b == b'\n') {
            Some(at) => (at, true),
            None => (buf.len(), false),
        };
        let part = &buf[..take];
        bytes += take as u64;
        if let Some(&b) = part.last() {
            last = Some(b);
        }
        let room = hold.saturating_sub(line.len()).min(part.len());
        line.extend_from_slice(&part[..room]);
        r.consume(take + usize::from(ended));
        if ended {
            break;
        }
    }
    let cr = last == Some(b'\r');
    let bytes = bytes - u64::from(cr);
    if bytes > limit as u64 {
        return Some(InputLine::Unfit {
            bytes,
            why: Unfit::TooLong,
        });
    }
    if cr {
        line.pop();
    }
    Some(match String::from_utf8(line) {
        Ok(text) => InputLine::Text(text),
        Err(e) => InputLine::Unfit {
            bytes,
            why: Unfit::NotUtf8 {
                at: e.utf8_error().valid_up_to() as u64,
            },
        },
    })
}

#[cfg(test)]
mod tests;
