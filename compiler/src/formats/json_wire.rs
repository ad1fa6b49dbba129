//! A checked literal in JSON (RFC 8259): the bytes the runtime sends, in
//! the one form every encoder of the format writes (book:
//! reference/json.md): no whitespace; a message's `$type` first, then its
//! fields in declaration order; strings escaped as few as JSON allows
//! (`"`, `\`, and the control characters: `\b \f \n \r \t` short, the
//! others `\u00xx`), everything else as its UTF-8; integers in decimal;
//! floats as JavaScript writes them (the shortest digits that read back
//! the same value, `1e+21`, `1e-7`, `0.1`); `time` as RFC 3339 in UTC with
//! milliseconds (`2026-12-08T09:30:00.000Z`); `uuid` as its lower-case
//! hyphenated text; `bytes` as base64 with padding; an enum by name.

use std::fmt::Write;

use super::literal::Checked;

/// The payload of a checked message literal.
pub fn encode(c: &Checked) -> Result<Vec<u8>, String> {
    let mut out = String::new();
    value(&mut out, c)?;
    Ok(out.into_bytes())
}

fn value(out: &mut String, c: &Checked) -> Result<(), String> {
    match c {
        Checked::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Checked::Str(s) | Checked::Enum(s) => string(out, s),
        Checked::Int32(i) => {
            let _ = write!(out, "{i}");
        }
        Checked::Int64(i) => {
            let _ = write!(out, "{i}");
        }
        Checked::Double(f) => number(out, *f, format!("{f:e}"))?,
        Checked::Float(f) => number(out, f64::from(*f), format!("{f:e}"))?,
        Checked::Time(ms) => {
            out.push('"');
            out.push_str(&rfc3339(*ms)?);
            out.push('"');
        }
        Checked::Uuid(u) => {
            out.push('"');
            for (i, b) in u.iter().enumerate() {
                if matches!(i, 4 | 6 | 8 | 10) {
                    out.push('-');
                }
                let _ = write!(out, "{b:02x}");
            }
            out.push('"');
        }
        Checked::Bytes(b) => {
            out.push('"');
            base64(out, b);
            out.push('"');
        }
        Checked::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                value(out, item)?;
            }
            out.push(']');
        }
        Checked::Map(entries) => object(out, None, entries)?,
        Checked::Message { type_name, fields } => object(out, type_name.as_deref(), fields)?,
    }
    Ok(())
}

fn object(
    out: &mut String,
    type_name: Option<&str>,
    fields: &[(String, Checked)],
) -> Result<(), String> {
    out.push('{');
    let mut first = true;
    if let Some(t) = type_name {
        out.push_str("\"$type\":");
        string(out, t);
        first = false;
    }
    for (name, v) in fields {
        if !first {
            out.push(',');
        }
        first = false;
        string(out, name);
        out.push(':');
        value(out, v)?;
    }
    out.push('}');
    Ok(())
}

fn string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c < ' ' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `f` as JavaScript's `Number.prototype.toString` lays it out, from
/// `exp`, its shortest round-trip digits in Rust's `{:e}` form
/// (`-1.2345e-7`): JSON has no NaN or infinity, so they are refused.
fn number(out: &mut String, f: f64, exp: String) -> Result<(), String> {
    if !f.is_finite() {
        return Err(format!(
            "{f} is not a JSON number (JSON has no NaN or infinity)"
        ));
    }
    if f == 0.0 {
        out.push('0');
        return Ok(());
    }
    let (mantissa, e) = exp.split_once('e').unwrap_or((&exp, "0"));
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let k = digits.len() as i32;
    // The value is 0.DIGITS × 10^n.
    let n = e.parse::<i32>().unwrap_or(0) + 1;
    out.push_str(sign);
    if k <= n && n <= 21 {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        out.push_str(&digits[..n as usize]);
        out.push('.');
        out.push_str(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-n) as usize));
        out.push_str(&digits);
    } else {
        out.push_str(&digits[..1]);
        if k > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(out, "e{}{}", if n > 0 { '+' } else { '-' }, (n - 1).abs());
    }
    Ok(())
}

/// Milliseconds since 1970 as RFC 3339 in UTC, with milliseconds; years
/// 0 to 9999 only (RFC 3339 has four digits for a year).
fn rfc3339(ms: i64) -> Result<String, String> {
    let days = ms.div_euclid(86_400_000);
    let in_day = ms.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    if !(0..=9999).contains(&y) {
        return Err(format!(
            "{ms} ms since 1970 is in year {y}: RFC 3339 writes years 0000 to 9999"
        ));
    }
    let (h, rest) = (in_day / 3_600_000, in_day % 3_600_000);
    let (min, rest) = (rest / 60_000, rest % 60_000);
    let (s, milli) = (rest / 1000, rest % 1000);
    Ok(format!(
        "{y:04}-{m:02}-{d:02}T{h:02}:{min:02}:{s:02}.{milli:03}Z"
    ))
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard
/// Hinnant's days-to-civil algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

fn base64(out: &mut String, bytes: &[u8]) {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(f: f64) -> String {
        let mut out = String::new();
        number(&mut out, f, format!("{f:e}")).expect("finite");
        out
    }

    #[test]
    fn floats_as_javascript_writes_them() {
        for (f, js) in [
            (0.1, "0.1"),
            (1.0, "1"),
            (-1.5, "-1.5"),
            (123.456, "123.456"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1e-6, "0.000001"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (-2.5e300, "-2.5e+300"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            (0.000123, "0.000123"),
        ] {
            assert_eq!(num(f), js, "{f:e}");
        }
        let mut out = String::new();
        assert!(number(&mut out, f64::NAN, "NaN".into()).is_err());
    }

    #[test]
    fn times_as_rfc3339_with_milliseconds() {
        assert_eq!(rfc3339(0).unwrap(), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(-1).unwrap(), "1969-12-31T23:59:59.999Z");
        assert_eq!(
            rfc3339(951_782_400_123).unwrap(),
            "2000-02-29T00:00:00.123Z"
        );
        assert_eq!(
            rfc3339(253_402_300_799_999).unwrap(),
            "9999-12-31T23:59:59.999Z"
        );
        assert!(rfc3339(253_402_300_800_000).is_err());
        assert_eq!(
            rfc3339(-62_167_219_200_000).unwrap(),
            "0000-01-01T00:00:00.000Z"
        );
        assert!(rfc3339(-62_167_219_200_001).is_err());
    }

    #[test]
    fn strings_escaped_as_few_as_json_allows() {
        let mut out = String::new();
        string(&mut out, "a\"b\\c\n\t\u{1}\u{7f}é😀/");
        assert_eq!(out, "\"a\\\"b\\\\c\\n\\t\\u0001\u{7f}é😀/\"");
    }

    #[test]
    fn bytes_as_padded_base64() {
        for (b, t) in [
            (&b""[..], ""),
            (b"f", "Zg=="),
            (b"fo", "Zm8="),
            (b"foo", "Zm9v"),
            (b"foob", "Zm9vYg=="),
            (&[0xff, 0xfe, 0x00][..], "//4A"),
        ] {
            let mut out = String::new();
            base64(&mut out, b);
            assert_eq!(out, t);
        }
    }
}
