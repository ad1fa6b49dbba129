//! `Clock`: `/now read -> text/plain` (RFC 3339, UTC, milliseconds) and
//! `/ms read -> text/plain` (milliseconds since 1970).

use othc::model::Verb;

use super::{Entries, Reply, entry, text};
use crate::abi::errno;

#[derive(Clone, Copy)]
pub(crate) enum Entry {
    Now,
    Ms,
}

pub(crate) const ENTRIES: &Entries<Entry> = &[
    (Entry::Now, Verb::Read, "/now"),
    (Entry::Ms, Verb::Read, "/ms"),
];

/// The answer to a read of the entry at `place`.
pub fn serve(place: usize) -> Reply {
    let now = bson::DateTime::now();
    match entry(ENTRIES, place) {
        Some(Entry::Now) => match now.try_to_rfc3339_string() {
            Ok(s) => Reply::done(Some(text(s))),
            Err(e) => Reply::error(errno::IO_ERROR, e.to_string()),
        },
        Some(Entry::Ms) => Reply::done(Some(text(now.timestamp_millis().to_string()))),
        None => Reply::error(errno::NOT_FOUND, "the clock serves /now and /ms"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(path: &str) -> String {
        let place = ENTRIES.iter().position(|e| e.2 == path).unwrap();
        match serve(place) {
            Reply::Answer {
                done: true,
                payload: Some(p),
            } => {
                assert_eq!(&*p.content_type, "text/plain");
                String::from_utf8(p.data).unwrap()
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn now_is_rfc_3339_utc_and_ms_agrees_with_it() {
        let before = bson::DateTime::now().timestamp_millis();
        let now = answer("/now");
        let ms: i64 = answer("/ms").parse().unwrap();
        let after = bson::DateTime::now().timestamp_millis();
        assert!(now.ends_with('Z'), "{now}");
        let parsed = bson::DateTime::parse_rfc3339_str(&now)
            .unwrap()
            .timestamp_millis();
        assert!(before <= parsed && parsed <= ms && ms <= after);
        assert!(matches!(
            serve(ENTRIES.len()),
            Reply::Error {
                errno: crate::abi::errno::NOT_FOUND,
                ..
            }
        ));
    }
}
