//! Paths and path patterns: how a pattern covers a path, which prefix a
//! path lies under, and how a request path is read. Every part of the
//! toolchain that compares paths (the checker, the bundle writer, the
//! runtime, the generated servers' routing order) calls these.

use crate::model::{PathPattern, Seg};

/// A serve pattern covers a need pattern: a literal is covered by the same
/// literal, by `{x}` or by `**`; `{x}` only by `{y}` or `**`; `**` only by `**`.
pub fn path_covers(serve: &[Seg], need: &[Seg]) -> bool {
    let mut i = 0;
    loop {
        match (serve.get(i), need.get(i)) {
            (Some(Seg::Rest), _) => return true,
            (None, None) => return true,
            (None, Some(_)) | (Some(_), None) => return false,
            (Some(Seg::Literal(s)), Some(Seg::Literal(n))) if s == n => {}
            (Some(Seg::Capture(_)), Some(Seg::Literal(_) | Seg::Capture(_))) => {}
            _ => return false,
        }
        i += 1;
    }
}

/// Whether a serve pattern can match some path at or under `prefix`: what
/// a mount or export source needs to point at something.
pub fn reaches_under(serve: &[Seg], prefix: &[Seg]) -> bool {
    for (i, p) in prefix.iter().enumerate() {
        match (serve.get(i), p) {
            (Some(Seg::Rest), _) => return true,
            (None, _) => return false,
            (Some(Seg::Literal(s)), Seg::Literal(n)) if s == n => {}
            (Some(Seg::Capture(_)), Seg::Literal(_) | Seg::Capture(_)) => {}
            _ => return false,
        }
    }
    true
}

/// Segment-by-segment preference: literal over `{name}` over `**`. Lower
/// sorts first, i.e. is preferred.
pub fn specificity(pattern: &[Seg]) -> Vec<u8> {
    pattern
        .iter()
        .map(|s| match s {
            Seg::Literal(_) => 0,
            Seg::Capture(_) => 1,
            Seg::Rest => 2,
        })
        .collect()
}

/// Whether `path` has `prefix` as its leading literal segments; what is
/// left of `path` after them.
pub fn strip_prefix<'a>(path: &'a [Seg], prefix: &[Seg]) -> Option<&'a [Seg]> {
    if prefix.len() > path.len() {
        return None;
    }
    prefix
        .iter()
        .zip(path)
        .all(|(a, b)| matches!((a, b), (Seg::Literal(x), Seg::Literal(y)) if x == y))
        .then(|| &path[prefix.len()..])
}

/// The segments of a request path as an object sends it; `None` when it
/// is malformed (not starting with `/`, or with an empty, `.` or `..`
/// segment). A request path is concrete: `{x}` and `**` in it are plain
/// names, as the runtime carries them.
pub fn parse_request(path: &str) -> Option<Vec<Seg>> {
    let rest = path.strip_prefix('/')?;
    if rest.is_empty() {
        return Some(Vec::new());
    }
    let mut segs = Vec::with_capacity(rest.bytes().filter(|b| *b == b'/').count() + 1);
    for s in rest.split('/') {
        if s.is_empty() || s == "." || s == ".." {
            return None;
        }
        segs.push(Seg::Literal(s.to_string()));
    }
    Some(segs)
}

/// A path as text: `/` and its segments (patterns as written).
pub fn text(segs: &[Seg]) -> String {
    let literal_len: usize = segs
        .iter()
        .map(|s| match s {
            Seg::Literal(l) => l.len() + 1,
            _ => 3,
        })
        .sum();
    let mut out = String::with_capacity(literal_len.max(1));
    push_text(&mut out, segs);
    out
}

/// Appends `text(segs)` to `out`: the runtime writes each request's path
/// into one buffer it keeps, instead of a string per request.
pub fn push_text(out: &mut String, segs: &[Seg]) {
    if segs.iter().all(|s| matches!(s, Seg::Literal(_))) {
        for s in segs {
            if let Seg::Literal(l) = s {
                out.push('/');
                out.push_str(l);
            }
        }
        if segs.is_empty() {
            out.push('/');
        }
    } else {
        use std::fmt::Write as _;
        let _ = write!(
            out,
            "{}",
            PathPattern {
                segs: segs.to_vec()
            }
        );
    }
}

/// Whether one of `a` and `b` is a prefix of the other: a link at one
/// takes requests a need at the other may send (the need's mount under the
/// link, or the link under the mount).
pub fn nested(a: &[Seg], b: &[Seg]) -> bool {
    strip_prefix(a, b).is_some() || strip_prefix(b, a).is_some()
}

/// The link among `links` (each an `at` and a value) with the longest `at`
/// that is a prefix of `path` (of equal ones, the last), and the rest of
/// the path. The one rule for views, exposures and exports.
pub fn longest<'p, T>(
    links: impl IntoIterator<Item = (&'p [Seg], T)>,
    path: &'p [Seg],
) -> Option<(T, &'p [Seg])> {
    let mut best: Option<(usize, T, &[Seg])> = None;
    for (at, v) in links {
        if let Some(rest) = strip_prefix(path, at)
            && best.as_ref().is_none_or(|(len, _, _)| at.len() >= *len)
        {
            best = Some((at.len(), v, rest));
        }
    }
    best.map(|(_, v, rest)| (v, rest))
}

#[cfg(test)]
pub(crate) fn segs(p: &str) -> Vec<Seg> {
    p.split('/')
        .filter(|s| !s.is_empty())
        .map(|s| {
            if s == "**" {
                Seg::Rest
            } else if let Some(c) = s.strip_prefix('{') {
                Seg::Capture(c.trim_end_matches('}').into())
            } else {
                Seg::Literal(s.into())
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_cover_paths() {
        assert!(path_covers(&segs("/a"), &segs("/a")));
        assert!(path_covers(&segs("/{x}"), &segs("/a")));
        assert!(path_covers(&segs("/**"), &segs("/a/b")));
        assert!(path_covers(&segs("/a/**"), &segs("/a")));
        assert!(path_covers(&segs("/{x}"), &segs("/{y}")));
        assert!(!path_covers(&segs("/a"), &segs("/{y}")));
        assert!(!path_covers(&segs("/{x}"), &segs("/**")));
        assert!(path_covers(&segs("/**"), &segs("/**")));
        assert!(!path_covers(&segs("/a"), &segs("/a/b")));
        assert!(!path_covers(&segs("/"), &segs("/a")));
        assert!(specificity(&segs("/a/{x}")) < specificity(&segs("/a/**")));
        assert!(reaches_under(&segs("/a/{x}"), &segs("/a")));
        assert!(!reaches_under(&segs("/b"), &segs("/a")));
        assert!(reaches_under(&segs("/**"), &segs("/a/b")));
    }

    #[test]
    fn request_paths_parse_and_print_back() {
        for p in ["/", "/a", "/a/b.txt", "/{x}/**"] {
            assert_eq!(text(&parse_request(p).unwrap()), p);
        }
        for bad in ["", "a", "/a/", "//", "/a/../b", "/./a"] {
            assert_eq!(parse_request(bad), None, "{bad}");
        }
    }

    #[test]
    fn paths_are_appended_as_text_prints_them() {
        let mut out = String::from(">");
        for p in ["/", "/a/b", "/a/{x}/**"] {
            push_text(&mut out, &segs(p));
            assert_eq!(text(&segs(p)), p);
        }
        assert_eq!(out, ">//a/b/a/{x}/**");
    }

    #[test]
    fn paths_are_nested_when_either_is_under_the_other() {
        let p = |t: &str| parse_request(t).unwrap();
        assert!(nested(&p("/dev/cons"), &p("/dev")));
        assert!(nested(&p("/dev"), &p("/dev/cons")));
        assert!(nested(&p("/dev"), &p("/dev")));
        assert!(nested(&p("/"), &p("/x")));
        assert!(!nested(&p("/dev/cons"), &p("/dev/null")));
        assert!(!nested(&p("/devices"), &p("/dev")));
    }
}
