//! The in-place codec beside the `bson` crate's tree of values (how these
//! messages were read and written before): the same bytes out, and the
//! same responses taken or refused, for well-formed messages and for
//! thousands of damaged ones.

use bson::spec::BinarySubtype;
use bson::{Binary, Bson, Document, doc};

use super::{MOST_MAX_BODY, Payload, Response, config, direct, request, response};

fn payload(d: &Document) -> Payload {
    let mut data = Vec::new();
    d.to_writer(&mut data).unwrap();
    Payload {
        content_type: "application/bson".into(),
        data,
    }
}

/// An `HttpRequest` as a tree of values, written by the crate.
fn tree_request(
    id: u64,
    method: &str,
    target: &str,
    hs: &[(String, Vec<u8>)],
    body: &[u8],
) -> Vec<u8> {
    let headers: Vec<Bson> = hs
        .iter()
        .map(|(n, v)| {
            Bson::Document(doc! { "name": n, "value": String::from_utf8_lossy(v).into_owned() })
        })
        .collect();
    let d = doc! {
        "$type": "HttpRequest",
        "id": id as i64,
        "method": method,
        "target": target,
        "headers": headers,
        "body": Binary { subtype: BinarySubtype::Generic, bytes: body.to_vec() },
    };
    payload(&d).data
}

/// What a response reading gives, owned: (status, headers, body,
/// streamed, length), or a refusal.
type Seen = Result<(u16, Vec<(String, String)>, Vec<u8>, bool, Option<u64>), ()>;

fn seen(r: Result<Response<'_>, impl Sized>) -> Seen {
    r.map(|r| {
        let headers = r
            .headers
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect();
        (r.status, headers, r.body.to_vec(), r.streamed, r.length)
    })
    .map_err(drop)
}

/// A response read through a tree of values, as the runtime read it
/// before: the reference the in-place reading must agree with.
fn tree_response(p: &Payload) -> Seen {
    let d = Document::from_reader(&mut p.data.as_slice()).map_err(drop)?;
    if d.get_str("$type") != Ok("HttpResponse") {
        return Err(());
    }
    let status = match d.get("status") {
        Some(Bson::Int32(n)) => *n as i64,
        Some(Bson::Int64(n)) => *n,
        _ => return Err(()),
    };
    if !(100..=999).contains(&status) {
        return Err(());
    }
    let mut headers = Vec::new();
    for h in d.get_array("headers").map_err(drop)? {
        let Bson::Document(h) = h else { return Err(()) };
        match (h.get_str("name"), h.get_str("value")) {
            (Ok(n), Ok(v)) => headers.push((n.to_string(), v.to_string())),
            _ => return Err(()),
        }
    }
    let Some(Bson::Binary(body)) = d.get("body") else {
        return Err(());
    };
    let length = match d.get("length") {
        None | Some(Bson::Null) => None,
        Some(Bson::Int64(n)) if *n >= 0 => Some(*n as u64),
        Some(Bson::Int32(n)) if *n >= 0 => Some(*n as u64),
        Some(_) => return Err(()),
    };
    Ok((
        status as u16,
        headers,
        body.bytes.clone(),
        d.get_bool("streamed").unwrap_or(false),
        length,
    ))
}

/// Well-formed responses, and some an object could get wrong.
fn responses() -> Vec<Document> {
    let h = |n: &str, v: &str| Bson::Document(doc! { "name": n, "value": v });
    let body = |b: &[u8]| Binary {
        subtype: BinarySubtype::Generic,
        bytes: b.to_vec(),
    };
    vec![
        doc! { "$type": "HttpResponse", "status": 200, "headers": [h("content-type", "text/css"), h("etag", "\"1f\"")], "body": body(b"body { }"), "streamed": false },
        doc! { "$type": "HttpResponse", "status": 304_i64, "headers": [], "body": body(b"") },
        doc! { "$type": "HttpResponse", "status": 200, "headers": [h("x-é", "ünïcode")], "body": body(&[0, 255, 1]), "streamed": true, "length": 1_i64 << 40 },
        doc! { "$type": "HttpResponse", "status": 200, "headers": [], "body": body(b"x"), "length": Bson::Null, "extra": { "deep": [1, "two", { "three": 3.0 }] } },
        doc! { "$type": "HttpResponse", "status": 200, "headers": [{ "name": "a", "value": "b", "note": "kept apart" }], "body": body(b"") },
        doc! { "status": 200, "$type": "HttpResponse", "body": body(b"order"), "headers": [] },
        // Refused: each for one reason.
        doc! { "$type": "HttpHeader", "name": "a", "value": "b" },
        doc! { "$type": 7, "status": 200, "headers": [], "body": body(b"") },
        doc! { "$type": "HttpResponse", "status": "200", "headers": [], "body": body(b"") },
        doc! { "$type": "HttpResponse", "status": 99, "headers": [], "body": body(b"") },
        doc! { "$type": "HttpResponse", "status": 200, "headers": "none", "body": body(b"") },
        doc! { "$type": "HttpResponse", "status": 200, "headers": ["a: b"], "body": body(b"") },
        doc! { "$type": "HttpResponse", "status": 200, "headers": [{ "name": "a" }], "body": body(b"") },
        doc! { "$type": "HttpResponse", "status": 200, "headers": [{ "name": "a", "value": 1 }], "body": body(b"") },
        doc! { "$type": "HttpResponse", "status": 200, "headers": [], "body": "text" },
        doc! { "$type": "HttpResponse", "status": 200, "headers": [], "body": body(b""), "length": -1 },
        doc! { "$type": "HttpResponse", "status": 200, "headers": [], "body": body(b""), "length": "3" },
    ]
}

#[test]
fn a_request_is_the_bytes_the_crate_writes() {
    let hs = |list: &[(&str, &[u8])]| -> Vec<(String, Vec<u8>)> {
        list.iter()
            .map(|(n, v)| (n.to_string(), v.to_vec()))
            .collect()
    };
    for (id, method, target, headers, body) in [
        (
            1,
            "GET",
            "/style.css",
            hs(&[("host", b"127.0.0.1:8080")]),
            &b""[..],
        ),
        (
            u64::MAX >> 1,
            "POST",
            "/a?b=c&d=%20",
            hs(&[("a", b"1"), ("b", b"2"), ("c", b"")]),
            &b"{\"x\":1}"[..],
        ),
        (
            0,
            "PUT",
            "/é/ü",
            hs(&[("x-bin", &[0xff, 0xfe, b'a'])]),
            &[0u8, 1, 2, 255][..],
        ),
        (7, "DELETE", "/", Vec::new(), &[b'z'; 70_000][..]),
        (
            8,
            "GET",
            "/many",
            (0..12)
                .map(|i| (format!("x-{i}"), format!("v{i}").into_bytes()))
                .collect(),
            &b""[..],
        ),
    ] {
        assert_eq!(
            request(
                id,
                method,
                target,
                headers.iter().map(|(n, v)| (n.as_str(), v.as_slice())),
                body
            )
            .data,
            tree_request(id, method, target, &headers, body),
            "{method} {target}"
        );
    }
}

#[test]
fn responses_are_taken_and_refused_as_the_crate_reads_them() {
    for d in responses() {
        let p = payload(&d);
        assert_eq!(seen(response(Some(&p))), tree_response(&p), "{d}");
    }
    // Bytes after the document are not part of it.
    let mut p = payload(&responses()[0]);
    p.data.extend_from_slice(b"trailing");
    assert!(response(Some(&p)).is_ok());
    assert_eq!(seen(response(Some(&p))), tree_response(&p));
}

/// The responses of the SDK's shape are read byte by byte (`direct`), to
/// the same result as the crate's; one with a field of another shape is
/// left to the crate.
#[test]
fn the_sdk_shape_is_read_directly() {
    let all = responses();
    for d in [&all[0], &all[1], &all[2], &all[5]] {
        let p = payload(d);
        let direct = direct::response(&p.data).map(Ok::<_, ()>);
        assert!(direct.is_some(), "read directly: {d}");
        assert_eq!(seen(direct.unwrap()), tree_response(&p), "{d}");
    }
    for d in [&all[3], &all[4]] {
        assert!(
            direct::response(&payload(d).data).is_none(),
            "left to the crate: {d}"
        );
    }
}

/// A small deterministic generator: the same damage every run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, below: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % below.max(1)
    }
}

#[test]
fn damaged_responses_are_refused_as_the_crate_refuses_them() {
    let mut rng = Lcg(35);
    let mut refused = 0;
    for d in responses() {
        let good = payload(&d).data;
        for _ in 0..3000 {
            let mut data = good.clone();
            match rng.next(4) {
                // A byte changed.
                0 => {
                    let at = rng.next(data.len());
                    data[at] = rng.next(256) as u8;
                }
                // Cut short.
                1 => data.truncate(rng.next(data.len())),
                // A byte set to one that matters to BSON.
                2 => {
                    let at = rng.next(data.len());
                    data[at] = [0, 0xff, 0x80, 2, 3, 4, 5, 0x10, 0x12][rng.next(9)];
                }
                // Two changed.
                _ => {
                    for _ in 0..2 {
                        let at = rng.next(data.len());
                        data[at] ^= 1 << rng.next(8);
                    }
                }
            }
            let p = Payload {
                content_type: "application/bson".into(),
                data,
            };
            let (new, old) = (seen(response(Some(&p))), tree_response(&p));
            assert_eq!(new, old, "{:?}", p.data);
            refused += usize::from(new.is_err());
        }
    }
    assert!(
        refused > 10_000,
        "the damage should mostly be refused: {refused}"
    );
}

/// `maxBody` up to 1 GiB is taken; past it, refused (a body goes into one
/// BSON document, whose lengths are 32-bit).
#[test]
fn max_body_is_at_most_a_gibibyte() {
    let with = |n: i64| {
        config(Some(&payload(
            &doc! { "$type": "HttpConfig", "listen": "127.0.0.1:0", "maxBody": n },
        )))
    };
    assert_eq!(
        with(MOST_MAX_BODY as i64).unwrap().max_body as u64,
        MOST_MAX_BODY
    );
    assert!(
        with(MOST_MAX_BODY as i64 + 1)
            .err()
            .is_some_and(|e| e.contains("at most"))
    );
    assert!(with(-1).is_err());
}
