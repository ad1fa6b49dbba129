//! The payload matching rules: which payload types cover which, for
//! requests and answers. (Which paths cover which is the namespace's:
//! `crate::namespace::path`.)

use crate::model::{ContentType, Model, PayloadType};

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

#[cfg(test)]
mod tests {
    use super::*;

    fn ct(text: &str) -> PayloadType {
        PayloadType::Content(ContentType::known(text))
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
}
