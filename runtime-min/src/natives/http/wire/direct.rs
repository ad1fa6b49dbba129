//! The two messages every exchange carries, written and read byte by byte.
//!
//! Going through the `bson` crate's raw documents cost a few hundred
//! instructions an element (each checked, its key and value wrapped in
//! results), some 8,000 a response: a twentieth of what a page cost the
//! event loop. A request is written here as the crate writes it, byte for
//! byte. A response is read here only when it has exactly the shape
//! HttpServer and the bindings write (the fields of `HttpResponse`, each
//! once, of their one BSON type; headers of exactly `name` and `value`);
//! anything else, well-formed or not, is left to the crate's reading
//! (`None`), which decides it as ever. So what is taken or refused is the
//! crate's decision in every case; this only makes the common one fast.

use super::Response;
use crate::Payload;

/// The byte that ends a document.
const END: u8 = 0;
const STRING: u8 = 0x02;
const DOCUMENT: u8 = 0x03;
const ARRAY: u8 = 0x04;
const BINARY: u8 = 0x05;
const BOOLEAN: u8 = 0x08;
const NULL: u8 = 0x0a;
const INT32: u8 = 0x10;
const INT64: u8 = 0x12;

/// A document being written: its length is filled in at `end`.
struct Writer<'a> {
    out: &'a mut Vec<u8>,
    start: usize,
}

impl<'a> Writer<'a> {
    fn new(out: &'a mut Vec<u8>) -> Writer<'a> {
        let start = out.len();
        out.extend_from_slice(&[0; 4]);
        Writer { out, start }
    }

    fn key(&mut self, kind: u8, key: &str) {
        self.out.push(kind);
        self.out.extend_from_slice(key.as_bytes());
        self.out.push(0);
    }

    fn string(&mut self, key: &str, s: &str) {
        self.key(STRING, key);
        self.out
            .extend_from_slice(&(s.len() as i32 + 1).to_le_bytes());
        self.out.extend_from_slice(s.as_bytes());
        self.out.push(0);
    }

    fn end(self) {
        self.out.push(END);
        let len = (self.out.len() - self.start) as i32;
        self.out[self.start..self.start + 4].copy_from_slice(&len.to_le_bytes());
    }
}

/// An `HttpRequest` payload: its bytes as the crate writes its fields in
/// this order.
pub fn request<'a>(
    id: u64,
    method: &str,
    target: &str,
    hs: impl IntoIterator<Item = (&'a str, &'a [u8])>,
    body: &[u8],
) -> Payload {
    let mut out = Vec::with_capacity(160 + target.len() + body.len());
    let mut d = Writer::new(&mut out);
    d.string("$type", "HttpRequest");
    d.key(INT64, "id");
    d.out.extend_from_slice(&(id as i64).to_le_bytes());
    d.string("method", method);
    d.string("target", target);
    d.key(ARRAY, "headers");
    let mut list = Writer::new(d.out);
    let mut index = Index::new();
    for (i, (n, v)) in hs.into_iter().enumerate() {
        list.key(DOCUMENT, index.format(i));
        let mut h = Writer::new(list.out);
        h.string("name", n);
        h.string("value", &String::from_utf8_lossy(v));
        h.end();
    }
    list.end();
    d.key(BINARY, "body");
    d.out.extend_from_slice(&(body.len() as i32).to_le_bytes());
    d.out.push(0);
    d.out.extend_from_slice(body);
    d.end();
    Payload {
        content_type: "application/bson".into(),
        data: out,
    }
}

/// Decimal array indices, written without allocating.
struct Index([u8; 20]);

impl Index {
    fn new() -> Index {
        Index([0; 20])
    }

    fn format(&mut self, mut n: usize) -> &str {
        let mut at = self.0.len();
        loop {
            at -= 1;
            self.0[at] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        // Only ASCII digits were written.
        std::str::from_utf8(&self.0[at..]).unwrap_or("0")
    }
}

/// Bytes being read; every read is checked against the end given.
struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.b.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }

    fn byte(&mut self) -> Option<u8> {
        self.take(1).map(|s| s[0])
    }

    fn i32(&mut self) -> Option<i32> {
        self.take(4)
            .map(|s| i32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }

    fn i64(&mut self) -> Option<i64> {
        let s = self.take(8)?;
        let mut a = [0; 8];
        a.copy_from_slice(s);
        Some(i64::from_le_bytes(a))
    }

    /// A key: its bytes up to the NUL (not checked as UTF-8: the callers
    /// compare them with ASCII keys, and take nothing else).
    fn key(&mut self) -> Option<&'a [u8]> {
        let rest = self.b.get(self.at..)?;
        let n = rest.iter().position(|&c| c == 0)?;
        self.at += n + 1;
        Some(&rest[..n])
    }

    /// A string value: UTF-8, with no NUL in it (one with a NUL is left to
    /// the crate).
    fn string(&mut self) -> Option<&'a str> {
        let len = usize::try_from(self.i32()?).ok().filter(|&l| l >= 1)?;
        let s = self.take(len)?;
        let (text, nul) = s.split_at(len - 1);
        if nul != [0] || text.contains(&0) {
            return None;
        }
        std::str::from_utf8(text).ok()
    }

    /// A document's elements: from after its length to before its final
    /// NUL, which must be where its length says.
    fn document(&mut self) -> Option<Reader<'a>> {
        let start = self.at;
        let len = usize::try_from(self.i32()?).ok().filter(|&l| l >= 5)?;
        let whole = self.b.get(start..start.checked_add(len)?)?;
        if whole[len - 1] != 0 {
            return None;
        }
        self.at = start + len;
        Some(Reader {
            b: &whole[..len - 1],
            at: 4,
        })
    }

    fn done(&self) -> bool {
        self.at == self.b.len()
    }
}

/// Sets `slot` the first time; a key seen twice is left to the crate.
fn once<T>(slot: &mut Option<T>, v: T) -> Option<()> {
    if slot.is_some() {
        return None;
    }
    *slot = Some(v);
    Some(())
}

/// The response in `data` if it has the one shape read here and is one
/// the crate takes as it is; `None` to leave it to the crate's reading.
pub fn response(data: &[u8]) -> Option<Response<'_>> {
    let mut top = Reader { b: data, at: 0 }.document()?;
    let (mut kind, mut status, mut headers, mut body, mut streamed, mut length) =
        (None, None, None, None, None, None);
    while !top.done() {
        let t = top.byte()?;
        match (top.key()?, t) {
            (b"$type", STRING) => once(&mut kind, top.string()?)?,
            (b"status", INT32) => once(&mut status, i64::from(top.i32()?))?,
            (b"status", INT64) => once(&mut status, top.i64()?)?,
            (b"headers", ARRAY) => once(&mut headers, top.document()?)?,
            (b"body", BINARY) => {
                let len = usize::try_from(top.i32()?).ok()?;
                if top.byte()? != 0 {
                    return None;
                }
                once(&mut body, top.take(len)?)?
            }
            (b"streamed", BOOLEAN) => {
                let v = match top.byte()? {
                    0 => false,
                    1 => true,
                    _ => return None,
                };
                once(&mut streamed, v)?
            }
            (b"length", NULL) => once(&mut length, None)?,
            (b"length", INT32) => once(&mut length, Some(i64::from(top.i32()?)))?,
            (b"length", INT64) => once(&mut length, Some(top.i64()?))?,
            _ => return None,
        }
    }
    if kind? != "HttpResponse" {
        return None;
    }
    let status = status.filter(|s| (100..=999).contains(s))?;
    let length = match length.flatten() {
        None => None,
        Some(n) => Some(u64::try_from(n).ok()?),
    };
    let mut list = headers?;
    let mut index = Index::new();
    let mut out = Vec::new();
    for i in 0.. {
        if list.done() {
            break;
        }
        if list.byte()? != DOCUMENT || list.key()? != index.format(i).as_bytes() {
            return None;
        }
        let mut h = list.document()?;
        let (mut name, mut value) = (None, None);
        while !h.done() {
            let t = h.byte()?;
            match (h.key()?, t) {
                (b"name", STRING) => once(&mut name, h.string()?)?,
                (b"value", STRING) => once(&mut value, h.string()?)?,
                _ => return None,
            }
        }
        out.push((name?, value?));
    }
    Some(Response {
        status: status as u16,
        headers: out,
        body: body?,
        streamed: streamed.unwrap_or(false),
        length,
    })
}
