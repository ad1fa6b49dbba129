//! The Http object's messages (`HttpConfig`, `HttpRequest`, `HttpResponse`,
//! declared in `sdk/env/Runtime.oth`) to and from BSON.

use bson::spec::BinarySubtype;
use bson::{Binary, Bson, Document, doc};

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
    let d = Document::from_reader(&mut p.data.as_slice())
        .map_err(|e| format!("expected a {what} message: {e}"))?;
    match d.get_str("$type") {
        Ok(t) if t == what => Ok(d),
        Ok(t) => Err(format!("expected a {what} message, got a {t}")),
        Err(_) => Err(format!("expected a {what} message")),
    }
}

/// A non-negative integer field, if it is there.
fn count(d: &Document, key: &str) -> Result<Option<u64>, String> {
    match d.get(key) {
        None | Some(Bson::Null) => Ok(None),
        Some(Bson::Int64(n)) if *n >= 0 => Ok(Some(*n as u64)),
        Some(Bson::Int32(n)) if *n >= 0 => Ok(Some(*n as u64)),
        Some(_) => Err(format!("`{key}` must be a non-negative integer")),
    }
}

pub fn config(p: Option<&Payload>) -> Result<Config, String> {
    let d = document(p, "HttpConfig")?;
    let listen = d
        .get_str("listen")
        .map_err(|_| "HttpConfig has no `listen`".to_string())?
        .to_string();
    Ok(Config {
        listen,
        max_body: count(&d, "maxBody")?.map_or(DEFAULT_MAX_BODY, |n| n as usize),
        timeout_ms: count(&d, "timeoutMs")?.unwrap_or(DEFAULT_TIMEOUT_MS),
    })
}

fn headers(hs: &[(String, Vec<u8>)]) -> Bson {
    Bson::Array(
        hs.iter()
            .map(|(n, v)| {
                Bson::Document(doc! {
                    "name": n,
                    "value": String::from_utf8_lossy(v).into_owned(),
                })
            })
            .collect(),
    )
}

/// An `HttpRequest` payload.
pub fn request(
    id: u64,
    method: &str,
    target: &str,
    hs: &[(String, Vec<u8>)],
    body: &[u8],
) -> Payload {
    let d = doc! {
        "$type": "HttpRequest",
        "id": id as i64,
        "method": method,
        "target": target,
        "headers": headers(hs),
        "body": Binary { subtype: BinarySubtype::Generic, bytes: body.to_vec() },
    };
    let mut data = Vec::with_capacity(body.len() + 256);
    d.to_writer(&mut data)
        .expect("a document of strings and bytes encodes");
    Payload {
        content_type: "application/bson".into(),
        data,
    }
}

/// A response as an object wrote it.
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub streamed: bool,
    pub length: Option<u64>,
}

pub fn response(p: Option<&Payload>) -> Result<Response, String> {
    let d = document(p, "HttpResponse")?;
    let status = match d.get("status") {
        Some(Bson::Int32(n)) => *n as i64,
        Some(Bson::Int64(n)) => *n,
        _ => return Err("HttpResponse has no `status`".into()),
    };
    if !(100..=999).contains(&status) {
        return Err(format!("{status} is not an HTTP status (100 to 999)"));
    }
    let mut headers = Vec::new();
    for h in d
        .get_array("headers")
        .map_err(|_| "HttpResponse has no `headers`".to_string())?
    {
        let Bson::Document(h) = h else {
            return Err("each of `headers` must be an HttpHeader".into());
        };
        match (h.get_str("name"), h.get_str("value")) {
            (Ok(n), Ok(v)) => headers.push((n.to_string(), v.to_string())),
            _ => return Err("each of `headers` must have a `name` and a `value`".into()),
        }
    }
    let body = match d.get("body") {
        Some(Bson::Binary(b)) => b.bytes.clone(),
        _ => return Err("HttpResponse has no `body`".into()),
    };
    let streamed = d.get_bool("streamed").unwrap_or(false);
    let length = count(&d, "length")?;
    Ok(Response {
        status: status as u16,
        headers,
        body,
        streamed,
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
