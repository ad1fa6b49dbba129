//! The Http object's messages (`HttpConfig`, `HttpRequest`, `HttpResponse`,
//! declared in `sdk/env/Runtime.oth`) to and from BSON.
//!
//! The two that every exchange carries are written and read byte by byte
//! (`direct`) when they have the shape the SDK writes; any other response
//! is read in place through the crate (`RawDocument`), not through a tree
//! of `Bson` values (building and walking that tree was a seventh of the
//! event loop's time per request). Either way every element is taken in,
//! so a malformed response is refused as before.

use bson::raw::{RawBsonRef, RawDocument};
use bson::{Bson, Document};

use crate::Payload;

/// What the operator configured.
pub struct Config {
    pub listen: String,
    pub max_body: usize,
    pub timeout_ms: u64,
}

/// The defaults the header documents.
pub const DEFAULT_MAX_BODY: usize = 1 << 20;
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;

fn document(p: Option<&Payload>, what: &str) -> Result<Document, String> {
    let p = p.ok_or_else(|| format!("expected a {what} message"))?;
    let d = Document::from_reader(&mut p.data.as_slice()).map_err(|e| malformed(what, e))?;
    of_type(what, d.get_str("$type").ok())?;
    Ok(d)
}

/// A message that is not BSON, or not all of it.
fn malformed(what: &str, e: impl std::fmt::Display) -> String {
    format!("expected a {what} message: {e}")
}

/// Whether a message's `$type` (if it is a string) is `what`.
fn of_type(what: &str, t: Option<&str>) -> Result<(), String> {
    match t {
        Some(t) if t == what => Ok(()),
        Some(t) => Err(format!("expected a {what} message, got a {t}")),
        None => Err(format!("expected a {what} message")),
    }
}

/// A count field: absent or null, an integer (`Some(Some(n))`), or
/// something else (`Some(None)`); it must be non-negative.
fn non_negative(key: &str, v: Option<Option<i64>>) -> Result<Option<u64>, String> {
    match v {
        None => Ok(None),
        Some(Some(n)) if n >= 0 => Ok(Some(n as u64)),
        Some(_) => Err(format!("`{key}` must be a non-negative integer")),
    }
}

/// A non-negative integer field, if it is there.
fn count(d: &Document, key: &str) -> Result<Option<u64>, String> {
    let v = match d.get(key) {
        None | Some(Bson::Null) => None,
        Some(Bson::Int64(n)) => Some(Some(*n)),
        Some(Bson::Int32(n)) => Some(Some(i64::from(*n))),
        Some(_) => Some(None),
    };
    non_negative(key, v)
}

/// The largest `maxBody`: a request's body goes into one BSON document,
/// whose lengths are 32-bit.
pub const MOST_MAX_BODY: u64 = 1 << 30;

pub fn config(p: Option<&Payload>) -> Result<Config, String> {
    let d = document(p, "HttpConfig")?;
    let listen = d
        .get_str("listen")
        .map_err(|_| "HttpConfig has no `listen`".to_string())?
        .to_string();
    let max_body = count(&d, "maxBody")?.unwrap_or(DEFAULT_MAX_BODY as u64);
    if max_body > MOST_MAX_BODY {
        return Err(format!(
            "`maxBody` is at most {MOST_MAX_BODY} (1 GiB): a request's body goes into one BSON document"
        ));
    }
    Ok(Config {
        listen,
        max_body: max_body as usize,
        timeout_ms: count(&d, "timeoutMs")?.unwrap_or(DEFAULT_TIMEOUT_MS),
    })
}

/// An `HttpRequest` payload, as the crate would write it.
pub use direct::request;

/// A response as an object wrote it, its text and bytes where they lie in
/// the payload.
#[derive(Debug, PartialEq)]
pub struct Response<'a> {
    pub status: u16,
    pub headers: Vec<(&'a str, &'a str)>,
    pub body: &'a [u8],
    pub streamed: bool,
    pub length: Option<u64>,
}

/// An element's value, taken in whole (a document's every element): so
/// an element the response does not use is checked as a full decode would.
fn whole(v: RawBsonRef<'_>) -> Result<(), String> {
    Bson::try_from(v.to_raw_bson())
        .map(drop)
        .map_err(|e| malformed(RESPONSE, e))
}

const RESPONSE: &str = "HttpResponse";

/// An integer field's value, if it is one.
fn integer(v: RawBsonRef<'_>) -> Option<i64> {
    match v {
        RawBsonRef::Int32(n) => Some(n.into()),
        RawBsonRef::Int64(n) => Some(n),
        _ => None,
    }
}

/// A header of the `headers` array: every element read, the last `name`
/// and `value` kept (as a decoded document keeps a repeated key's last).
fn header(v: RawBsonRef<'_>) -> Result<(&str, &str), String> {
    let RawBsonRef::Document(h) = v else {
        return Err("each of `headers` must be an HttpHeader".into());
    };
    let (mut name, mut value) = (None, None);
    for e in h {
        let (k, v) = e.map_err(|e| malformed(RESPONSE, e))?;
        match k {
            "name" => name = Some(v),
            "value" => value = Some(v),
            _ => whole(v)?,
        }
    }
    match (name, value) {
        (Some(RawBsonRef::String(n)), Some(RawBsonRef::String(v))) => Ok((n, v)),
        _ => Err("each of `headers` must have a `name` and a `value`".into()),
    }
}

pub fn response(p: Option<&Payload>) -> Result<Response<'_>, String> {
    let p = p.ok_or_else(|| format!("expected a {RESPONSE} message"))?;
    // The shape HttpServer and the bindings write, read byte by byte;
    // anything else is read through the crate.
    match direct::response(&p.data) {
        Some(r) => Ok(r),
        None => by_crate(&p.data),
    }
}

/// Whether the byte-by-byte reading of `data`, where it takes it, gives
/// what the crate's reading gives (the fuzz target `http_response`).
pub fn readings_agree(data: &[u8]) -> bool {
    let Some(direct) = direct::response(data) else {
        return true;
    };
    by_crate(data).is_ok_and(|r| r == direct)
}

/// A response read through the crate's raw documents.
fn by_crate(data: &[u8]) -> Result<Response<'_>, String> {
    let bad = |e: bson::raw::Error| malformed(RESPONSE, e);
    // The document its length says (bytes after it are not its own).
    let len = data
        .get(..4)
        .map(|l| i32::from_le_bytes([l[0], l[1], l[2], l[3]]))
        .and_then(|l| usize::try_from(l).ok())
        .filter(|&l| l <= data.len())
        .unwrap_or(data.len());
    let d = RawDocument::from_bytes(&data[..len]).map_err(bad)?;
    let mut kind = None;
    let mut status = None;
    let mut headers = None;
    let mut body = None;
    let mut streamed = None;
    let mut length = None;
    for e in d {
        let (k, v) = e.map_err(bad)?;
        match k {
            "$type" => kind = Some(v.as_str()),
            "status" => status = Some(integer(v)),
            "headers" => headers = Some(v),
            "body" => body = Some(v.as_binary()),
            "streamed" => streamed = Some(v.as_bool()),
            "length" => length = Some(v),
            _ => whole(v)?,
        }
    }
    of_type(RESPONSE, kind.flatten())?;
    let Some(Some(status)) = status else {
        return Err("HttpResponse has no `status`".into());
    };
    if !(100..=999).contains(&status) {
        return Err(format!("{status} is not an HTTP status (100 to 999)"));
    }
    let Some(RawBsonRef::Array(list)) = headers else {
        return Err("HttpResponse has no `headers`".to_string());
    };
    let mut headers = Vec::new();
    for h in list {
        headers.push(header(h.map_err(bad)?)?);
    }
    let Some(Some(body)) = body else {
        return Err("HttpResponse has no `body`".into());
    };
    let length = match length {
        None | Some(RawBsonRef::Null) => None,
        Some(v) => Some(integer(v)),
    };
    let length = non_negative("length", length)?;
    Ok(Response {
        status: status as u16,
        headers,
        body: body.bytes,
        streamed: streamed.flatten().unwrap_or(false),
        length,
    })
}

/// An `HttpRequest` or `HttpResponse` payload in a trace line (` HttpRequest
/// GET /style.css`), or `None` for anything else.
pub fn describe(p: &Payload) -> Option<String> {
    if &*p.content_type != "application/bson" {
        return None;
    }
    let d = Document::from_reader(&mut p.data.as_slice()).ok()?;
    let body = |d: &Document| match d.get("body") {
        Some(Bson::Binary(b)) => b.bytes.len(),
        _ => 0,
    };
    match d.get_str("$type").ok()? {
        "HttpRequest" => Some(format!(
            " HttpRequest {} {} {} ({} bytes of body)",
            d.get_i64("id").unwrap_or(0),
            d.get_str("method").unwrap_or("?"),
            d.get_str("target").unwrap_or("?"),
            body(&d)
        )),
        "HttpResponse" => Some(format!(
            " HttpResponse {}{} ({} bytes of body)",
            d.get_i32("status").unwrap_or(0),
            if d.get_bool("streamed").unwrap_or(false) {
                " streamed"
            } else {
                ""
            },
            body(&d)
        )),
        _ => None,
    }
}

mod direct;

#[cfg(test)]
mod tests;
