//! What `othc test` finds, as data; its wording in one place,
//! `to_diagnostic`. Each finding points at the entry of the header it
//! broke (a serves entry, a need, or the object when it failed at start).

use othc::diagnostics::{Code, Diagnostic, Label, ToDiagnostic};
use othc::source::FileSpan;
use othismo_runtime::abi::Errno;

/// When an instance stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum During {
    Start,
    /// An image's startup request failed: it never served.
    StartupRequest,
    /// The request of this case, 1-based, and it described.
    Request(usize, String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// E0904: a trap or a limit.
    Stopped { during: During, why: String },
    /// E0901: a request not answered (or a stream not ended) once
    /// everything it could wait for was answered.
    NeverAnswered { stream: bool },
    /// E0901: it went on asking and being answered past the bound.
    NeverSettles { deliveries: usize },
    /// E0902: an answer or error after the last one, or for a request it
    /// was never sent.
    AnsweredAgain { what: String },
    /// E0903: an answer that is not what the entry declares.
    AnswerNotDeclared { why: String },
    /// E0905: an input the entry does not take, answered as if taken.
    BadInputAccepted { wrong: String },
    /// E0906: one errno under two codes.
    ErrnoCodes {
        errno: Errno,
        code: String,
        other: String,
    },
    /// E0907: a request its needs do not allow.
    OutsideNeeds { request: String, why: String },
    /// E0908: a write then a read of the same path gave something else.
    RoundTrip { why: String },
}

/// A finding: what went wrong, where in the header, and on what input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub kind: Kind,
    pub object: String,
    /// The entry it broke (`read /greeting`), if one.
    pub entry: Option<String>,
    pub at: FileSpan,
    /// The request it happened on, described, if one.
    pub input: Option<String>,
}

impl Kind {
    pub fn code(&self) -> Code {
        match self {
            Kind::NeverAnswered { .. } | Kind::NeverSettles { .. } => Code::E0901,
            Kind::AnsweredAgain { .. } => Code::E0902,
            Kind::AnswerNotDeclared { .. } => Code::E0903,
            Kind::Stopped { .. } => Code::E0904,
            Kind::BadInputAccepted { .. } => Code::E0905,
            Kind::ErrnoCodes { .. } => Code::E0906,
            Kind::OutsideNeeds { .. } => Code::E0907,
            Kind::RoundTrip { .. } => Code::E0908,
        }
    }
}

impl Finding {
    /// Whether `other` is the same failure (for shrinking: a smaller input
    /// must fail the same way, not some other way).
    pub fn same_as(&self, other: &Finding) -> bool {
        self.kind.code() == other.kind.code() && self.entry == other.entry
    }
}

impl ToDiagnostic for Finding {
    fn to_diagnostic(&self) -> Diagnostic {
        let o = &self.object;
        let entry = self.entry.as_deref().unwrap_or("");
        let (message, label) = match &self.kind {
            Kind::Stopped { during, why } => {
                let when = match during {
                    During::Start | During::StartupRequest => "as it started".to_string(),
                    During::Request(_, r) => format!("on `{r}`"),
                };
                let label = match during {
                    During::StartupRequest => "this startup request failed",
                    _ => "stopped here",
                };
                // The cause; where in the module it happened is in the trace.
                let cause = why.lines().next().unwrap_or_default();
                (format!("`{o}` stopped {when}: {cause}"), label)
            }
            Kind::NeverAnswered { stream: false } => (
                format!("`{o}` never answered `{entry}`, though everything it asked was answered"),
                "never answered",
            ),
            Kind::NeverAnswered { stream: true } => (
                format!("`{o}` never ended its stream answering `{entry}`"),
                "a stream that never ends",
            ),
            Kind::NeverSettles { deliveries } => (
                format!(
                    "`{o}` went on asking: {deliveries} answers delivered and it still asked for more"
                ),
                "never settles",
            ),
            Kind::AnsweredAgain { what } => (format!("`{o}` {what}"), "answered again"),
            Kind::AnswerNotDeclared { why } => (
                format!("`{o}` answered `{entry}` with what the entry does not declare: {why}"),
                "declares another answer",
            ),
            Kind::BadInputAccepted { wrong } => (
                format!("`{o}` answered `{entry}` as if it took {wrong}, instead of an error"),
                "does not take it",
            ),
            Kind::ErrnoCodes { errno, code, other } => (
                format!(
                    "`{o}` failed with errno {errno} as `{code}`, where errno {errno} is `{other}`"
                ),
                "failed here",
            ),
            Kind::OutsideNeeds { request, why } => (
                format!("`{o}` sent `{request}`, which its needs do not allow: {why}"),
                "its needs",
            ),
            Kind::RoundTrip { why } => (
                format!("`{o}` read back other than it was written at `{entry}`: {why}"),
                "written here, read back otherwise",
            ),
        };
        let mut d = Diagnostic::new(self.kind.code(), message, Label::at(self.at, label));
        if let Some(input) = &self.input {
            d = d.with_help(format!("the smallest input found: {input}"));
        }
        d
    }
}
