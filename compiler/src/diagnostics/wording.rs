//! Small pieces of wording every phase's errors share, so a list of names
//! reads the same in every message.

/// Names in backquotes, comma-separated: `` `a`, `b` ``.
pub fn quote_list<S: AsRef<str>>(items: &[S]) -> String {
    quote_joined(items, ", ")
}

/// Payload types as alternatives: `` `a` | `b` ``, or "no payload".
pub fn alternatives<S: AsRef<str>>(ts: &[S]) -> String {
    if ts.is_empty() {
        return "no payload".into();
    }
    quote_joined(ts, " | ")
}

/// Names in backquotes joined by `sep`.
pub fn quote_joined<S: AsRef<str>>(items: &[S], sep: &str) -> String {
    items
        .iter()
        .map(|i| format!("`{}`", i.as_ref()))
        .collect::<Vec<_>>()
        .join(sep)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_read_as_code() {
        assert_eq!(quote_list(&["a", "b"]), "`a`, `b`");
        assert_eq!(alternatives::<&str>(&[]), "no payload");
        assert_eq!(
            alternatives(&["x".to_string(), "y".to_string()]),
            "`x` | `y`"
        );
        assert_eq!(quote_joined(&["a", "b"], " → "), "`a` → `b`");
    }
}
