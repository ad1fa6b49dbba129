//! The one registry of stable codes: code → slug → summary → book page.
//!
//! Codes are an interface (book: reference/checking.md): a code never changes meaning and is
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
    E0109 = "E0109", "nested-too-deeply", "brackets nested too deeply";
    E0110 = "E0110", "text-too-large", "file too large to parse";
    E0201 = "E0201", "unreadable-import", "imported file cannot be read";
    E0202 = "E0202", "not-exported", "the file exports no such name";
    E0203 = "E0203", "unknown-name", "unknown name";
    E0204 = "E0204", "duplicate-name", "duplicate name in one scope";
    E0205 = "E0205", "import-cycle", "import cycle";
    E0206 = "E0206", "wrong-kind", "name of the wrong kind";
    E0207 = "E0207", "no-format", "no format for the content type of a schemas block";
    E0208 = "E0208", "bare-format-content-type", "content type with a format written bare where a type goes";
    E0209 = "E0209", "no-header", "module has no Othismo header";
    E0301 = "E0301", "duplicate-field", "duplicate field in a message";
    E0302 = "E0302", "duplicate-enum-value", "duplicate enum value";
    E0303 = "E0303", "unknown-field-type", "unknown type in a field";
    E0304 = "E0304", "types-disagree", "two declarations of one type name disagree";
    E0305 = "E0305", "uninhabitable-message", "uninhabitable message: required field cycle";
    E0306 = "E0306", "unsupported-type", "type not supported by the format";
    E0307 = "E0307", "reserved-field-name", "field name starts with `$`";
    E0308 = "E0308", "empty-enum", "empty enum";
    E0401 = "E0401", "duplicate-serve", "duplicate serves entry";
    E0402 = "E0402", "ambiguous-serves", "ambiguous serves entries";
    E0403 = "E0403", "operator-in-needs", "`operator` inside a `needs` block";
    E0404 = "E0404", "method-name-collision", "two entries give the same generated method name";
    E0405 = "E0405", "pattern-mount-point", "`needs` mount point is a pattern";
    E0406 = "E0406", "unknown-native", "a `native` object the runtime does not provide";
    E0407 = "E0407", "missing-implementation", "implementation file is missing";
    E0408 = "E0408", "one-implementation-for-two", "two objects would be compiled from one implementation file";
    E0501 = "E0501", "unknown-tree-name", "unknown instance or image-tree name in a path";
    E0502 = "E0502", "need-not-mounted", "a concrete need of an instance has nothing mounted at its mount point";
    E0503 = "E0503", "need-not-served", "need not met: nothing at the target serves this path with this verb";
    E0504 = "E0504", "request-type-not-accepted", "request type not accepted by the serve";
    E0505 = "E0505", "answer-type-not-accepted", "answer type of the serve not acceptable to the need";
    E0506 = "E0506", "unexpected-stream", "need expects one answer, serve streams";
    E0507 = "E0507", "unsafe-through-readonly", "unsafe verb through a `readonly` mount, bind or export";
    E0508 = "E0508", "needs-operator-entry", "an instance needs an `operator` entry";
    E0509 = "E0509", "source-serves-nothing", "mount or export source: nothing in the image tree at that path";
    E0510 = "E0510", "bind-source-not-in-view", "bind source not in the instance's view";
    E0511 = "E0511", "duplicate-export", "two exports at one path";
    E0512 = "E0512", "startup-not-served", "startup request: nothing serves that path with that verb";
    E0513 = "E0513", "startup-payload-not-accepted", "startup request payload not accepted";
    E0514 = "E0514", "slot-without-value", "slot has no value";
    E0517 = "E0517", "image-recursion", "image instantiates itself, directly or through other images";
    E0518 = "E0518", "too-deep", "a path's resolution goes round in a circle or too deep";
    E0601 = "E0601", "literal-wrong-type", "literal of the wrong type";
    E0602 = "E0602", "missing-field", "missing required field";
    E0603 = "E0603", "unknown-field", "unknown field";
    E0604 = "E0604", "integer-out-of-range", "number out of range for its type";
    E0605 = "E0605", "unknown-enum-value", "unknown enum value";
    E0606 = "E0606", "malformed-time", "malformed time";
    E0607 = "E0607", "malformed-uuid", "malformed uuid";
    E0608 = "E0608", "wrong-message-type", "message type named before the braces is not the expected type";
    E0609 = "E0609", "given-twice", "field or key given twice";
    E0610 = "E0610", "no-such-slot", "value file or --set names no slot of the image";
    E0611 = "E0611", "any-without-type", "value for an `any` field does not name its type";
    E0612 = "E0612", "malformed-base64", "malformed base64 for `bytes`";
    E0701 = "E0701", "asc-failed", "the AssemblyScript compiler failed";
    E0702 = "E0702", "abi-violation", "compiled module breaks the host ABI";
    E0703 = "E0703", "stale-bindings", "generated bindings are stale and were edited by hand";
    E0704 = "E0704", "build-io", "a file the build writes or reads could not be";
    E0705 = "E0705", "rustc-failed", "the Rust compiler failed";
    E0706 = "E0706", "bad-asconfig", "an object's asconfig.json chooses its runtime in a way othc does not build";
    E0707 = "E0707", "format-not-generated", "bindings would hold a message type of a format whose codecs othc does not generate yet";
    E0801 = "E0801", "malformed-placement", "a placement line that is not `image NAME` or `node NAME: INSTANCES`";
    E0802 = "E0802", "unknown-in-placement", "a placement names no image or no instance of its image";
    E0803 = "E0803", "placed-nowhere", "an instance of the image runs on no node";
    E0804 = "E0804", "placed-twice", "a placement names its image, a node or a node's instance twice";
    E0805 = "E0805", "one-node-only", "a console or a listener placed on several nodes";
    E0901 = "E0901", "never-answered", "a request never answered, or a stream never ended";
    E0902 = "E0902", "answered-again", "an answer after the last one, or to a request never sent";
    E0903 = "E0903", "answer-not-declared", "an answer the entry does not declare";
    E0904 = "E0904", "stopped-on-input", "the object trapped or hit a limit";
    E0905 = "E0905", "bad-input-accepted", "an input the entry does not take, answered as if taken";
    E0906 = "E0906", "errno-two-codes", "one errno failed with two codes";
    E0907 = "E0907", "outside-needs", "a request the object's needs do not allow";
    E0908 = "E0908", "round-trip-differs", "a write then a read of one path gave something else back";
    W0001 = "W0001", "unused-import", "unused import";
    W0002 = "W0002", "naming-style", "type name not PascalCase / field name not camelCase or snake_case";
    W0003 = "W0003", "dangling-doc", "doc comment attached to nothing";
    W0201 = "W0201", "near-content-type", "content type othc does not know, close to a common one";
    W0501 = "W0501", "unused-wire", "mount or bind that no need of the instance uses";
}

/// A code no longer reported: its number is never reused, and `othc
/// explain` still prints its page (which says why it went).
pub struct RetiredCode {
    pub id: &'static str,
    pub page: &'static str,
}

pub const RETIRED: &[RetiredCode] = &[RetiredCode {
    id: "W0401",
    page: include_str!("../../../book/src/errors/W0401.md"),
}];

pub struct CodeInfo {
    pub code: Code,
    pub id: &'static str,
    pub slug: &'static str,
    pub summary: &'static str,
    /// The book page, Markdown.
    pub page: &'static str,
}

/// What reports a code: a code's number says it (E01xx the parsers, E02xx
/// loading and names, ...), and this is the one place that reads it so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The lexer and parsers (E01xx).
    Syntax,
    /// Loading files and resolving names (E02xx, W0201).
    Names,
    /// Schemas (E03xx).
    Schemas,
    /// Headers (E04xx).
    Headers,
    /// Images: needs, wires, startup requests (E05xx, W0501).
    Images,
    /// Values: literals, slots (E06xx).
    Values,
    /// The build driver (E07xx).
    Build,
    /// Placements of an image on a cluster's nodes (E08xx).
    Placement,
    /// Contracts broken by a running object (`othc test`, E09xx).
    Contracts,
    /// Warnings of style and tidiness (W00xx).
    Style,
}

impl Code {
    pub fn phase(self) -> Phase {
        match &self.as_str()[1..3] {
            "01" => Phase::Syntax,
            "02" => Phase::Names,
            "03" => Phase::Schemas,
            "04" => Phase::Headers,
            "05" => Phase::Images,
            "06" => Phase::Values,
            "07" => Phase::Build,
            "08" => Phase::Placement,
            "09" => Phase::Contracts,
            _ => Phase::Style,
        }
    }

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

    /// Looks a code up as people type it: `E0103`, `e0103`, `0103`, `103`,
    /// or its slug. A bare number is an error's before a warning's.
    pub fn parse(s: &str) -> Option<Code> {
        let s = s.trim();
        let number: Option<u32> = s
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| s.parse().ok())
            .flatten();
        let numbered = |prefix: char| {
            ALL.iter().find(|i| {
                i.id.starts_with(prefix) && number.is_some_and(|n| i.id[1..].parse() == Ok(n))
            })
        };
        ALL.iter()
            .find(|i| i.id.eq_ignore_ascii_case(s) || i.slug.eq_ignore_ascii_case(s))
            .or_else(|| numbered('E'))
            .or_else(|| numbered('W'))
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
    fn a_code_says_its_phase() {
        assert_eq!(Code::E0104.phase(), Phase::Syntax);
        assert_eq!(Code::E0203.phase(), Phase::Names);
        assert_eq!(Code::W0201.phase(), Phase::Names);
        assert_eq!(Code::E0513.phase(), Phase::Images);
        assert_eq!(Code::W0501.phase(), Phase::Images);
        assert_eq!(Code::E0601.phase(), Phase::Values);
        assert_eq!(Code::E0701.phase(), Phase::Build);
        assert_eq!(Code::E0803.phase(), Phase::Placement);
        assert_eq!(Code::W0001.phase(), Phase::Style);
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
