//! The seed's conformance suite, from `fixtures/crucible` alone (no daemon,
//! no KVM), and the check that regenerating the fixtures changes nothing.

use std::path::{Path, PathBuf};

use crucible::frame::{Direction, FrameType, HEADER_SIZE, MAX_PAYLOAD, decode_all};
use crucible::io::{FrameReader, FrameWriter, ReadError};
use serde_json::Value;
use sha2::{Digest, Sha256};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/crucible")
}

fn manifest() -> Value {
    serde_json::from_slice(&std::fs::read(dir().join("manifest.json")).unwrap()).unwrap()
}

fn hex(b: &[u8]) -> String {
    Sha256::digest(b)
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect()
}

fn direction(e: &Value) -> Direction {
    match e["direction"].as_str().unwrap() {
        "guest_to_host" => Direction::GuestToHost,
        "host_to_guest" => Direction::HostToGuest,
        d => panic!("direction {d}"),
    }
}

/// Step 1: the manifest's constants are the codec's.
#[test]
fn the_header_constants_match() {
    let m = manifest();
    assert_eq!(m["header_size"], HEADER_SIZE);
    assert_eq!(m["max_payload_size"], MAX_PAYLOAD);
    for t in FrameType::ALL {
        assert_eq!(m["frame_types"][t.name()], t as u8, "{}", t.name());
    }
    assert_eq!(
        m["frame_types"].as_object().unwrap().len(),
        FrameType::ALL.len()
    );
}

/// Step 2: every valid stream decodes to exactly the frames listed, then
/// ends cleanly; read through a blocking reader one byte at a time too.
#[test]
fn valid_streams_decode_to_their_frames() {
    let m = manifest();
    let mut seen = 0;
    for e in m["fixtures"].as_array().unwrap() {
        if e["invalid"].as_bool().unwrap() {
            continue;
        }
        seen += 1;
        let file = e["file"].as_str().unwrap();
        let bytes = std::fs::read(dir().join(file)).unwrap();
        let frames =
            decode_all(&bytes, direction(e)).unwrap_or_else(|(_, err)| panic!("{file}: {err}"));
        let want = e["frames"].as_array().unwrap();
        assert_eq!(frames.len(), want.len(), "{file}");
        for (f, w) in frames.iter().zip(want) {
            assert_eq!(f.kind.name(), w["type"].as_str().unwrap(), "{file}");
            assert_eq!(f.kind as u64, w["type_byte"].as_u64().unwrap(), "{file}");
            assert_eq!(
                f.payload.len() as u64,
                w["length"].as_u64().unwrap(),
                "{file}"
            );
            assert_eq!(hex(&f.payload), w["sha256"].as_str().unwrap(), "{file}");
            if let Some(t) = w["text"].as_str() {
                assert_eq!(f.payload, t.as_bytes(), "{file}");
            }
            if f.kind == FrameType::Exit {
                let r = f.exit_result().unwrap();
                assert_eq!(serde_json::to_value(&r).unwrap(), w["exit"], "{file}");
            }
        }
        // The same through a reader fed one byte per read.
        struct Trickle<'a>(&'a [u8]);
        impl std::io::Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                if self.0.is_empty() || buf.is_empty() {
                    return Ok(0);
                }
                buf[0] = self.0[0];
                self.0 = &self.0[1..];
                Ok(1)
            }
        }
        let mut r = FrameReader::new(Trickle(&bytes), direction(e));
        let mut n = 0;
        while let Some(f) = r.read_frame().unwrap() {
            assert_eq!(f, frames[n]);
            n += 1;
        }
        assert_eq!(n, frames.len());
    }
    assert!(seen >= 6);
}

/// Step 3: every invalid stream is an error, never a clean end, and the
/// error is the failure mode the manifest names.
#[test]
fn invalid_streams_fail_as_the_manifest_says() {
    let m = manifest();
    let mut seen = 0;
    for e in m["fixtures"].as_array().unwrap() {
        if !e["invalid"].as_bool().unwrap() {
            continue;
        }
        seen += 1;
        let file = e["file"].as_str().unwrap();
        let bytes = std::fs::read(dir().join(file)).unwrap();
        let (before, err) = decode_all(&bytes, direction(e)).expect_err(file);
        assert_eq!(err.mode(), e["failure"].as_str().unwrap(), "{file}");
        assert_eq!(
            before.len(),
            e["frames"].as_array().unwrap().len(),
            "{file}"
        );
        let mut r = FrameReader::new(bytes.as_slice(), direction(e));
        let result = loop {
            match r.read_frame() {
                Ok(Some(_)) => continue,
                other => break other,
            }
        };
        assert!(
            matches!(result, Err(ReadError::Frame(_))),
            "{file}: {result:?}"
        );
    }
    assert!(seen >= 8);
}

/// Step 4: encoding the frames of stdin_session.bin gives its bytes.
#[test]
fn the_encoder_writes_the_stdin_session_byte_for_byte() {
    let m = manifest();
    let e = m["fixtures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["file"] == "stdin_session.bin")
        .unwrap();
    assert_eq!(e["direction"], "host_to_guest");
    let mut w = FrameWriter::new(Vec::new());
    for f in e["frames"].as_array().unwrap() {
        match FrameType::from_name(f["type"].as_str().unwrap()).unwrap() {
            FrameType::StdinClose => w.stdin_close().unwrap(),
            kind => w
                .write(kind, f["text"].as_str().unwrap().as_bytes())
                .unwrap(),
        }
    }
    assert_eq!(
        w.into_inner(),
        std::fs::read(dir().join("stdin_session.bin")).unwrap()
    );
}

/// The fixtures are what the codec makes: regenerating changes nothing, and
/// nothing else is in the folder.
#[test]
fn regenerating_the_fixtures_gives_no_diff() {
    let fresh = Path::new(env!("CARGO_TARGET_TMPDIR")).join("crucible_fixtures");
    let _ = std::fs::remove_dir_all(&fresh);
    crucible::fixtures::write(&fresh).unwrap();
    let names = |d: &Path| {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    assert_eq!(names(&fresh), names(&dir()), "the same files");
    for n in names(&fresh) {
        assert!(
            std::fs::read(fresh.join(&n)).unwrap() == std::fs::read(dir().join(&n)).unwrap(),
            "{n} differs: run `cargo run -p crucible --bin gen` and review the change"
        );
    }
}
