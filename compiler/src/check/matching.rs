//! The matching rules of checks.md: which payload types cover which, which
//! serve patterns cover which need patterns, and which of several covering
//! patterns a request is routed to.

use crate::model::{ContentType, Model, PayloadType, Seg};

/// `covers(a, b)`: every payload of type `b` is also of type `a`.
pub fn covers(model: &Model, a: &PayloadType, b: &PayloadType) -> bool {
    match (a, b) {
        (PayloadType::Unknown, _) | (_, PayloadType::Unknown) => true,
        (PayloadType::Content(a), PayloadType::Content(b)) => content_covers(a, &parse(&b.text)),
        (PayloadType::Content(a), PayloadType::Message(m)) => {
            content_covers(a, &parse(&model.ty(*m).format))
        }
        // Same name: the same type, once E0304 has proved the declarations agree.
        (PayloadType::Message(x), PayloadType::Message(y)) => {
            model.ty(*x).name == model.ty(*y).name
        }
        (PayloadType::Message(_), PayloadType::Content(_)) => false,
    }
}

/// The request direction: every alternative the need may send is taken by
/// some alternative of the serve. No payload is met only by no payload.
pub fn request_met(model: &Model, serve: &[PayloadType], need: &[PayloadType]) -> bool {
    if need.is_empty() || serve.is_empty() {
        return need.is_empty() == serve.is_empty();
    }
    need.iter()
        .all(|n| serve.iter().any(|s| covers(model, s, n)))
}

/// A media type as `mime` reads it; the lexer has already proved it well
/// formed, so a failure here only means `mime` is stricter (then it fits
/// only itself).
enum Parsed {
    Mime(mime::Mime),
    Raw(String),
}

fn parse(text: &str) -> Parsed {
    match text.parse::<mime::Mime>() {
        Ok(m) => Parsed::Mime(m),
        Err(_) => Parsed::Raw(text.to_ascii_lowercase()),
    }
}

fn content_covers(a: &ContentType, b: &Parsed) -> bool {
    let (a, b) = match (parse(&a.text), b) {
        (Parsed::Mime(a), Parsed::Mime(b)) => (a, b),
        (Parsed::Raw(a), Parsed::Raw(b)) => return a == *b,
        _ => return false,
    };
    let star = mime::STAR.as_str();
    let types = if a.type_().as_str() == star {
        a.subtype().as_str() == star
    } else if a.type_() != b.type_() {
        false
    } else {
        a.subtype().as_str() == star || a.subtype() == b.subtype()
    };
    // A parameter `a` writes must be present and equal in `b`; one it
    // leaves out constrains nothing. Names compare without regard to case,
    // and so do charset values (RFC 2046); other values exactly.
    types
        && a.params().all(|(name, value)| {
            b.params().any(|(n, v)| {
                n == name
                    && if name == mime::CHARSET {
                        v.as_str().eq_ignore_ascii_case(value.as_str())
                    } else {
                        v.as_str() == value.as_str()
                    }
            })
        })
}

/// A serve pattern covers a need pattern: a literal is covered by the same
/// literal, by `{x}` or by `**`; `{x}` only by `{y}` or `**`; `**` only by `**`.
pub fn path_covers(serve: &[Seg], need: &[Seg]) -> bool {
    let mut i = 0;
    loop {
        match (serve.get(i), need.get(i)) {
            (Some(Seg::Rest), _) => return true,
            (None, None) => return true,
            (None, Some(_)) | (Some(_), None) => return false,
            (Some(Seg::Lit(s)), Some(Seg::Lit(n))) if s == n => {}
            (Some(Seg::Capture(_)), Some(Seg::Lit(_) | Seg::Capture(_))) => {}
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
            (Some(Seg::Lit(s)), Seg::Lit(n)) if s == n => {}
            (Some(Seg::Capture(_)), Seg::Lit(_) | Seg::Capture(_)) => {}
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
            Seg::Lit(_) => 0,
            Seg::Capture(_) => 1,
            Seg::Rest => 2,
        })
        .collect()
}

/// Whether `path` has `prefix` as its leading literal segments.
pub fn strip_prefix<'a>(path: &'a [Seg], prefix: &[Seg]) -> Option<&'a [Seg]> {
    if prefix.len() > path.len() {
        return None;
    }
    prefix
        .iter()
        .zip(path)
        .all(|(a, b)| matches!((a, b), (Seg::Lit(x), Seg::Lit(y)) if x == y))
        .then(|| &path[prefix.len()..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ct(text: &str) -> PayloadType {
        let (ty, rest) = text.split_once('/').unwrap();
        let subtype = rest.split(';').next().unwrap().trim();
        PayloadType::Content(ContentType {
            text: text.into(),
            ty: ty.into(),
            subtype: subtype.into(),
            params: Vec::new(),
        })
    }

    fn segs(p: &str) -> Vec<Seg> {
        p.split('/')
            .filter(|s| !s.is_empty())
            .map(|s| {
                if s == "**" {
                    Seg::Rest
                } else if let Some(c) = s.strip_prefix('{') {
                    Seg::Capture(c.trim_end_matches('}').into())
                } else {
                    Seg::Lit(s.into())
                }
            })
            .collect()
    }

    #[test]
    fn content_types() {
        let m = Model::default();
        let c = |a: &str, b: &str| covers(&m, &ct(a), &ct(b));
        assert!(c("*/*", "text/plain"));
        assert!(c("text/*", "text/plain"));
        assert!(c("text/*", "text/*"));
        assert!(!c("text/plain", "text/*"));
        assert!(!c("text/*", "*/*"));
        assert!(c("TEXT/Plain", "text/plain"));
        assert!(!c("text/plain", "text/html"));
        assert!(c("text/plain", "text/plain; charset=utf-8"));
        assert!(!c("text/plain; charset=utf-8", "text/plain"));
        assert!(c("text/plain; charset=utf-8", "text/plain; charset=UTF-8"));
        assert!(!c(
            "text/plain; charset=utf-8",
            "text/plain; charset=latin1"
        ));
        assert!(!c("application/json", "text/plain"));
    }

    #[test]
    fn requests_with_unions() {
        let m = Model::default();
        assert!(request_met(
            &m,
            &[ct("text/*")],
            &[ct("text/plain"), ct("text/html")]
        ));
        assert!(!request_met(
            &m,
            &[ct("text/plain")],
            &[ct("text/plain"), ct("text/html")]
        ));
        assert!(request_met(&m, &[], &[]));
        assert!(!request_met(&m, &[ct("text/plain")], &[]));
        assert!(!request_met(&m, &[], &[ct("text/plain")]));
    }

    #[test]
    fn paths() {
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
}
