//! `Clock`: `/now read -> text/plain` (RFC 3339, UTC, milliseconds) and
//! `/ms read -> text/plain` (milliseconds since 1970).

use othc::model::Seg;

use super::{Reply, text};
use crate::abi::errno;

pub fn serve(path: &[Seg]) -> Reply {
    let now = bson::DateTime::now();
    match path {
        [Seg::Lit(p)] if p == "now" => match now.try_to_rfc3339_string() {
            Ok(s) => Reply::done(Some(text(s))),
            Err(e) => Reply::error(errno::IO_ERROR, e.to_string()),
        },
        [Seg::Lit(p)] if p == "ms" => Reply::done(Some(text(now.timestamp_millis().to_string()))),
        _ => Reply::error(errno::NOT_FOUND, "the clock serves /now and /ms"),
    }
}
