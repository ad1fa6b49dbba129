//! What can go wrong while building an image's modules, as data (E07xx):
//! which object, which file, what the tool or the file system said. The
//! wording is in `to_diagnostic`.

use othc::check::Language;
use othc::diagnostics::{Code, Diagnostic, Label, ToDiagnostic};
use othc::source::FileSpan;

#[derive(Clone, Debug, PartialEq)]
pub enum BuildError {
    /// E0704: a file the build writes or reads could not be; `what` says
    /// which ("the bindings", "its compiled module", "this object's module").
    Io {
        at: FileSpan,
        verb: &'static str,
        path: String,
        what: &'static str,
        reason: String,
    },
    /// E0704: the compiler could not be run on an object's sources at all
    /// (not installed, its folder not writable, no module written).
    Setup {
        object: String,
        at: FileSpan,
        reason: String,
    },
    /// E0706: the object's `asconfig.json` asks for a collector othc does
    /// not build with, or cannot be read.
    Config {
        object: String,
        at: FileSpan,
        reason: String,
    },
    /// E0701: the AssemblyScript compiler failed; `output` is what it said,
    /// `located` its errors that name a place in the sources, at it.
    Compiler {
        object: String,
        at: FileSpan,
        output: String,
        located: Vec<(FileSpan, String)>,
        /// The language it is written in (E0705 for Rust: cargo and rustc
        /// failed).
        language: Language,
    },
    /// E0702: a module (compiled here, or `prebuilt` from a `.wasm`) that
    /// breaks the host ABI.
    BreaksAbi {
        module: String,
        prebuilt: bool,
        at: FileSpan,
        problems: Vec<String>,
    },
    /// E0702: the compiled module cannot take its custom sections.
    NoSections {
        object: String,
        at: FileSpan,
        reason: String,
    },
    /// E0703: bindings that no longer match the header, edited by hand
    /// since othc wrote them (so not rewritten).
    StaleBindings {
        object: String,
        at: FileSpan,
        bindings: String,
        source: String,
    },
}

impl ToDiagnostic for BuildError {
    fn to_diagnostic(&self) -> Diagnostic {
        match self {
            BuildError::Io {
                at,
                verb,
                path,
                what,
                reason,
            } => Diagnostic::new(
                Code::E0704,
                format!("cannot {verb} `{path}`: {reason}"),
                Label::at(*at, *what),
            ),
            BuildError::Setup { object, at, reason } => Diagnostic::new(
                Code::E0704,
                format!("cannot compile `{object}`: {reason}"),
                Label::at(*at, "this object's module could not be built"),
            )
            .with_help(
                "nothing is wrong with its sources: check that the output folder (`--out`) and othc's cache can be written, and that npm could install the compiler",
            ),
            BuildError::Config { object, at, reason } => Diagnostic::new(
                Code::E0706,
                format!("cannot compile `{object}`: {reason}"),
                Label::at(*at, "this object's implementation is built as its `asconfig.json` says"),
            )
            .with_help(
                "othc reads `options.runtime` of that file alone: set it there to `\"incremental\"` or `\"minimal\"`, or remove it (or the file) for the default, `incremental`",
            ),
            BuildError::Compiler {
                object,
                at,
                output,
                located,
                language,
            } => {
                let (code, compiler) = match language {
                    Language::Rust => (Code::E0705, "the Rust compiler"),
                    Language::AssemblyScript => (Code::E0701, "the AssemblyScript compiler"),
                };
                match located.split_first() {
                // At the first error's place in the implementation, the
                // others and the object labelled, so editors and JSON
                // readers go to the line to fix.
                Some(((first, message), rest)) => {
                    let mut d = Diagnostic::new(
                        code,
                        format!("{compiler} failed on `{object}`: {message}"),
                        Label::at(*first, message.clone()),
                    );
                    for (place, message) in rest {
                        d = d.with_label(Label::at(*place, message.clone()));
                    }
                    d.with_label(Label::at(*at, "in the implementation of this object"))
                        .with_help(format!("the compiler said:\n{}", output.trim_end()))
                }
                None => Diagnostic::new(
                    code,
                    format!("{compiler} failed on `{object}`"),
                    Label::at(*at, "compiling this object's implementation failed"),
                )
                .with_help(format!("the compiler said:\n{}", output.trim_end())),
                }
            }
            BuildError::BreaksAbi {
                module,
                prebuilt: false,
                at,
                problems,
            } => Diagnostic::new(
                Code::E0702,
                format!(
                    "the module of `{module}` breaks the host ABI: {}",
                    problems.join("; ")
                ),
                Label::at(*at, "its compiled module"),
            )
            .with_help(
                "end the implementation with `run(server)`, and let `othc build` add the SDK's exports (do not pass your own `--lib` or exports)",
            ),
            BuildError::BreaksAbi {
                module,
                prebuilt: true,
                at,
                problems,
            } => Diagnostic::new(
                Code::E0702,
                format!(
                    "the module `{module}` breaks the host ABI: {}",
                    problems.join("; ")
                ),
                Label::at(*at, "its module"),
            ),
            BuildError::NoSections { object, at, reason } => Diagnostic::new(
                Code::E0702,
                format!("the module of `{object}` cannot carry its sections: {reason}"),
                Label::at(*at, "its compiled module"),
            ),
            BuildError::StaleBindings {
                object,
                at,
                bindings,
                source,
            } => Diagnostic::new(
                Code::E0703,
                format!("the bindings of `{object}` were edited by hand"),
                Label::at(
                    *at,
                    format!(
                        "`{bindings}` does not match this header, and was changed since othc wrote it, so it is not overwritten"
                    ),
                ),
            )
            .with_help(format!(
                "the bindings are generated: move what you changed into the object's implementation, then delete `{bindings}` (the build writes it again) or run `othc gen {source}`"
            )),
        }
    }
}
