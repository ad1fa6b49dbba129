//! A checked literal in JSON (RFC 8259): the bytes the runtime sends, in
//! the one form every encoder of the format writes (book:
//! reference/json.md). The literal is put into the Rust SDK's tree and
//! written by the SDK's own writer (`othismo::json`), the code a Rust
//! object's messages are written by, so the two cannot disagree: no
//! whitespace; a message's `$type` first, then its fields in declaration
//! order; strings escaped as little as JSON allows; integers exactly;
//! floats as JavaScript writes them (an `f32` as the double holding it);
//! `time` as JavaScript's `toISOString`; `uuid` as lower-case hex;
//! `bytes` as padded base64; an enum by name.

use othismo::bson::Value;

use super::literal::Checked;

/// The payload of a checked message literal.
pub fn encode(c: &Checked) -> Result<Vec<u8>, String> {
    let v = c.to_tree();
    if has_no_json_form(&v) {
        // The checker refuses a literal beyond a double's range (E0604):
        // never written as `null` here.
        return Err("a float with no JSON form (NaN or an infinity)".into());
    }
    Ok(othismo::json::encode(&v))
}

fn has_no_json_form(v: &Value) -> bool {
    match v {
        Value::Double(f) => !f.is_finite(),
        Value::Array(items) => items.iter().any(has_no_json_form),
        Value::Document(d) => d.fields.iter().any(|(_, v)| has_no_json_form(v)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    //! The SDK's writer, as the format's book page states it (its own
    //! workspace runs no tests in CI: they are here).
    use othismo::bson::Value;

    fn num(f: f64) -> String {
        String::from_utf8(othismo::json::encode(&Value::Double(f))).unwrap()
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
            (-0.0, "0"),
            (f64::from(0.1f32), "0.10000000149011612"),
        ] {
            assert_eq!(num(f), js, "{f:e}");
        }
        assert_eq!(num(f64::NAN), "null", "as JSON.stringify writes it");
    }

    #[test]
    fn times_as_javascript_writes_them() {
        let t = othismo::text::time_text;
        assert_eq!(t(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(t(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(t(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(t(253_402_300_799_999), "9999-12-31T23:59:59.999Z");
        assert_eq!(t(253_402_300_800_000), "+010000-01-01T00:00:00.000Z");
        assert_eq!(t(-62_167_219_200_000), "0000-01-01T00:00:00.000Z");
        assert_eq!(t(-62_167_219_200_001), "-000001-12-31T23:59:59.999Z");
        for ms in [
            0,
            -1,
            951_782_400_123,
            253_402_300_800_000,
            -62_167_219_200_001,
            1 << 45,
        ] {
            assert_eq!(othismo::text::time(&t(ms)), Ok(ms), "{}", t(ms));
        }
        for (text, ms) in [
            ("2026-12-08T11:30:00.5+02:00", 1_796_722_200_500),
            ("2026-12-08t09:30:00.123456z", 1_796_722_200_123),
            ("2016-12-31T23:59:60Z", 1_483_228_799_000),
        ] {
            assert_eq!(othismo::text::time(text), Ok(ms), "{text}");
        }
        for bad in [
            "2026-02-30T00:00:00Z",
            "2026-12-08 09:30:00Z",
            "2026-12-08T09:30:00",
            "2026-12-08T09:30:00.Z",
            "2026-13-01T00:00:00Z",
            "+10000-01-01T00:00:00Z",
        ] {
            assert!(othismo::text::time(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn strings_escaped_as_few_as_json_allows() {
        let s = othismo::json::encode(&Value::String("a\"b\\c\n\t\u{1}\u{7f}é😀/".into()));
        assert_eq!(
            String::from_utf8(s).unwrap(),
            "\"a\\\"b\\\\c\\n\\t\\u0001\u{7f}é😀/\""
        );
    }

    #[test]
    fn bytes_as_padded_base64_read_strictly() {
        for (b, t) in [
            (&b""[..], ""),
            (b"f", "Zg=="),
            (b"fo", "Zm8="),
            (b"foo", "Zm9v"),
            (b"foob", "Zm9vYg=="),
            (&[0xff, 0xfe, 0x00][..], "//4A"),
        ] {
            let mut out = String::new();
            othismo::text::base64(&mut out, b);
            assert_eq!(out, t);
            assert_eq!(othismo::text::from_base64(t).as_deref(), Ok(b));
        }
        for bad in [
            "Zg", "Zg=", "Zh==", "Z===", "Zm9v\n", "Zm-v", "Zg==Zg==", "====",
        ] {
            assert!(othismo::text::from_base64(bad).is_err(), "{bad}");
        }
    }
}
