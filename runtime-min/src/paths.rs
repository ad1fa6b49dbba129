//! Request paths: parsed into literal segments, so the compiler's matching
//! rules (`othc::check::matching`) apply to them as they are.

use othc::model::{PathPattern, Seg};

/// The segments of a request path; `None` when it is malformed (not
/// starting with `/`, or with an empty, `.` or `..` segment).
pub fn parse(path: &str) -> Option<Vec<Seg>> {
    let rest = path.strip_prefix('/')?;
    if rest.is_empty() {
        return Some(Vec::new());
    }
    let segs: Vec<&str> = rest.split('/').collect();
    if segs.iter().any(|s| s.is_empty() || *s == "." || *s == "..") {
        return None;
    }
    Some(segs.into_iter().map(|s| Seg::Lit(s.to_string())).collect())
}

pub fn text(segs: &[Seg]) -> String {
    PathPattern {
        segs: segs.to_vec(),
    }
    .to_string()
}
