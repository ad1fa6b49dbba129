//! The conformance fixtures (`fixtures/crucible/`): recorded frame streams
//! made with this codec, and `manifest.json` derived by decoding them again,
//! so the two cannot disagree. `cargo run -p crucible --bin gen` writes them;
//! a test regenerates them and fails on any difference.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::frame::{
    Direction, FrameType, HEADER_SIZE, MAX_PAYLOAD, decode_all, encode_frame, header,
};
use crate::io;
use crate::wire::ExecResult;

/// One recorded stream.
pub struct Fixture {
    pub file: &'static str,
    pub description: &'static str,
    pub direction: Direction,
    pub bytes: Vec<u8>,
}

fn stream(parts: &[(FrameType, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    for (kind, data) in parts {
        out.extend(io::encode(*kind, data));
    }
    out
}

fn exit(code: i32) -> Vec<u8> {
    io::encode_exit(&ExecResult::code(code))
}

/// Every fixture, valid ones first.
pub fn all() -> Vec<Fixture> {
    use Direction::*;
    use FrameType::*;
    let big: Vec<u8> = (0..150_000u32).map(|i| b'a' + (i % 26) as u8).collect();
    let mut v = vec![
        Fixture {
            file: "hello.bin",
            description: "`echo hello`: one stdout frame, exit 0",
            direction: GuestToHost,
            bytes: [stream(&[(Stdout, b"hello\n")]), exit(0)].concat(),
        },
        Fixture {
            file: "interleaved.bin",
            description: "stdout and stderr interleaved, exit 3",
            direction: GuestToHost,
            bytes: [
                stream(&[
                    (Stdout, b"one\n"),
                    (Stderr, b"warning: two\n"),
                    (Stdout, b"three\n"),
                ]),
                exit(3),
            ]
            .concat(),
        },
        Fixture {
            file: "chunked.bin",
            description: "a 150000-byte write chunked into 65536 + 65536 + 18928, exit 0: one stream",
            direction: GuestToHost,
            bytes: [stream(&[(Stdout, &big)]), exit(0)].concat(),
        },
        Fixture {
            file: "empty_frame.bin",
            description: "a zero-length stdout frame (legal, meaningless), then exit 0",
            direction: GuestToHost,
            bytes: {
                let mut b = Vec::new();
                encode_frame(Stdout, b"", &mut b);
                [b, exit(0)].concat()
            },
        },
        Fixture {
            file: "binary.bin",
            description: "stdout that is not text (every byte value), exit 0",
            direction: GuestToHost,
            bytes: {
                let all: Vec<u8> = (0..=255u8).collect();
                [stream(&[(Stdout, &all)]), exit(0)].concat()
            },
        },
        Fixture {
            file: "lost.bin",
            description: "the command was lost after the 200: the daemon's synthesized exit, -1 with an error",
            direction: GuestToHost,
            bytes: [
                stream(&[(Stdout, b"partial")]),
                io::encode_exit(&ExecResult::lost("agent unreachable")),
            ]
            .concat(),
        },
        Fixture {
            file: "stdin_session.bin",
            description: "what a client sends: stdin lines, then stdin_close",
            direction: HostToGuest,
            bytes: stream(&[
                (Stdin, b"ls /\n"),
                (Stdin, b"echo done\n"),
                (StdinClose, b""),
            ]),
        },
    ];
    let hello = [stream(&[(Stdout, b"hello\n")]), exit(0)].concat();
    let invalid = [
        (
            "truncated_header.bin",
            "the stream ends 5 bytes into a header",
            [stream(&[(Stdout, b"hi")]), header(Stdout, 3)[..5].to_vec()].concat(),
        ),
        (
            "truncated_payload.bin",
            "the stream ends 4 bytes into a 10-byte payload",
            {
                let mut b = header(Stdout, 10).to_vec();
                b.extend_from_slice(b"0123");
                b
            },
        ),
        ("oversize.bin", "a header declares 65537 bytes", {
            let mut b = vec![Stdout as u8, 0, 0, 0];
            b.extend_from_slice(&((MAX_PAYLOAD as u32) + 1).to_be_bytes());
            b.extend(std::iter::repeat_n(b'x', 16));
            b
        }),
        (
            "missing_exit.bin",
            "output, then EOF with no exit frame: the command was lost",
            stream(&[(Stdout, b"where did it go\n")]),
        ),
        (
            "after_exit.bin",
            "a stdout frame after the exit frame",
            [hello.clone(), stream(&[(Stdout, b"late\n")])].concat(),
        ),
        (
            "two_exits.bin",
            "two exit frames",
            [hello.clone(), exit(1)].concat(),
        ),
        (
            "reserved_byte.bin",
            "a header whose reserved byte 2 is not zero",
            {
                let mut b = header(Stdout, 2).to_vec();
                b[2] = 1;
                b.extend_from_slice(b"hi");
                [b, exit(0)].concat()
            },
        ),
        ("unknown_type.bin", "a frame of type 9", {
            let mut b = header(Stdout, 2).to_vec();
            b[0] = 9;
            b.extend_from_slice(b"hi");
            [b, exit(0)].concat()
        }),
        (
            "bad_exit.bin",
            "an exit frame whose payload is not an ExecResult",
            {
                let mut b = Vec::new();
                encode_frame(Exit, b"exit 0", &mut b);
                b
            },
        ),
        (
            "stdin_in_output.bin",
            "a stdin frame in a response stream",
            [stream(&[(Stdin, b"ls\n")]), exit(0)].concat(),
        ),
    ];
    for (file, description, bytes) in invalid {
        v.push(Fixture {
            file,
            description,
            direction: GuestToHost,
            bytes,
        });
    }
    v
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub header_size: usize,
    pub max_payload_size: usize,
    /// Where each header field is: type at byte 0, bytes 1–3 zero, length
    /// at 4–7 big-endian.
    pub header_layout: String,
    pub frame_types: std::collections::BTreeMap<String, u8>,
    pub fixtures: Vec<Entry>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub file: String,
    pub description: String,
    pub direction: String,
    pub invalid: bool,
    /// For an invalid stream: how decoding must fail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// The frames decoded (for an invalid stream: before the failure).
    pub frames: Vec<FrameEntry>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FrameEntry {
    #[serde(rename = "type")]
    pub kind: String,
    pub type_byte: u8,
    pub length: usize,
    pub sha256: String,
    /// The payload, when it is short printable text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// An exit frame's ExecResult.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<ExecResult>,
}

pub fn sha256_hex(b: &[u8]) -> String {
    Sha256::digest(b)
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect()
}

/// Short, printable text (whitespace allowed): what the manifest shows.
fn printable(b: &[u8]) -> Option<String> {
    let s = std::str::from_utf8(b).ok()?;
    (b.len() <= 256 && s.chars().all(|c| !c.is_control() || c == '\n' || c == '\t'))
        .then(|| s.to_string())
}

/// The manifest, from decoding each fixture again.
pub fn manifest(fixtures: &[Fixture]) -> Manifest {
    let entries = fixtures
        .iter()
        .map(|f| {
            let (frames, failure) = match decode_all(&f.bytes, f.direction) {
                Ok(frames) => (frames, None),
                Err((frames, e)) => (frames, Some(e.mode().to_string())),
            };
            Entry {
                file: f.file.into(),
                description: f.description.into(),
                direction: f.direction.name().into(),
                invalid: failure.is_some(),
                failure,
                frames: frames
                    .iter()
                    .map(|fr| FrameEntry {
                        kind: fr.kind.name().into(),
                        type_byte: fr.kind as u8,
                        length: fr.payload.len(),
                        sha256: sha256_hex(&fr.payload),
                        text: if fr.kind == FrameType::Exit {
                            None
                        } else {
                            printable(&fr.payload)
                        },
                        exit: (fr.kind == FrameType::Exit)
                            .then(|| fr.exit_result().ok())
                            .flatten(),
                    })
                    .collect(),
            }
        })
        .collect();
    Manifest {
        header_size: HEADER_SIZE,
        max_payload_size: MAX_PAYLOAD,
        header_layout: "type[1] reserved[3]=0 length[4] big-endian".into(),
        frame_types: FrameType::ALL
            .iter()
            .map(|t| (t.name().to_string(), *t as u8))
            .collect(),
        fixtures: entries,
    }
}

/// Writes every fixture and the manifest into `dir`.
pub fn write(dir: &std::path::Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let all = all();
    for f in &all {
        std::fs::write(dir.join(f.file), &f.bytes)?;
    }
    let mut json = serde_json::to_string_pretty(&manifest(&all)).map_err(std::io::Error::other)?;
    json.push('\n');
    std::fs::write(dir.join("manifest.json"), json)
}
