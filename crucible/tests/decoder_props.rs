//! Property tests of the decoder: any split of a valid stream decodes to the
//! same frames; any corruption or truncation is an error or a different
//! valid stream, never a panic and never a clean end that loses data.

use crucible::frame::{
    Decoder, Direction, Frame, FrameType, StreamCheck, decode_all, encode_data, encode_frame,
};
use crucible::io::PushReader;
use crucible::wire::ExecResult;
use proptest::prelude::*;

fn output() -> impl Strategy<Value = Vec<(bool, Vec<u8>)>> {
    prop::collection::vec(
        (any::<bool>(), prop::collection::vec(any::<u8>(), 0..3000)),
        0..6,
    )
}

fn encode(parts: &[(bool, Vec<u8>)], code: i32) -> Vec<u8> {
    let mut out = Vec::new();
    for (err, data) in parts {
        let kind = if *err {
            FrameType::Stderr
        } else {
            FrameType::Stdout
        };
        encode_data(kind, data, &mut out);
    }
    let exit = Frame::exit(&ExecResult::code(code));
    encode_frame(FrameType::Exit, &exit.payload, &mut out);
    out
}

/// Decodes `bytes` fed in the pieces `cuts` makes.
fn decode_split(bytes: &[u8], cuts: &[usize]) -> Result<Vec<Frame>, String> {
    let mut r = PushReader::new(Direction::GuestToHost);
    let mut at = 0;
    let mut frames = Vec::new();
    let mut points: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    points.sort();
    points.push(bytes.len());
    for p in points {
        r.feed(&bytes[at..p]);
        at = p;
        while let Some(f) = r.next_frame().map_err(|e| e.to_string())? {
            frames.push(f);
        }
    }
    r.end().map_err(|e| e.to_string())?;
    Ok(frames)
}

proptest! {
    #[test]
    fn any_split_decodes_to_the_same_frames(parts in output(), code in -1i32..256, cuts in prop::collection::vec(any::<usize>(), 0..20)) {
        let bytes = encode(&parts, code);
        let whole = decode_all(&bytes, Direction::GuestToHost).expect("valid");
        prop_assert_eq!(decode_split(&bytes, &cuts).unwrap(), whole.clone());
        prop_assert_eq!(whole.last().unwrap().exit_result().unwrap().exit_code, code);
    }

    #[test]
    fn every_truncation_is_an_error(parts in output(), cut in any::<usize>()) {
        let bytes = encode(&parts, 0);
        let cut = cut % bytes.len();
        prop_assert!(decode_all(&bytes[..cut], Direction::GuestToHost).is_err());
    }

    #[test]
    fn corruption_never_panics_or_ends_cleanly_with_less(parts in output(), at in any::<usize>(), byte in any::<u8>()) {
        let mut bytes = encode(&parts, 0);
        let at = at % bytes.len();
        bytes[at] = byte;
        // Either an error, or a stream that still ends in one exit frame
        // (a changed payload byte is still a valid stream).
        if let Ok(frames) = decode_all(&bytes, Direction::GuestToHost) {
            prop_assert_eq!(frames.last().unwrap().kind, FrameType::Exit);
            prop_assert_eq!(frames.iter().filter(|f| f.kind == FrameType::Exit).count(), 1);
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let mut d = Decoder::new();
        let mut check = StreamCheck::new(Direction::GuestToHost);
        d.feed(&bytes);
        while let Ok(Some(f)) = d.next_frame() {
            if check.check(&f).is_err() {
                break;
            }
        }
        let _ = d.finish();
    }
}
