//! The texts JSON carries scalars as (book: reference/json.md): `time` as
//! JavaScript's `toISOString` writes it (RFC 3339 in UTC with
//! milliseconds, a six-digit signed year outside 0000–9999), `uuid` as its
//! hyphenated hex, `bytes` as padded base64. Read strictly: what a writer
//! of the format would not write is refused.

use crate::tree::{err, DecodeError};

const MS_PER_DAY: i64 = 86_400_000;

/// Milliseconds since 1970 as `2026-12-08T09:30:00.000Z`.
pub fn time_text(ms: i64) -> String {
    let days = ms.div_euclid(MS_PER_DAY);
    let in_day = ms.rem_euclid(MS_PER_DAY);
    let (y, m, d) = civil_from_days(days);
    let year = if (0..=9999).contains(&y) {
        format!("{:04}", y)
    } else {
        format!("{}{:06}", if y < 0 { '-' } else { '+' }, y.unsigned_abs())
    };
    format!(
        "{}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        year,
        m,
        d,
        in_day / 3_600_000,
        in_day % 3_600_000 / 60_000,
        in_day % 60_000 / 1000,
        in_day % 1000
    )
}

/// Reads an RFC 3339 time (any offset, any number of fraction digits, of
/// which milliseconds are kept), or a signed six-digit year in its place.
pub fn time(s: &str) -> Result<i64, DecodeError> {
    parse_time(s.as_bytes()).ok_or_else(|| DecodeError(format!("`{}` is not an RFC 3339 time", s)))
}

fn digits(b: &[u8], at: usize, n: usize) -> Option<i64> {
    let part = b.get(at..at + n)?;
    let mut v = 0i64;
    for c in part {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + i64::from(c - b'0');
    }
    Some(v)
}

fn parse_time(b: &[u8]) -> Option<i64> {
    let (year, at) = match b.first()? {
        b'+' | b'-' => {
            let y = digits(b, 1, 6)?;
            (if b[0] == b'-' { -y } else { y }, 7)
        }
        _ => (digits(b, 0, 4)?, 4),
    };
    let expect = |at: usize, c: u8| b.get(at) == Some(&c);
    if !(expect(at, b'-')
        && expect(at + 3, b'-')
        && matches!(b.get(at + 6), Some(b'T') | Some(b't')))
    {
        return None;
    }
    let month = digits(b, at + 1, 2)?;
    let day = digits(b, at + 4, 2)?;
    let t = at + 7;
    if !(expect(t + 2, b':') && expect(t + 5, b':')) {
        return None;
    }
    let (h, min, sec) = (digits(b, t, 2)?, digits(b, t + 3, 2)?, digits(b, t + 6, 2)?);
    let mut i = t + 8;
    let mut ms = 0;
    if expect(i, b'.') {
        let start = i + 1;
        i = start;
        while b.get(i).map_or(false, u8::is_ascii_digit) {
            if i - start < 3 {
                ms = ms * 10 + i64::from(b[i] - b'0');
            }
            i += 1;
        }
        if i == start {
            return None;
        }
        for _ in (i - start)..3 {
            ms *= 10;
        }
    }
    let offset = match b.get(i)? {
        b'Z' | b'z' if i + 1 == b.len() => 0,
        c @ (b'+' | b'-') if i + 6 == b.len() && expect(i + 3, b':') => {
            let (oh, om) = (digits(b, i + 1, 2)?, digits(b, i + 4, 2)?);
            if oh > 23 || om > 59 {
                return None;
            }
            let o = (oh * 60 + om) * 60_000;
            if *c == b'+' {
                o
            } else {
                -o
            }
        }
        _ => return None,
    };
    if !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month(year, month)
        || h > 23
        || min > 59
        || sec > 60
    {
        return None;
    }
    // A leap second is read as the last millisecond of its minute's end.
    let sec = sec.min(59);
    let days = days_from_civil(year, month, day);
    let in_day = ((h * 60 + min) * 60 + sec) * 1000 + ms;
    days.checked_mul(MS_PER_DAY)?
        .checked_add(in_day)?
        .checked_sub(offset)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's
/// algorithms, both ways).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// A uuid's 16 bytes as `123e4567-e89b-12d3-a456-426614174000`.
pub fn uuid_text(u: &[u8]) -> String {
    let mut out = String::with_capacity(36);
    for (i, b) in u.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push('-');
        }
        out.push_str(&format!("{:02x}", b));
    }
    out
}

/// Reads the 8-4-4-4-12 form, in either case.
pub fn uuid(s: &str) -> Result<[u8; 16], DecodeError> {
    let hex: Vec<u8> = s.bytes().filter(|c| *c != b'-').collect();
    let dashes: Vec<usize> = s
        .bytes()
        .enumerate()
        .filter(|(_, c)| *c == b'-')
        .map(|(i, _)| i)
        .collect();
    if s.len() != 36 || dashes != [8, 13, 18, 23] || hex.len() != 32 {
        return err(format!("`{}` is not a uuid (8-4-4-4-12 hex digits)", s));
    }
    let mut out = [0u8; 16];
    for (i, pair) in hex.chunks(2).enumerate() {
        let h = |c: u8| (c as char).to_digit(16);
        match (h(pair[0]), h(pair[1])) {
            (Some(a), Some(b)) => out[i] = (a * 16 + b) as u8,
            _ => return err(format!("`{}` is not a uuid (8-4-4-4-12 hex digits)", s)),
        }
    }
    Ok(out)
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `bytes` as base64 with padding (RFC 4648 §4).
pub fn base64(out: &mut String, bytes: &[u8]) {
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

/// Reads padded base64; refuses other alphabets, whitespace, missing
/// padding and bits set past the data (a text no encoder writes).
pub fn from_base64(s: &str) -> Result<Vec<u8>, DecodeError> {
    let b = s.as_bytes();
    let bad = || err(format!("not padded base64 ({} characters)", b.len()));
    if b.len() % 4 != 0 {
        return bad();
    }
    let mut out = Vec::with_capacity(b.len() / 4 * 3);
    for (k, quad) in b.chunks(4).enumerate() {
        let last = k + 1 == b.len() / 4;
        let pads = quad.iter().rev().take_while(|c| **c == b'=').count();
        if pads > 2 || (pads > 0 && !last) {
            return bad();
        }
        let mut n = 0u32;
        for &c in &quad[..4 - pads] {
            let v = match ALPHABET.iter().position(|a| *a == c) {
                Some(v) => v as u32,
                None => return bad(),
            };
            n = n << 6 | v;
        }
        n <<= 6 * pads as u32;
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        let keep = 3 - pads;
        if bytes[keep..].iter().any(|b| *b != 0) {
            return bad();
        }
        out.extend_from_slice(&bytes[..keep]);
    }
    Ok(out)
}
