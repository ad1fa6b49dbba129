//! Whether what was read back is what was written: the same content type
//! and bytes, or for a message the same fields of its schema (a reader
//! keeps no field its schema does not name, and writes no `null`).

use bson::{Bson, Document};
use othc::model::ContentType;
use othismo_runtime::Payload;

/// Why `read` (of content type `ct`) is not `written`; `None` when it is.
pub fn differs(written: &Payload, ct: &str, read: &[u8]) -> Option<String> {
    let (a, b) = (
        ContentType::parse(&written.content_type),
        ContentType::parse(ct),
    );
    if a.essence() != b.essence() {
        return Some(format!(
            "written as `{}`, read back as `{ct}`",
            written.content_type
        ));
    }
    if written.data == read {
        return None;
    }
    let wire = crate::formats::Wire::of(ct);
    if let (Ok(w), Ok(r)) = (wire.decode(&written.data), wire.decode(read))
        && normal(&w) == normal(&r)
    {
        return None;
    }
    let back = Payload {
        content_type: std::sync::Arc::from(ct),
        data: read.to_vec(),
    };
    Some(format!(
        "wrote {}, read back {}",
        crate::inputs::show(written),
        crate::inputs::show(&back)
    ))
}

/// A document without the fields no schema names and without nulls.
fn normal(d: &Document) -> Document {
    d.iter()
        .filter(|(k, v)| !k.starts_with("zzUnknown") && !matches!(v, Bson::Null))
        .map(|(k, v)| {
            let v = match v {
                Bson::Document(inner) => Bson::Document(normal(inner)),
                other => other.clone(),
            };
            (k.clone(), v)
        })
        .collect()
}
