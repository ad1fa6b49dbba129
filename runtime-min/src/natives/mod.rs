//! The runtime's own objects (book: reference/natives.md; their header is
//! `sdk/env/Runtime.oth`). Requests reach them checked against that header
//! like any other: a native sees only verbs and paths it serves, as an
//! [`Asked`] that names the serves entry the router matched, so no native
//! works out again what a path means. Each native lists its entries in its
//! header's order (`ENTRIES`), and a test holds the lists to the header.
//! Natives know nothing of the event loop: what they answer goes back as
//! [`Reply`]s, and Http's listener reaches the loop through a callback the
//! runtime gives it.

pub mod clock;
pub(crate) mod console;
pub mod files;
pub(crate) mod http;

/// For the fuzz target `http_response` (`othismo-harness`): whether the
/// Http object's fast reading of `data` as an `HttpResponse`, wherever it
/// takes the bytes, gives what the `bson` crate's reading gives.
pub fn http_response_readings_agree(data: &[u8]) -> bool {
    http::wire::readings_agree(data)
}

use othc::model::{Seg, Verb};
use othc::natives::Native;

use crate::abi::{Errno, Ticket, errno};
use crate::{Body, Payload, Sender};

/// A fresh instance of the native object named `name` in the runtime's
/// header, if the runtime has one of that name.
pub(crate) fn body(name: &str) -> Option<Body> {
    Some(match Native::named(name)? {
        Native::Console => Body::Console(console::Console::default()),
        Native::Files => Body::Files(files::Files::default()),
        Native::Clock => Body::Clock,
        Native::Http => Body::Http(Box::default()),
    })
}

/// Why `payload` is of no type serves entry `entry` takes, if it is not
/// (worded as a generated server words it). By content type only: what
/// is in a payload a native reads itself. A request without a payload is
/// the native's to answer.
pub(crate) fn unfit_payload(
    model: &othc::model::Model,
    entry: &othc::model::EntryDef,
    payload: Option<&Payload>,
) -> Option<String> {
    use othc::check::matching::content_covers;
    use othc::model::{ContentType, PayloadType};
    let p = payload?;
    if entry.request.is_empty() {
        return Some("this request takes no payload".into());
    }
    // A type covers itself: the common case (the payload's type written as
    // the entry names it) needs no parse, on every request to a native.
    let named = entry.request.iter().any(|t| match t {
        PayloadType::Content(ct) => *ct.text == *p.content_type,
        PayloadType::Message(id) => *model.ty(*id).format == *p.content_type,
        PayloadType::Unknown => true,
    });
    if named {
        return None;
    }
    let actual = ContentType::parse(&p.content_type);
    let fits = entry.request.iter().any(|t| match t {
        PayloadType::Content(ct) => content_covers(ct, &actual),
        PayloadType::Message(id) => {
            content_covers(&ContentType::parse(&model.ty(*id).format), &actual)
        }
        PayloadType::Unknown => true,
    });
    let takes = || {
        let types: Vec<String> = (entry.request.iter())
            .map(|t| othc::check::matching::describe(model, t))
            .collect();
        format!("this request takes {}", types.join(" | "))
    };
    (!fits).then(takes)
}

/// A request to a native object, as the router delivers it.
pub(crate) struct Asked<'a> {
    /// The serves entry it reached: its place in the native's header (and
    /// in the native's `ENTRIES`).
    pub entry: usize,
    pub from: Sender,
    pub ticket: Ticket,
    /// The path in the native's served tree.
    pub path: &'a [Seg],
    pub payload: Option<&'a Payload>,
}

/// A native's serves entries, in its header's order: what each is (the
/// native's own name for it), its verb and its path pattern as the header
/// writes them.
pub(crate) type Entries<E> = [(E, Verb, &'static str)];

/// The entry at `place` of `entries` (`None` past the end: a header that
/// has more entries than the native knows, which the test rules out).
pub(crate) fn entry<E: Copy>(entries: &Entries<E>, place: usize) -> Option<E> {
    entries.get(place).map(|e| e.0)
}

/// One answer of a native object.
#[derive(Debug, PartialEq)]
pub enum Reply {
    Answer {
        done: bool,
        payload: Option<Payload>,
    },
    Error {
        errno: Errno,
        desc: String,
    },
    /// The rest of a file being read or a directory being listed: its
    /// parts are made one at a time, each once the reader has taken the
    /// one before (the runtime's `pace`), so neither is ever held whole.
    Paced(Box<files::Stream>),
}

impl Reply {
    /// Whether nothing follows it for its request: an answer marked
    /// `done`, or an error (a stream's other answers say it goes on).
    pub fn is_last(&self) -> bool {
        !matches!(self, Reply::Answer { done: false, .. } | Reply::Paced(_))
    }

    pub fn done(payload: Option<Payload>) -> Reply {
        Reply::Answer {
            done: true,
            payload,
        }
    }

    pub fn error(errno: Errno, desc: impl Into<String>) -> Reply {
        Reply::Error {
            errno,
            desc: desc.into(),
        }
    }

    /// The host's file system said no: in words, about `path`.
    pub fn io(e: &std::io::Error, path: &str) -> Reply {
        use std::io::ErrorKind as K;
        match e.kind() {
            K::NotFound => Reply::error(errno::NOT_FOUND, format!("{path} does not exist")),
            K::AlreadyExists => Reply::error(errno::EXISTS, format!("{path} already exists")),
            K::DirectoryNotEmpty => Reply::error(
                errno::NOT_EMPTY,
                format!("{path} is a directory that is not empty"),
            ),
            K::PermissionDenied => Reply::error(
                errno::FORBIDDEN,
                format!("the host does not allow that on {path}"),
            ),
            // A write or create that fails so leaves nothing changed
            // (`write_whole`).
            K::StorageFull | K::QuotaExceeded => Reply::error(
                errno::IO_ERROR,
                format!("no space left on the host's disk for {path}: nothing was changed"),
            ),
            // A name longer than the file system takes names nothing there.
            K::InvalidFilename => Reply::error(
                errno::NOT_FOUND,
                format!("{path} does not exist (a name in it is too long)"),
            ),
            // Links that lead round in a circle (ELOOP, whose kind is not
            // stable yet) lead nowhere one may go.
            _ if cfg!(target_os = "linux") && e.raw_os_error() == Some(ELOOP) => Reply::error(
                errno::FORBIDDEN,
                format!("{path} is a loop of symbolic links"),
            ),
            _ => Reply::error(errno::IO_ERROR, format!("{path}: {e}")),
        }
    }
}

/// Linux's errno for too many levels of symbolic links.
const ELOOP: i32 = 40;

pub fn text(s: impl Into<String>) -> Payload {
    Payload {
        content_type: "text/plain".into(),
        data: s.into().into_bytes(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each native's `ENTRIES` are its header's serves, in order: an entry
    /// the router matches means to the native what the header says.
    #[test]
    fn each_natives_entries_are_its_headers_serves() {
        fn shown<E>(entries: &Entries<E>) -> Vec<(Verb, String)> {
            entries
                .iter()
                .map(|(_, v, p)| (*v, p.to_string()))
                .collect()
        }
        let listed = Native::ALL.map(|n| {
            let entries = match n {
                Native::Console => shown(console::ENTRIES),
                Native::Files => shown(files::ENTRIES),
                Native::Clock => shown(clock::ENTRIES),
                Native::Http => shown(http::ENTRIES),
            };
            (n.name(), entries)
        });
        let headers = othc::header::natives().unwrap();
        assert_eq!(headers.len(), listed.len(), "every native is listed here");
        for (name, entries) in listed {
            let h = headers.iter().find(|h| h.object.name == name).unwrap();
            let serves: Vec<(Verb, String)> = h
                .object
                .serves
                .iter()
                .map(|e| {
                    let e = h.model.entry(*e);
                    (e.verb, e.path.to_string())
                })
                .collect();
            assert_eq!(entries, serves, "{name}'s ENTRIES and its header");
        }
    }

    /// A payload of no type its entry takes is refused before a native
    /// sees it (found by `othc test --image`: Files answered a `stat`
    /// that carried text as if it took it), in the words of a generated
    /// server; a request without one, or of a type taken, goes on.
    #[test]
    fn a_payload_its_entry_does_not_take_is_refused() {
        let headers = othc::header::natives().unwrap();
        let entry = |native: &str, verb: Verb, path: &str| {
            let h = headers.iter().find(|h| h.object.name == native).unwrap();
            let e = (h.object.serves.iter())
                .map(|e| h.model.entry(*e))
                .find(|e| e.verb == verb && e.path.to_string() == path)
                .unwrap();
            (&h.model, e)
        };
        let payload = |ct: &str| Payload {
            content_type: ct.into(),
            data: b"a".to_vec(),
        };
        let (m, stat) = entry("Files", Verb::Stat, "/**");
        assert_eq!(
            unfit_payload(m, stat, Some(&payload("text/plain"))).as_deref(),
            Some("this request takes no payload")
        );
        assert_eq!(unfit_payload(m, stat, None), None);
        let (m, write) = entry("Files", Verb::Write, "/**");
        assert_eq!(unfit_payload(m, write, Some(&payload("image/png"))), None);
        let (m, print) = entry("Console", Verb::Write, "/");
        assert_eq!(unfit_payload(m, print, Some(&payload("text/plain"))), None);
        assert_eq!(
            unfit_payload(m, print, Some(&payload("application/json"))).as_deref(),
            Some("this request takes text/plain")
        );
        let (m, config) = entry("Files", Verb::Write, "/");
        assert_eq!(
            unfit_payload(m, config, Some(&payload("application/bson"))),
            None
        );
        assert!(unfit_payload(m, config, Some(&payload("text/plain"))).is_some());
    }

    /// What the disk says, as the errno a caller gets: a name too long for
    /// the file system names nothing (404 through HttpServer), a loop of
    /// links is no way in (403); both used to be `io_error` (500).
    #[cfg(target_os = "linux")]
    #[test]
    fn disk_errors_map_to_what_they_mean() {
        let errno_of = |raw: i32| match Reply::io(&std::io::Error::from_raw_os_error(raw), "/x") {
            Reply::Error { errno, .. } => errno,
            other => panic!("{other:?}"),
        };
        assert_eq!(errno_of(2), errno::NOT_FOUND); // ENOENT
        assert_eq!(errno_of(36), errno::NOT_FOUND); // ENAMETOOLONG
        assert_eq!(errno_of(40), errno::FORBIDDEN); // ELOOP
        assert_eq!(errno_of(13), errno::FORBIDDEN); // EACCES
        assert_eq!(errno_of(5), errno::IO_ERROR); // EIO
    }
}
