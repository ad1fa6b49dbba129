//! JSON as the generated messages use it (book: reference/json.md): read
//! strictly (RFC 8259 and nothing else; duplicate keys and nesting deeper
//! than `DEEPEST` refused) into the tree BSON is read into, and written in
//! the format's one form: no whitespace, keys in the tree's order (a
//! message's `$type` first), strings escaped as little as JSON allows,
//! integers exactly, floats as JavaScript writes them, `time`, `uuid` and
//! `bytes` as their texts (`text`).

use std::collections::HashSet;
use std::fmt::Write;

use crate::text;
use crate::tree::{err, DecodeError, Document, Value};

/// How many arrays and objects may be open at once when read: more is
/// refused, not a crash.
pub const DEEPEST: usize = 100;

/// The JSON text of a value of the tree. A float with no JSON form (NaN,
/// an infinity) and an element of a kind JSON has no place for are written
/// `null`, as JavaScript's `JSON.stringify` writes them.
pub fn encode(v: &Value) -> Vec<u8> {
    let mut out = String::with_capacity(256);
    write_value(&mut out, v);
    out.into_bytes()
}

/// A document as a JSON object.
pub fn encode_document(d: &Document) -> Vec<u8> {
    let mut out = String::with_capacity(256);
    write_object(&mut out, d);
    out.into_bytes()
}

fn write_value(out: &mut String, v: &Value) {
    match v {
        Value::Null | Value::Other(..) => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int32(n) => {
            let _ = write!(out, "{}", n);
        }
        Value::Int64(n) => {
            let _ = write!(out, "{}", n);
        }
        Value::Double(x) => number(out, *x),
        Value::String(s) => string(out, s),
        Value::DateTime(ms) => string(out, &text::time_text(*ms)),
        Value::Binary(4, b) if b.len() == 16 => string(out, &text::uuid_text(b)),
        Value::Binary(_, b) => {
            out.push('"');
            text::base64(out, b);
            out.push('"');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Document(d) => write_object(out, d),
    }
}

fn write_object(out: &mut String, d: &Document) {
    out.push('{');
    for (i, (k, v)) in d.fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        string(out, k);
        out.push(':');
        write_value(out, v);
    }
    out.push('}');
}

fn string(out: &mut String, s: &str) {
    out.push('"');
    let b = s.as_bytes();
    let mut start = 0;
    // Runs that need no escape are copied whole; every byte escaped is
    // ASCII, so each run ends on a character's boundary.
    for (i, &c) in b.iter().enumerate() {
        let escape = match c {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0x08 => "\\b",
            0x0c => "\\f",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            c if c < 0x20 => "",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        if escape.is_empty() {
            let _ = write!(out, "\\u{:04x}", c);
        } else {
            out.push_str(escape);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// A few bytes on the stack that `write!` fills: a float's digits, with
/// no allocation.
struct Digits {
    buf: [u8; 40],
    len: usize,
}

impl Write for Digits {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        if end > self.buf.len() {
            return Err(std::fmt::Error);
        }
        self.buf[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// `x` laid out as JavaScript's `Number.prototype.toString` lays it out,
/// from its shortest round-trip digits (Rust's `{:e}`: `-1.2345e-7`).
fn number(out: &mut String, x: f64) {
    if !x.is_finite() {
        out.push_str("null");
        return;
    }
    if x == 0.0 {
        out.push('0');
        return;
    }
    if x < 0.0 {
        out.push('-');
    }
    let mut exp = Digits {
        buf: [0; 40],
        len: 0,
    };
    let _ = write!(exp, "{:e}", x.abs());
    let text = &exp.buf[..exp.len];
    let e_at = text.iter().position(|c| *c == b'e').unwrap_or(text.len());
    let mut digits = [0u8; 24];
    let mut k = 0;
    for &c in &text[..e_at] {
        if c.is_ascii_digit() && k < digits.len() {
            digits[k] = c;
            k += 1;
        }
    }
    let digits = std::str::from_utf8(&digits[..k]).unwrap_or("0");
    let k = k as i32;
    let e: i32 = std::str::from_utf8(&text[(e_at + 1).min(text.len())..])
        .ok()
        .and_then(|e| e.parse().ok())
        .unwrap_or(0);
    // The value is 0.DIGITS × 10^n.
    let n = e + 1;
    if k <= n && n <= 21 {
        out.push_str(digits);
        for _ in k..n {
            out.push('0');
        }
    } else if 0 < n && n <= 21 {
        out.push_str(&digits[..n as usize]);
        out.push('.');
        out.push_str(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        for _ in n..0 {
            out.push('0');
        }
        out.push_str(digits);
    } else {
        out.push_str(&digits[..1]);
        if k > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(out, "e{}{}", if n > 0 { '+' } else { '-' }, (n - 1).abs());
    }
}

/// Reads one JSON value, strictly: objects become documents (keys in the
/// order written), integers written without fraction or exponent that fit
/// an `i64` become `Int64`, every other number a `Double`.
pub fn decode(bytes: &[u8]) -> Result<Value, DecodeError> {
    if std::str::from_utf8(bytes).is_err() {
        return err("the text is not UTF-8");
    }
    let mut r = Reader { b: bytes, at: 0 };
    r.space();
    let v = r.value(0)?;
    r.space();
    if r.at != bytes.len() {
        return r.fail("something after the value");
    }
    Ok(v)
}

/// The `$type` a JSON message names (wherever it stands among its keys,
/// if it does), and its fields.
pub fn typed(bytes: &[u8]) -> Result<(Option<String>, Document), DecodeError> {
    match decode(bytes)? {
        Value::Document(d) => match d.get("$type") {
            Some(Value::String(t)) => Ok((Some(t.clone()), d)),
            Some(_) => err("a message's `$type` is a string"),
            None => Ok((None, d)),
        },
        _ => err("a message is a JSON object"),
    }
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn fail<T>(&self, what: &str) -> Result<T, DecodeError> {
        if self.at >= self.b.len() {
            return err(format!("the text ends early ({})", what));
        }
        err(format!("at byte {}: {}", self.at, what))
    }

    fn space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.at) {
            self.at += 1;
        }
    }

    fn eat(&mut self, word: &[u8]) -> bool {
        if self.b[self.at..].starts_with(word) {
            self.at += word.len();
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, DecodeError> {
        if depth >= DEEPEST && matches!(self.b.get(self.at), Some(b'{') | Some(b'[')) {
            return self.fail("arrays and objects nested more than 100 deep");
        }
        match self.b.get(self.at) {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => self.string().map(Value::String),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') if self.eat(b"true") => Ok(Value::Bool(true)),
            Some(b'f') if self.eat(b"false") => Ok(Value::Bool(false)),
            Some(b'n') if self.eat(b"null") => Ok(Value::Null),
            _ => self.fail("expected a value"),
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value, DecodeError> {
        self.at += 1;
        let mut d = Document::new();
        let mut seen: Option<HashSet<String>> = None;
        self.space();
        if self.eat(b"}") {
            return Ok(Value::Document(d));
        }
        loop {
            self.space();
            if self.b.get(self.at) != Some(&b'"') {
                return self.fail("expected a key (a string)");
            }
            let key = self.string()?;
            // A few keys are compared in turn; past those, a set keeps a
            // hostile object of many keys from costing their square.
            let again = match &mut seen {
                Some(set) => !set.insert(key.clone()),
                None if d.fields.len() < 32 => d.fields.iter().any(|(k, _)| *k == key),
                None => {
                    let mut set: HashSet<String> =
                        d.fields.iter().map(|(k, _)| k.clone()).collect();
                    let again = !set.insert(key.clone());
                    seen = Some(set);
                    again
                }
            };
            if again {
                return err(format!("the key `{}` is given twice", key));
            }
            self.space();
            if !self.eat(b":") {
                return self.fail("expected `:`");
            }
            self.space();
            let v = self.value(depth + 1)?;
            d.fields.push((key, v));
            self.space();
            if self.eat(b",") {
                continue;
            }
            if self.eat(b"}") {
                return Ok(Value::Document(d));
            }
            return self.fail("expected `,` or `}`");
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value, DecodeError> {
        self.at += 1;
        let mut items = Vec::new();
        self.space();
        if self.eat(b"]") {
            return Ok(Value::Array(items));
        }
        loop {
            self.space();
            items.push(self.value(depth + 1)?);
            self.space();
            if self.eat(b",") {
                continue;
            }
            if self.eat(b"]") {
                return Ok(Value::Array(items));
            }
            return self.fail("expected `,` or `]`");
        }
    }

    fn number(&mut self) -> Result<Value, DecodeError> {
        let start = self.at;
        let digit = |r: &Self| r.b.get(r.at).map_or(false, u8::is_ascii_digit);
        self.eat(b"-");
        match self.b.get(self.at) {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => {
                while digit(self) {
                    self.at += 1;
                }
            }
            _ => return self.fail("expected a digit"),
        }
        let mut integral = true;
        if self.eat(b".") {
            integral = false;
            if !digit(self) {
                return self.fail("expected a digit after `.`");
            }
            while digit(self) {
                self.at += 1;
            }
        }
        if let Some(b'e' | b'E') = self.b.get(self.at) {
            integral = false;
            self.at += 1;
            if let Some(b'+' | b'-') = self.b.get(self.at) {
                self.at += 1;
            }
            if !digit(self) {
                return self.fail("expected a digit in the exponent");
            }
            while digit(self) {
                self.at += 1;
            }
        }
        if digit(self) {
            return self.fail("a number with a leading zero");
        }
        let text = std::str::from_utf8(&self.b[start..self.at]).unwrap_or("");
        if integral {
            if let Ok(n) = text.parse::<i64>() {
                return Ok(Value::Int64(n));
            }
        }
        match text.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(Value::Double(x)),
            _ => err(format!("`{}` is beyond a double's range", text)),
        }
    }

    fn string(&mut self) -> Result<String, DecodeError> {
        self.at += 1;
        let mut out = String::new();
        loop {
            let start = self.at;
            while let Some(&c) = self.b.get(self.at) {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                self.at += 1;
            }
            // Whole UTF-8 characters: the text was checked, and runs stop
            // only at ASCII bytes.
            out.push_str(std::str::from_utf8(&self.b[start..self.at]).unwrap_or(""));
            match self.b.get(self.at) {
                Some(b'"') => {
                    self.at += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.at += 1;
                    self.escape(&mut out)?;
                }
                Some(_) => return self.fail("a control character in a string (escape it)"),
                None => return self.fail("an unterminated string"),
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), DecodeError> {
        let c = match self.b.get(self.at) {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                self.at += 1;
                let hi = self.hex4()?;
                let code = if (0xD800..0xDC00).contains(&hi) {
                    if !self.eat(b"\\u") {
                        return self.fail("a lone surrogate escape");
                    }
                    let lo = self.hex4()?;
                    if !(0xDC00..0xE000).contains(&lo) {
                        return self.fail("a lone surrogate escape");
                    }
                    0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                } else if (0xDC00..0xE000).contains(&hi) {
                    return self.fail("a lone surrogate escape");
                } else {
                    hi
                };
                out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                return Ok(());
            }
            _ => return self.fail("an unknown escape"),
        };
        self.at += 1;
        out.push(c);
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32, DecodeError> {
        let mut v = 0;
        for _ in 0..4 {
            match self.b.get(self.at).and_then(|c| (*c as char).to_digit(16)) {
                Some(d) => v = v * 16 + d,
                None => return self.fail("expected four hex digits after `\\u`"),
            }
            self.at += 1;
        }
        Ok(v)
    }
}
