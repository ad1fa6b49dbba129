//! Request paths, and matching them against header patterns.

use othc::model::{PathPattern, Seg};

/// The segments of a request path; `None` when it is malformed (not
/// starting with `/`, or with an empty, `.` or `..` segment).
pub fn parse(path: &str) -> Option<Vec<String>> {
    let rest = path.strip_prefix('/')?;
    if rest.is_empty() {
        return Some(Vec::new());
    }
    let segs: Vec<String> = rest.split('/').map(str::to_string).collect();
    if segs.iter().any(|s| s.is_empty() || s == "." || s == "..") {
        return None;
    }
    Some(segs)
}

pub fn text(segs: &[String]) -> String {
    if segs.is_empty() {
        "/".into()
    } else {
        segs.iter().map(|s| format!("/{s}")).collect()
    }
}

/// Whether a concrete path matches a pattern (`{x}` one segment, `**` the rest).
pub fn matches(pattern: &[Seg], path: &[String]) -> bool {
    for (i, seg) in pattern.iter().enumerate() {
        match seg {
            Seg::Rest => return true,
            Seg::Lit(l) => {
                if path.get(i) != Some(l) {
                    return false;
                }
            }
            Seg::Capture(_) => {
                if path.get(i).is_none() {
                    return false;
                }
            }
        }
    }
    pattern.len() == path.len()
}

/// `path` with the literal prefix `prefix` taken off.
pub fn strip<'a>(path: &'a [String], prefix: &[Seg]) -> Option<&'a [String]> {
    if prefix.len() > path.len() {
        return None;
    }
    for (s, p) in prefix.iter().zip(path) {
        match s {
            Seg::Lit(l) if l == p => {}
            _ => return None,
        }
    }
    Some(&path[prefix.len()..])
}

/// A path text as literal segments (the `at` of a view entry).
pub fn literal(path: &str) -> PathPattern {
    PathPattern {
        segs: parse(path)
            .unwrap_or_default()
            .into_iter()
            .map(Seg::Lit)
            .collect(),
    }
}
