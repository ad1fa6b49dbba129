//! The one registry of stable codes: code → slug → summary → book page.
//!
//! Codes are an interface (checks.md): a code never changes meaning and is
//! never reused. Each has a page in `book/src/errors/`, embedded here so that
//! `othc explain CODE` prints exactly what the book says.

use super::Severity;

macro_rules! codes {
    ($( $variant:ident = $code:literal, $slug:literal, $summary:literal; )*) => {
        /// A stable diagnostic code.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code { $( $variant, )* }

        /// Every code, in order.
        pub const ALL: &[CodeInfo] = &[
            $( CodeInfo {
                code: Code::$variant,
                id: $code,
                slug: $slug,
                summary: $summary,
                page: include_str!(concat!("../../../book/src/errors/", $code, ".md")),
            }, )*
        ];

        impl Code {
            pub fn as_str(self) -> &'static str {
                match self { $( Code::$variant => $code, )* }
            }
        }
    };
}

codes! {
    E0101 = "E0101", "unexpected-character", "unexpected character";
    E0102 = "E0102", "unterminated-string", "unterminated string";
    E0103 = "E0103", "unexpected-token", "unexpected token";
    E0104 = "E0104", "unclosed-delimiter", "unclosed block or bracket";
    E0105 = "E0105", "invalid-escape", "invalid escape in a string";
    E0106 = "E0106", "invalid-number", "invalid number literal";
    E0107 = "E0107", "malformed-content-type", "malformed content type";
    E0108 = "E0108", "malformed-path", "malformed path";
    E0201 = "E0201", "unreadable-import", "imported file cannot be read";
    E0202 = "E0202", "not-exported", "the file exports no such name";
    E0205 = "E0205", "import-cycle", "import cycle";
    E0207 = "E0207", "no-format", "no format for the content type of a schemas block";
    E0209 = "E0209", "no-header", "module has no Othismo header";
    W0003 = "W0003", "dangling-doc", "doc comment attached to nothing";
}

pub struct CodeInfo {
    pub code: Code,
    pub id: &'static str,
    pub slug: &'static str,
    pub summary: &'static str,
    /// The book page, Markdown.
    pub page: &'static str,
}

impl Code {
    pub fn severity(self) -> Severity {
        if self.as_str().starts_with('W') {
            Severity::Warning
        } else {
            Severity::Error
        }
    }

    pub fn info(self) -> &'static CodeInfo {
        ALL.iter()
            .find(|i| i.code == self)
            .expect("every code is in ALL")
    }

    /// Looks a code up as people type it: `E0103`, `e0103`, `0103`, or its slug.
    pub fn parse(s: &str) -> Option<Code> {
        let s = s.trim();
        ALL.iter()
            .find(|i| {
                i.id.eq_ignore_ascii_case(s)
                    || (s.len() == 4 && i.id.ends_with(s) && i.id.starts_with('E'))
                    || i.slug.eq_ignore_ascii_case(s)
            })
            .map(|i| i.code)
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_forms() {
        assert_eq!(Code::parse("E0103"), Some(Code::E0103));
        assert_eq!(Code::parse("e0103"), Some(Code::E0103));
        assert_eq!(Code::parse("0103"), Some(Code::E0103));
        assert_eq!(Code::parse("import-cycle"), Some(Code::E0205));
        assert_eq!(Code::parse("W0003"), Some(Code::W0003));
        assert_eq!(Code::parse("E9999"), None);
    }

    #[test]
    fn pages_start_with_their_code_and_summary() {
        for info in ALL {
            let first = info.page.lines().next().unwrap_or_default();
            assert_eq!(
                first,
                format!("# {}: {}", info.id, info.summary),
                "book/src/errors/{}.md must start with its title",
                info.id
            );
            assert!(info.page.contains("```"), "{} needs an example", info.id);
        }
    }
}

#[cfg(test)]
mod book_tests {
    #[test]
    fn the_book_lists_every_code() {
        let summary = include_str!("../../../book/src/SUMMARY.md");
        for info in super::ALL {
            let entry = format!("[{}: {}](errors/{}.md)", info.id, info.summary, info.id);
            assert!(
                summary.contains(&entry),
                "book/src/SUMMARY.md lacks `{entry}`"
            );
        }
    }
}
