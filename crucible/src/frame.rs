//! The frame codec (crucible wire protocol, book: reference/crucible.md): an 8-byte header
//! (type, three zero bytes, payload length as a big-endian u32) and at most
//! 65536 bytes of payload. Sans-IO: [`Decoder`] takes bytes split or packed
//! in any way and yields whole frames; [`StreamCheck`] holds a stream to the
//! rules of its direction (exactly one exit frame, then EOF). The blocking
//! and async readers and writers (`io.rs`) are thin shells over these.

use crate::wire::ExecResult;

/// The header's size.
pub const HEADER_SIZE: usize = 8;
/// The largest payload one frame carries; larger writes are chunked.
pub const MAX_PAYLOAD: usize = 65536;

/// Frame types: frozen, they travel on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FrameType {
    Stdin = 0,
    Stdout = 1,
    Stderr = 2,
    Exit = 3,
    StdinClose = 4,
}

impl FrameType {
    pub const ALL: [FrameType; 5] = [
        FrameType::Stdin,
        FrameType::Stdout,
        FrameType::Stderr,
        FrameType::Exit,
        FrameType::StdinClose,
    ];

    pub fn from_byte(b: u8) -> Option<FrameType> {
        FrameType::ALL.get(b as usize).copied()
    }

    /// The name the fixture manifest uses.
    pub fn name(self) -> &'static str {
        match self {
            FrameType::Stdin => "stdin",
            FrameType::Stdout => "stdout",
            FrameType::Stderr => "stderr",
            FrameType::Exit => "exit",
            FrameType::StdinClose => "stdin_close",
        }
    }

    pub fn from_name(n: &str) -> Option<FrameType> {
        FrameType::ALL.into_iter().find(|t| t.name() == n)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub kind: FrameType,
    pub payload: Vec<u8>,
}

impl Frame {
    pub fn new(kind: FrameType, payload: impl Into<Vec<u8>>) -> Frame {
        Frame {
            kind,
            payload: payload.into(),
        }
    }

    /// An exit frame carrying `result`.
    pub fn exit(result: &ExecResult) -> Frame {
        // However the result was made, its error text is bounded, so the
        // frame always fits.
        let result = ExecResult {
            exit_code: result.exit_code,
            error: result.error.clone().map(crate::wire::bounded),
        };
        Frame::new(
            FrameType::Exit,
            serde_json::to_vec(&result).expect("an ExecResult serializes"),
        )
    }

    /// The result an exit frame carries.
    pub fn exit_result(&self) -> Result<ExecResult, FrameError> {
        serde_json::from_slice(&self.payload).map_err(|e| FrameError::BadExit(e.to_string()))
    }
}

/// Why a stream is broken. Never a clean end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrameError {
    /// A header declares more than [`MAX_PAYLOAD`].
    Oversize {
        declared: u32,
    },
    /// The stream ended inside a header.
    TruncatedHeader {
        got: usize,
    },
    /// The stream ended inside a payload.
    TruncatedPayload {
        declared: u32,
        got: usize,
    },
    /// A reserved header byte (1–3) is not zero.
    ReservedByte {
        index: usize,
        value: u8,
    },
    UnknownType(u8),
    /// A response stream ended without its exit frame: the command was lost.
    MissingExit,
    /// A frame came after the exit frame (or after stdin_close).
    AfterEnd(FrameType),
    /// A frame type that does not travel in this direction.
    WrongDirection(FrameType),
    /// An exit frame whose payload is not an ExecResult.
    BadExit(String),
}

impl FrameError {
    /// The failure mode's name, as the fixture manifest gives it.
    pub fn mode(&self) -> &'static str {
        match self {
            FrameError::Oversize { .. } => "oversize",
            FrameError::TruncatedHeader { .. } => "truncated_header",
            FrameError::TruncatedPayload { .. } => "truncated_payload",
            FrameError::ReservedByte { .. } => "reserved_byte",
            FrameError::UnknownType(_) => "unknown_type",
            FrameError::MissingExit => "missing_exit",
            FrameError::AfterEnd(_) => "frame_after_end",
            FrameError::WrongDirection(_) => "wrong_direction",
            FrameError::BadExit(_) => "bad_exit_payload",
        }
    }
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrameError::Oversize { declared } => write!(
                f,
                "a frame declares {declared} bytes of payload, over the maximum of {MAX_PAYLOAD}"
            ),
            FrameError::TruncatedHeader { got } => write!(
                f,
                "the stream ended inside a frame header ({got} of {HEADER_SIZE} bytes)"
            ),
            FrameError::TruncatedPayload { declared, got } => write!(
                f,
                "the stream ended inside a frame payload ({got} of {declared} bytes)"
            ),
            FrameError::ReservedByte { index, value } => {
                write!(f, "reserved header byte {index} is {value:#04x}, not zero")
            }
            FrameError::UnknownType(t) => write!(f, "unknown frame type {t}"),
            FrameError::MissingExit => {
                f.write_str("the stream ended without an exit frame: the command was lost")
            }
            FrameError::AfterEnd(t) => {
                write!(f, "a {} frame after the end of the stream", t.name())
            }
            FrameError::WrongDirection(t) => {
                write!(f, "a {} frame does not travel in this direction", t.name())
            }
            FrameError::BadExit(e) => write!(f, "the exit frame is not an ExecResult: {e}"),
        }
    }
}

impl std::error::Error for FrameError {}

/// The header of a frame of `kind` with `len` bytes of payload.
pub fn header(kind: FrameType, len: usize) -> [u8; HEADER_SIZE] {
    assert!(
        len <= MAX_PAYLOAD,
        "a frame payload is at most {MAX_PAYLOAD} bytes"
    );
    let l = (len as u32).to_be_bytes();
    [kind as u8, 0, 0, 0, l[0], l[1], l[2], l[3]]
}

/// Appends one frame, whose payload must fit ([`MAX_PAYLOAD`]).
pub fn encode_frame(kind: FrameType, payload: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(&header(kind, payload.len()));
    out.extend_from_slice(payload);
}

/// Appends a logical write of `data` as consecutive frames of `kind`, each at
/// most [`MAX_PAYLOAD`]; nothing for no data.
pub fn encode_data(kind: FrameType, data: &[u8], out: &mut Vec<u8>) {
    for chunk in data.chunks(MAX_PAYLOAD) {
        encode_frame(kind, chunk, out);
    }
}

/// Decodes frames from bytes fed in pieces of any size.
#[derive(Default)]
pub struct Decoder {
    buf: Vec<u8>,
    start: usize,
}

impl Decoder {
    pub fn new() -> Decoder {
        Decoder::default()
    }

    pub fn feed(&mut self, bytes: &[u8]) {
        if self.start > 0 && self.start == self.buf.len() {
            self.buf.clear();
            self.start = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// The next whole frame, `None` when more bytes are needed. A bad header
    /// is an error as soon as its 8 bytes are in.
    pub fn next_frame(&mut self) -> Result<Option<Frame>, FrameError> {
        let avail = &self.buf[self.start..];
        if avail.len() < HEADER_SIZE {
            return Ok(None);
        }
        let (kind, len) = parse_header(avail[..HEADER_SIZE].try_into().expect("8 bytes"))?;
        if avail.len() < HEADER_SIZE + len {
            return Ok(None);
        }
        let payload = avail[HEADER_SIZE..HEADER_SIZE + len].to_vec();
        self.start += HEADER_SIZE + len;
        if self.start > 1 << 20 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        Ok(Some(Frame { kind, payload }))
    }

    /// At the end of the input: an error if it stopped inside a frame.
    pub fn finish(&self) -> Result<(), FrameError> {
        let avail = &self.buf[self.start..];
        if avail.is_empty() {
            return Ok(());
        }
        if avail.len() < HEADER_SIZE {
            return Err(FrameError::TruncatedHeader { got: avail.len() });
        }
        let (_, len) = parse_header(avail[..HEADER_SIZE].try_into().expect("8 bytes"))?;
        Err(FrameError::TruncatedPayload {
            declared: len as u32,
            got: avail.len() - HEADER_SIZE,
        })
    }
}

/// A header's type and length, or why it is not one.
pub fn parse_header(h: &[u8; HEADER_SIZE]) -> Result<(FrameType, usize), FrameError> {
    let kind = FrameType::from_byte(h[0]).ok_or(FrameError::UnknownType(h[0]))?;
    for (index, value) in h.iter().enumerate().take(4).skip(1) {
        if *value != 0 {
            return Err(FrameError::ReservedByte {
                index,
                value: *value,
            });
        }
    }
    let declared = u32::from_be_bytes([h[4], h[5], h[6], h[7]]);
    if declared as usize > MAX_PAYLOAD {
        return Err(FrameError::Oversize { declared });
    }
    Ok((kind, declared as usize))
}

/// Which way a stream goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// stdout, stderr, then exactly one exit frame, then EOF.
    GuestToHost,
    /// stdin, then at most one stdin_close, then EOF.
    HostToGuest,
}

impl Direction {
    pub fn name(self) -> &'static str {
        match self {
            Direction::GuestToHost => "guest_to_host",
            Direction::HostToGuest => "host_to_guest",
        }
    }
}

/// Holds a stream to the rules of its direction.
pub struct StreamCheck {
    dir: Direction,
    ended: bool,
}

impl StreamCheck {
    pub fn new(dir: Direction) -> StreamCheck {
        StreamCheck { dir, ended: false }
    }

    /// Whether the stream's last frame (exit, or stdin_close) has come.
    pub fn ended(&self) -> bool {
        self.ended
    }

    pub fn check(&mut self, f: &Frame) -> Result<(), FrameError> {
        if self.ended {
            return Err(FrameError::AfterEnd(f.kind));
        }
        let allowed = match self.dir {
            Direction::GuestToHost => {
                matches!(
                    f.kind,
                    FrameType::Stdout | FrameType::Stderr | FrameType::Exit
                )
            }
            Direction::HostToGuest => matches!(f.kind, FrameType::Stdin | FrameType::StdinClose),
        };
        if !allowed {
            return Err(FrameError::WrongDirection(f.kind));
        }
        if f.kind == FrameType::Exit {
            f.exit_result()?;
        }
        self.ended = matches!(f.kind, FrameType::Exit | FrameType::StdinClose);
        Ok(())
    }

    /// At EOF: a response stream must have had its exit frame.
    pub fn at_eof(&self) -> Result<(), FrameError> {
        if self.dir == Direction::GuestToHost && !self.ended {
            return Err(FrameError::MissingExit);
        }
        Ok(())
    }
}

/// Decodes a whole stream held in memory: every frame, or the first error.
pub fn decode_all(bytes: &[u8], dir: Direction) -> Result<Vec<Frame>, (Vec<Frame>, FrameError)> {
    let mut d = Decoder::new();
    let mut check = StreamCheck::new(dir);
    let mut frames = Vec::new();
    d.feed(bytes);
    loop {
        match d.next_frame() {
            Ok(Some(f)) => {
                if let Err(e) = check.check(&f) {
                    return Err((frames, e));
                }
                frames.push(f);
            }
            Ok(None) => break,
            Err(e) => return Err((frames, e)),
        }
    }
    if let Err(e) = d.finish().and_then(|_| check.at_eof()) {
        return Err((frames, e));
    }
    Ok(frames)
}

/// Consecutive frames of one type as one stream: chunk boundaries carry no
/// meaning, so readers join them.
pub fn coalesce(frames: &[Frame]) -> Vec<Frame> {
    let mut out: Vec<Frame> = Vec::new();
    for f in frames {
        match out.last_mut() {
            Some(last)
                if last.kind == f.kind
                    && matches!(
                        f.kind,
                        FrameType::Stdin | FrameType::Stdout | FrameType::Stderr
                    ) =>
            {
                last.payload.extend_from_slice(&f.payload)
            }
            _ => out.push(f.clone()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_is_laid_out_as_abi_md_says() {
        assert_eq!(header(FrameType::Stderr, 0x0102), [2, 0, 0, 0, 0, 0, 1, 2]);
        let types: Vec<u8> = FrameType::ALL.iter().map(|t| *t as u8).collect();
        assert_eq!(types, [0, 1, 2, 3, 4]);
    }

    #[test]
    fn large_writes_are_chunked_and_read_back_as_one() {
        let data: Vec<u8> = (0..150_000u32).map(|i| i as u8).collect();
        let mut out = Vec::new();
        encode_data(FrameType::Stdout, &data, &mut out);
        encode_frame(FrameType::Exit, br#"{"exit_code":0}"#, &mut out);
        let frames = decode_all(&out, Direction::GuestToHost).unwrap();
        let lens: Vec<usize> = frames.iter().map(|f| f.payload.len()).collect();
        assert_eq!(lens, [65536, 65536, 18928, 15]);
        assert_eq!(coalesce(&frames)[0].payload, data);
    }
}
