//! The numbers on the wire (book: reference/wire.md), in one place for the runtime.

pub const READ: i32 = 1;
pub const WATCH: i32 = 2;
pub const LIST: i32 = 3;
pub const STAT: i32 = 4;
pub const WRITE: i32 = 5;
pub const CREATE: i32 = 6;
pub const REMOVE: i32 = 7;

/// Request flag: sent by the operator. Objects cannot set it.
pub const OPERATOR: i32 = 1;
/// View flag of `bind` and `expose`: only safe verbs pass.
pub const READONLY: i32 = 1;

// Verbs are numbers only at the host boundary (`host`: a number that is
// not one stops the module that sent it); inside, they are `Verb`s.

/// The number an instance gave one of its own requests when it made it:
/// every answer, failure and cancel of that request names it. Chosen by the
/// host (`othismo_request` returns it), unique among the instance's requests
/// in flight; a native's or the outside's tickets are their own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ticket(pub i32);

/// The number a server knows a request it serves by (`othismo_serve`'s
/// `id`): its answers, failures and forwards name it. Not the caller's
/// ticket: the two numbers are chosen by different sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequestId(pub i32);

impl std::fmt::Display for Ticket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl std::fmt::Display for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// An error's number (book: reference/wire.md): one of the runtime's own,
/// named in `errno`, or a server's own (any other positive number), whose
/// code is the server's to choose. Never zero or negative: the host refuses
/// such a number from a module before one is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Errno(i32);

impl Errno {
    /// `n` as an errno, when it is one (positive).
    pub fn new(n: i32) -> Option<Errno> {
        (n > 0).then_some(Errno(n))
    }

    /// The number on the wire.
    pub fn get(self) -> i32 {
        self.0
    }

    /// Its code when it is one of the runtime's own (or a native's,
    /// `io_error`); `None` for a server's own.
    pub fn known(self) -> Option<&'static str> {
        errno::known(self.0)
    }

    /// The code the runtime gives it: its own, or `error` for a number it
    /// does not know.
    pub fn code(self) -> &'static str {
        self.known().unwrap_or("error")
    }
}

impl std::fmt::Display for Errno {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// Why a request failed, as it travels back to its sender: the one failure
/// type of every delivery (from an instance, a native, the router, another
/// node).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub errno: Errno,
    pub code: String,
    pub desc: String,
}

impl Failure {
    pub fn new(errno: Errno, code: impl Into<String>, desc: impl Into<String>) -> Failure {
        Failure {
            errno,
            code: code.into(),
            desc: desc.into(),
        }
    }

    /// One of the runtime's own failures, under the code the runtime gives
    /// its errno.
    pub fn runtime(errno: Errno, desc: impl Into<String>) -> Failure {
        Failure::new(errno, errno.code(), desc)
    }
}

/// What a request's sender is given: an answer (the last when `done`), or
/// the failure that ends it. The one public delivery type: a probe's
/// outcome, a contract test's stub and the event loop all speak it.
#[derive(Clone, Debug, PartialEq)]
pub enum Response<P> {
    Answer { done: bool, payload: Option<P> },
    Error(Failure),
}

impl<P> Response<P> {
    /// Whether nothing follows it for its request: an answer marked
    /// `done`, or a failure.
    pub fn is_last(&self) -> bool {
        !matches!(self, Response::Answer { done: false, .. })
    }
}

/// The runtime's own errnos (book: reference/wire.md).
pub mod errno {
    use super::Errno;

    pub const NOT_FOUND: Errno = Errno(1);
    pub const NOT_SUPPORTED: Errno = Errno(2);
    pub const READ_ONLY: Errno = Errno(3);
    pub const INVALID: Errno = Errno(4);
    pub const FORBIDDEN: Errno = Errno(5);
    pub const UNSUPPORTED_TYPE: Errno = Errno(6);
    pub const EXISTS: Errno = Errno(7);
    pub const NOT_EMPTY: Errno = Errno(8);
    pub const TOO_LARGE: Errno = Errno(9);
    pub const UNAVAILABLE: Errno = Errno(10);
    /// A native object's own: the host's file system failed (≥ 100 are a
    /// server's own codes).
    pub const IO_ERROR: Errno = Errno(100);

    /// Every errno the runtime names, with its code.
    pub const NAMED: [(Errno, &str); 11] = [
        (NOT_FOUND, "not_found"),
        (NOT_SUPPORTED, "not_supported"),
        (READ_ONLY, "read_only"),
        (INVALID, "invalid"),
        (FORBIDDEN, "forbidden"),
        (UNSUPPORTED_TYPE, "unsupported_type"),
        (EXISTS, "exists"),
        (NOT_EMPTY, "not_empty"),
        (TOO_LARGE, "too_large"),
        (UNAVAILABLE, "unavailable"),
        (IO_ERROR, "io_error"),
    ];

    /// The code of number `e` when it is one of the runtime's own errnos
    /// (or a native's, `io_error`), `ok` for 0; `None` for a server's own.
    pub fn known(e: i32) -> Option<&'static str> {
        if e == 0 {
            return Some("ok");
        }
        NAMED.iter().find(|(n, _)| n.0 == e).map(|(_, c)| *c)
    }
}

/// The content type of stat records.
pub const STAT_TYPE: &str = "application/x-othismo-stat";
pub const KIND_FILE: u8 = 0;
pub const KIND_DIRECTORY: u8 = 1;

/// A stat record (book: reference/wire.md).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stat {
    pub name: String,
    pub kind: u8,
    pub length: u64,
    pub content_type: String,
    pub version: u64,
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    // Names and types are far below 64 KiB; a longer one is cut at a
    // character boundary rather than written with a wrong length.
    let mut end = s.len().min(u16::MAX as usize);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    out.extend_from_slice(&(end as u16).to_le_bytes());
    out.extend_from_slice(&s.as_bytes()[..end]);
}

impl Stat {
    /// `name[s] kind[1] length[8] type[s] version[8]`, little-endian.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(21 + self.name.len() + self.content_type.len());
        put_str(&mut out, &self.name);
        out.push(self.kind);
        out.extend_from_slice(&self.length.to_le_bytes());
        put_str(&mut out, &self.content_type);
        out.extend_from_slice(&self.version.to_le_bytes());
        out
    }

    pub fn decode(b: &[u8]) -> Option<Stat> {
        fn take<'a>(b: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
            if b.len() < n {
                return None;
            }
            let (h, t) = b.split_at(n);
            *b = t;
            Some(h)
        }
        fn string(b: &mut &[u8]) -> Option<String> {
            let n = u16::from_le_bytes(take(b, 2)?.try_into().ok()?) as usize;
            String::from_utf8(take(b, n)?.to_vec()).ok()
        }
        let mut b = b;
        let name = string(&mut b)?;
        let kind = take(&mut b, 1)?[0];
        let length = u64::from_le_bytes(take(&mut b, 8)?.try_into().ok()?);
        let content_type = string(&mut b)?;
        let version = u64::from_le_bytes(take(&mut b, 8)?.try_into().ok()?);
        (b.is_empty() && kind <= KIND_DIRECTORY).then_some(Stat {
            name,
            kind,
            length,
            content_type,
            version,
        })
    }
}

#[cfg(test)]
mod tests {
    use othc::model::Verb;

    use super::*;

    #[test]
    fn numbers_are_pinned() {
        assert_eq!(
            [READ, WATCH, LIST, STAT, WRITE, CREATE, REMOVE],
            [1, 2, 3, 4, 5, 6, 7]
        );
        for (i, v) in Verb::ALL.iter().enumerate() {
            assert_eq!(Verb::from_wire(i as i32 + 1), Some(*v));
            assert_eq!(v.wire(), i as i32 + 1);
        }
        assert_eq!(Verb::from_wire(0), None);
        assert_eq!(Verb::from_wire(8), None);
        assert_eq!(Verb::from_wire(i32::MIN), None);
        let codes: Vec<&str> = (1..=10).map(|n| Errno::new(n).unwrap().code()).collect();
        assert_eq!(
            codes,
            [
                "not_found",
                "not_supported",
                "read_only",
                "invalid",
                "forbidden",
                "unsupported_type",
                "exists",
                "not_empty",
                "too_large",
                "unavailable"
            ]
        );
    }

    #[test]
    fn an_errno_is_positive_and_a_servers_own_is_kept_as_its_number() {
        assert_eq!(Errno::new(0), None);
        assert_eq!(Errno::new(-4), None);
        let own = Errno::new(4711).unwrap();
        assert_eq!((own.get(), own.known(), own.code()), (4711, None, "error"));
        assert_eq!(errno::IO_ERROR.known(), Some("io_error"));
        assert_eq!(errno::known(0), Some("ok"));
        for (no, code) in errno::NAMED {
            assert_eq!(Failure::runtime(no, "d").code, code);
        }
    }

    #[test]
    fn a_stat_record_is_laid_out_as_abi_md_says() {
        let s = Stat {
            name: "a".into(),
            kind: KIND_DIRECTORY,
            length: 2,
            content_type: "t/x".into(),
            version: 3,
        };
        let b = s.encode();
        assert_eq!(
            b,
            [
                1, 0, b'a', 1, 2, 0, 0, 0, 0, 0, 0, 0, 3, 0, b't', b'/', b'x', 3, 0, 0, 0, 0, 0, 0,
                0
            ]
        );
        assert_eq!(Stat::decode(&b), Some(s));
        assert_eq!(Stat::decode(&b[..b.len() - 1]), None);
    }
}
