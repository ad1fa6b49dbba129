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

/// A path as text: `/` and its segments.
pub fn text(segs: &[Seg]) -> String {
    if segs.iter().all(|s| matches!(s, Seg::Lit(_))) {
        let mut out =
            String::with_capacity(segs.iter().map(|s| seg_len(s) + 1).sum::<usize>().max(1));
        for s in segs {
            if let Seg::Lit(l) = s {
                out.push('/');
                out.push_str(l);
            }
        }
        if out.is_empty() {
            out.push('/');
        }
        return out;
    }
    PathPattern {
        segs: segs.to_vec(),
    }
    .to_string()
}

fn seg_len(s: &Seg) -> usize {
    match s {
        Seg::Lit(l) => l.len(),
        _ => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_parse_and_print_back() {
        for p in ["/", "/a", "/a/b.txt"] {
            assert_eq!(text(&parse(p).unwrap()), p);
        }
        for bad in ["", "a", "/a/", "//", "/a/../b", "/./a"] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }
}
