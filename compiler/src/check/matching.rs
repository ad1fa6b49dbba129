//! The payload matching rules: which payload types cover which, for
//! requests and answers. (Which paths cover which is the namespace's:
//! `crate::namespace::path`.)

use crate::model::{ContentType, Model, PayloadType};

/// `covers(a, b)`: every payload of type `b` is also of type `a`.
pub fn covers(model: &Model, a: &PayloadType, b: &PayloadType) -> bool {
    covers_across(model, a, model, b)
}

/// [`covers`] for types of two models, `a` of `ma` and `b` of `mb` (two
/// versions of an object, for `othc diff`): messages are the same type when
/// they have the same name.
pub fn covers_across(ma: &Model, a: &PayloadType, mb: &Model, b: &PayloadType) -> bool {
    match (a, b) {
        (PayloadType::Unknown, _) | (_, PayloadType::Unknown) => true,
        (PayloadType::Content(a), PayloadType::Content(b)) => content_covers(a, b),
        (PayloadType::Content(a), PayloadType::Message(m)) => {
            content_covers(a, &ContentType::parse(&mb.ty(*m).format))
        }
        // Same name: the same type, once E0304 has proved the declarations agree.
        (PayloadType::Message(x), PayloadType::Message(y)) => ma.ty(*x).name == mb.ty(*y).name,
        (PayloadType::Message(_), PayloadType::Content(_)) => false,
    }
}

/// The request direction: every alternative the need may send is taken by
/// some alternative of the serve. No payload is met only by no payload.
pub fn request_met(model: &Model, serve: &[PayloadType], need: &[PayloadType]) -> bool {
    request_met_across(model, serve, model, need)
}

/// [`request_met`] for a serve of model `ms` and a need of model `mn`.
pub fn request_met_across(
    ms: &Model,
    serve: &[PayloadType],
    mn: &Model,
    need: &[PayloadType],
) -> bool {
    if need.is_empty() || serve.is_empty() {
        return need.is_empty() == serve.is_empty();
    }
    need.iter()
        .all(|n| serve.iter().any(|s| covers_across(ms, s, mn, n)))
}

/// Whether content type `a` (a serve's, or a need's answer) takes `b`:
/// `*` covers any type or subtype; a parameter `a` writes must be present
/// and equal in `b`, one it leaves out constrains nothing. Names compare
/// without regard to case, and so do charset values (RFC 2046); other
/// values exactly. A type `mime` could not read fits only itself.
pub fn content_covers(a: &ContentType, b: &ContentType) -> bool {
    if a.subtype.is_empty() || b.subtype.is_empty() {
        return a.subtype.is_empty() && b.subtype.is_empty() && a.ty == b.ty;
    }
    let types = if a.ty == "*" {
        a.subtype == "*"
    } else {
        a.ty == b.ty && (a.subtype == "*" || a.subtype == b.subtype)
    };
    types
        && a.params.iter().all(|(name, value)| {
            b.params.iter().any(|(n, v)| {
                n == name
                    && if name == "charset" {
                        v.eq_ignore_ascii_case(value)
                    } else {
                        v == value
                    }
            })
        })
}

/// How a payload type reads in messages: its content type, or its
/// message's name.
pub fn describe(model: &Model, t: &PayloadType) -> String {
    match t {
        PayloadType::Content(c) => c.text.clone(),
        PayloadType::Message(id) => model.ty(*id).name.clone(),
        PayloadType::Unknown => "?".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ct(text: &str) -> PayloadType {
        PayloadType::Content(ContentType::parse(text))
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
        // Parameter names without regard to case, other values exactly.
        assert!(c("text/plain; Format=flowed", "text/plain; format=flowed"));
        assert!(!c("text/plain; format=flowed", "text/plain; format=Flowed"));
    }

    #[test]
    fn one_parse_reads_the_parts() {
        let t = ContentType::parse("Text/HTML; Charset=\"UTF-8\"");
        assert_eq!((t.ty.as_str(), t.subtype.as_str()), ("text", "html"));
        // `mime` lower-cases charset values too (they compare without case).
        assert_eq!(t.params, vec![("charset".to_string(), "utf-8".to_string())]);
        assert_eq!(t.essence(), "text/html");
        // Spaces before `;` are the language's, not `mime`'s: still read.
        let spaced = ContentType::parse("text/plain \t; charset=utf-8");
        assert_eq!(spaced.essence(), "text/plain");
        assert_eq!(spaced.params.len(), 1);
        // What `mime` cannot read fits only itself, whatever its case.
        let odd = ContentType::parse("text/plain; a=\"x");
        assert!(odd.subtype.is_empty());
        let m = Model::default();
        let c = |a: &ContentType, b: &ContentType| {
            covers(
                &m,
                &PayloadType::Content(a.clone()),
                &PayloadType::Content(b.clone()),
            )
        };
        assert!(c(&odd, &ContentType::parse("TEXT/plain; a=\"x")));
        assert!(c(&spaced, &ContentType::parse("text/plain; charset=UTF-8")));
        assert!(!c(&odd, &ContentType::parse("text/plain")));
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
