//! BSON as the generated messages use it (book: reference/wire.md, "BSON
//! payloads"): a document is its elements in order, each a name and a
//! value; decoding keeps elements of kinds it does not model whole
//! (`Value::Other`), so a document can be read and written back unchanged.
//! Encoding writes exactly what the `bson` crate writes for the same
//! elements (a conformance test holds them to it).

pub use crate::field::{optional, required, Field, List, Map, NotByte, Wire};
use crate::tree::err;
pub use crate::tree::{DateTime, DecodeError, Document, Uuid, Value};

impl Document {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(&[0; 4]);
        for (name, v) in &self.fields {
            write_element(out, name, v);
        }
        out.push(0);
        let len = (out.len() - start) as i32;
        out[start..start + 4].copy_from_slice(&len.to_le_bytes());
    }

    pub fn decode(bytes: &[u8]) -> Result<Document, DecodeError> {
        let mut r = Reader { b: bytes, at: 0 };
        let d = r.document(0)?;
        if r.at != bytes.len() {
            return err("bytes after the document");
        }
        Ok(d)
    }
}

fn write_cstring(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(s.as_bytes());
    out.push(0);
}

fn kind(v: &Value) -> u8 {
    match v {
        Value::Double(_) => 0x01,
        Value::String(_) => 0x02,
        Value::Document(_) => 0x03,
        Value::Array(_) => 0x04,
        Value::Binary(..) => 0x05,
        Value::Bool(_) => 0x08,
        Value::DateTime(_) => 0x09,
        Value::Null => 0x0A,
        Value::Int32(_) => 0x10,
        Value::Int64(_) => 0x12,
        Value::Other(k, _) => *k,
    }
}

fn write_element(out: &mut Vec<u8>, name: &str, v: &Value) {
    out.push(kind(v));
    write_cstring(out, name);
    match v {
        Value::Double(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::String(s) => {
            out.extend_from_slice(&(s.len() as i32 + 1).to_le_bytes());
            write_cstring(out, s);
        }
        Value::Document(d) => d.write(out),
        Value::Array(items) => {
            let d = Document {
                fields: items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (i.to_string(), v.clone()))
                    .collect(),
            };
            d.write(out);
        }
        Value::Binary(sub, bytes) => {
            out.extend_from_slice(&(bytes.len() as i32).to_le_bytes());
            out.push(*sub);
            out.extend_from_slice(bytes);
        }
        Value::Bool(b) => out.push(u8::from(*b)),
        Value::DateTime(ms) => out.extend_from_slice(&ms.to_le_bytes()),
        Value::Null => {}
        Value::Int32(n) => out.extend_from_slice(&n.to_le_bytes()),
        Value::Int64(n) => out.extend_from_slice(&n.to_le_bytes()),
        Value::Other(_, raw) => out.extend_from_slice(raw),
    }
}

/// How deep documents may nest when read: deeper is refused, not a crash.
const DEEPEST: usize = 100;

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], DecodeError> {
        let end = self.at.checked_add(n).filter(|e| *e <= self.b.len());
        match end {
            Some(end) => {
                let s = &self.b[self.at..end];
                self.at = end;
                Ok(s)
            }
            None => err("the document ends early"),
        }
    }

    fn i32(&mut self) -> Result<i32, DecodeError> {
        let mut a = [0; 4];
        a.copy_from_slice(self.take(4)?);
        Ok(i32::from_le_bytes(a))
    }

    fn i64(&mut self) -> Result<i64, DecodeError> {
        let mut a = [0; 8];
        a.copy_from_slice(self.take(8)?);
        Ok(i64::from_le_bytes(a))
    }

    fn cstring(&mut self) -> Result<String, DecodeError> {
        let rest = &self.b[self.at.min(self.b.len())..];
        let n = match rest.iter().position(|b| *b == 0) {
            Some(n) => n,
            None => return err("a name without its end"),
        };
        let s = match std::str::from_utf8(&rest[..n]) {
            Ok(s) => s.to_string(),
            Err(_) => return err("a name that is not UTF-8"),
        };
        self.at += n + 1;
        Ok(s)
    }

    fn string(&mut self) -> Result<String, DecodeError> {
        let n = self.i32()?;
        if n < 1 {
            return err("a string of negative length");
        }
        let bytes = self.take(n as usize)?;
        if bytes[bytes.len() - 1] != 0 {
            return err("a string without its end");
        }
        match std::str::from_utf8(&bytes[..bytes.len() - 1]) {
            Ok(s) => Ok(s.to_string()),
            Err(_) => err("a string that is not UTF-8"),
        }
    }

    fn document(&mut self, depth: usize) -> Result<Document, DecodeError> {
        if depth > DEEPEST {
            return err("documents nested too deeply");
        }
        let start = self.at;
        let len = self.i32()?;
        if len < 5 {
            return err("a document of impossible length");
        }
        let end = match start.checked_add(len as usize) {
            Some(e) if e <= self.b.len() => e,
            _ => return err("the document ends early"),
        };
        let mut d = Document::new();
        loop {
            if self.at >= end {
                return err("a document without its end");
            }
            let k = self.take(1)?[0];
            if k == 0 {
                break;
            }
            let name = self.cstring()?;
            let v = self.value(k, depth)?;
            d.fields.push((name, v));
        }
        if self.at != end {
            return err("a document whose length is not its length");
        }
        Ok(d)
    }

    fn value(&mut self, k: u8, depth: usize) -> Result<Value, DecodeError> {
        Ok(match k {
            0x01 => Value::Double(f64::from_bits(self.i64()? as u64)),
            0x02 => Value::String(self.string()?),
            0x03 => Value::Document(self.document(depth + 1)?),
            0x04 => Value::Array(
                self.document(depth + 1)?
                    .fields
                    .into_iter()
                    .map(|(_, v)| v)
                    .collect(),
            ),
            0x05 => {
                let n = self.i32()?;
                if n < 0 {
                    return err("binary of negative length");
                }
                let sub = self.take(1)?[0];
                Value::Binary(sub, self.take(n as usize)?.to_vec())
            }
            0x08 => match self.take(1)?[0] {
                0 => Value::Bool(false),
                1 => Value::Bool(true),
                _ => return err("a boolean that is neither 0 nor 1"),
            },
            0x09 => Value::DateTime(self.i64()?),
            0x0A => Value::Null,
            0x10 => Value::Int32(self.i32()?),
            0x12 => Value::Int64(self.i64()?),
            // Kinds no schema type uses, kept whole as they were.
            0x06 | 0x7F | 0xFF => Value::Other(k, Vec::new()),
            0x07 => Value::Other(k, self.take(12)?.to_vec()),
            0x11 => Value::Other(k, self.take(8)?.to_vec()),
            0x13 => Value::Other(k, self.take(16)?.to_vec()),
            0x0D | 0x0E => {
                let start = self.at;
                self.string()?;
                Value::Other(k, self.b[start..self.at].to_vec())
            }
            0x0B => {
                let start = self.at;
                self.cstring()?;
                self.cstring()?;
                Value::Other(k, self.b[start..self.at].to_vec())
            }
            0x0C => {
                let start = self.at;
                self.string()?;
                self.take(12)?;
                Value::Other(k, self.b[start..self.at].to_vec())
            }
            0x0F => {
                let start = self.at;
                let n = self.i32()?;
                if n < 4 {
                    return err("code with scope of impossible length");
                }
                self.take(n as usize - 4)?;
                Value::Other(k, self.b[start..self.at].to_vec())
            }
            other => return err(format!("an element of unknown kind 0x{other:02x}")),
        })
    }
}

/// What a field reads as, by the wire table: each schema type's codec.
/// The `$type` a payload's document names, and the document.
pub fn typed(bytes: &[u8]) -> Result<(String, Document), DecodeError> {
    let d = Document::decode(bytes)?;
    match d.fields.first() {
        Some((n, Value::String(t))) if n == "$type" => Ok((t.clone(), d)),
        _ => err("a message's document starts with its `$type`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_round_trips_and_damage_is_an_error() {
        let mut d = Document::new();
        d.push("$type", Value::String("T".into()));
        d.push("n", Value::Int32(-3));
        d.push("l", Value::Array(vec![Value::Int64(1), Value::Null]));
        d.push("b", Value::Binary(4, vec![7; 16]));
        let bytes = d.encode();
        assert_eq!(Document::decode(&bytes).unwrap(), d);
        for cut in 0..bytes.len() {
            assert!(Document::decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
    }
}
