use super::*;

/// Every line of `bytes`, read `chunk` bytes at a time (a reader gives
/// what it has: a line may come in many pieces).
fn lines(bytes: &[u8], limit: usize, chunk: usize) -> Vec<InputLine> {
    let mut r = io::BufReader::with_capacity(chunk, bytes);
    std::iter::from_fn(|| read_line(&mut r, limit)).collect()
}

fn text(s: &str) -> InputLine {
    InputLine::Text(s.into())
}

#[test]
fn lines_lose_their_line_ends_and_a_last_line_needs_none() {
    for chunk in [1, 2, 3, 64] {
        assert_eq!(
            lines(b"one\r\ntwo\n\nthree", 100, chunk),
            [text("one"), text("two"), text(""), text("three")],
            "read {chunk} at a time"
        );
    }
    assert_eq!(lines(b"", 100, 8), []);
    assert_eq!(lines(b"\n", 100, 8), [text("")]);
    // A `\r` inside a line is the line's.
    assert_eq!(lines(b"a\rb\n", 100, 8), [text("a\rb")]);
}

#[test]
fn a_line_up_to_the_limit_is_delivered_and_a_longer_one_is_counted_not_held() {
    for chunk in [1, 3, 4096] {
        assert_eq!(
            lines(b"12345\n123456\r\nok\n", 5, chunk),
            [
                text("12345"),
                InputLine::Unfit {
                    bytes: 6,
                    why: Unfit::TooLong
                },
                text("ok")
            ],
            "read {chunk} at a time"
        );
        // The limit counts the line without its `\r`.
        assert_eq!(lines(b"12345\r\n", 5, chunk), [text("12345")]);
    }
    // Ten million bytes with no line end: counted, never held.
    let long = vec![b'x'; 10_000_000];
    let mut r = io::BufReader::new(&long[..]);
    assert_eq!(
        read_line(&mut r, 16),
        Some(InputLine::Unfit {
            bytes: 10_000_000,
            why: Unfit::TooLong
        })
    );
    assert_eq!(read_line(&mut r, 16), None);
}

#[test]
fn a_line_that_is_not_utf8_says_where_and_input_goes_on() {
    assert_eq!(
        lines(b"ok\nab\xffc\nafter\n", 100, 2),
        [
            text("ok"),
            InputLine::Unfit {
                bytes: 4,
                why: Unfit::NotUtf8 { at: 2 }
            },
            text("after")
        ]
    );
    // Cut in the middle of a character by the limit's edge: too long first.
    assert_eq!(
        lines("ééé\n".as_bytes(), 5, 1),
        [InputLine::Unfit {
            bytes: 6,
            why: Unfit::TooLong
        }]
    );
}

/// A reader that fails after what it was given.
struct Failing<'a>(&'a [u8]);

impl io::Read for Failing<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.0.is_empty() {
            return Err(io::Error::other("the disk went away"));
        }
        let n = self.0.len().min(buf.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

#[test]
fn a_read_that_fails_says_so() {
    let mut r = io::BufReader::new(Failing(b"ok\npart"));
    assert_eq!(read_line(&mut r, 100), Some(text("ok")));
    assert_eq!(
        read_line(&mut r, 100),
        Some(InputLine::Failed("the disk went away".into()))
    );
}

/// What `read_line` must give for `bytes`, worked out the plain way: the
/// whole input split at each `\n`, every line held.
fn expected(bytes: &[u8], limit: usize) -> Vec<InputLine> {
    let mut parts: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    if parts.last().is_some_and(|p| p.is_empty()) {
        parts.pop();
    }
    parts
        .into_iter()
        .map(|p| {
            let p = p.strip_suffix(b"\r").unwrap_or(p);
            if p.len() > limit {
                return InputLine::Unfit {
                    bytes: p.len() as u64,
                    why: Unfit::TooLong,
                };
            }
            match std::str::from_utf8(p) {
                Ok(t) => text(t),
                Err(e) => InputLine::Unfit {
                    bytes: p.len() as u64,
                    why: Unfit::NotUtf8 {
                        at: e.valid_up_to() as u64,
                    },
                },
            }
        })
        .collect()
}

#[test]
fn any_input_read_in_any_pieces_gives_the_lines_split_the_plain_way() {
    let mut rng = test_support::Rng::new(35);
    let alphabet: &[u8] = b"ab\r\n\n\xff\xc3\xa9";
    for round in 0..5000 {
        let len = rng.below(40);
        let bytes: Vec<u8> = (0..len)
            .map(|_| alphabet[rng.below(alphabet.len())])
            .collect();
        let limit = rng.below(10);
        let chunk = 1 + rng.below(6);
        assert_eq!(
            lines(&bytes, limit, chunk),
            expected(&bytes, limit),
            "round {round}: {bytes:?}, limit {limit}, read {chunk} at a time"
        );
    }
}
