//! A checked literal in BSON: the bytes the runtime sends (book:
//! reference/wire.md: `$type` first, then the fields in declaration
//! order; `u32` and `i64` as int64, smaller integers as int32, `f32` as the
//! double holding it, `time` as a UTC datetime, `uuid` as binary subtype
//! 4). Written by the Rust SDK's BSON writer from the literal's tree, as
//! JSON is by its JSON writer: one tree, two wires (the SDK's writer is
//! held to the `bson` crate's bytes by `contracts/tests/rust_codec.rs`,
//! and a literal of every type row by `compiler/tests/check_model.rs`).

use othismo::bson::Value;

use super::literal::Checked;

/// The payload of a checked message literal.
pub fn encode(c: &Checked) -> Result<Vec<u8>, String> {
    match c.to_tree() {
        Value::Document(d) => Ok(d.encode()),
        _ => Err("a payload is a message".into()),
    }
}
