//! Fixes an editor offers for a diagnostic beyond the edits it carries:
//! those that need the whole program to find. Each is a function of the
//! typed error the diagnostic was made from ([`Diagnostic::cause`]), never
//! of its code or wording: an unknown name (a name in an image or header,
//! or a field type in a schema) that another loaded source file exports is
//! imported, the import line printed by the printer, at the top of the
//! file.

use std::path::Path;

use super::Analysis;
use crate::diagnostics::{Diagnostic, Fix};
use crate::resolve::Origin;
use crate::source::{FileSpan, Span};

/// The fixes of `d` that the whole program gives (none but an import yet).
pub fn program_fixes(analysis: &Analysis, d: &Diagnostic) -> Vec<Fix> {
    import_fix(analysis, d).into_iter().collect()
}

/// For an unknown name another loaded source file exports under it: its
/// import.
fn import_fix(analysis: &Analysis, d: &Diagnostic) -> Option<Fix> {
    let name = crate::check::unknown_name(d)?;
    let file = d.primary.at.file;
    let sources = &analysis.compiled.front.sources;
    let here = Path::new(&sources.get(file).name);
    let from = analysis
        .compiled
        .front
        .program
        .modules
        .iter()
        .filter(|m| m.file != file && m.origin == Origin::Source)
        .find(|m| {
            m.declarations()
                .iter()
                .any(|x| x.name == name && x.exported)
        })?;
    let rel = relative(here.parent()?, Path::new(&sources.get(from.file).name))?;
    Some(Fix {
        title: format!("Import `{name}` from \"{rel}\""),
        at: FileSpan::new(file, Span::point(0)),
        replacement: format!(
            "{}\n",
            crate::printer::import_line(&[name.to_string()], &rel)
        ),
        new_line: false,
    })
}

/// `to` relative to the folder `from`, written as imports write paths
/// (`./Lib.oth`, `../shared/Lib.oth`).
fn relative(from: &Path, to: &Path) -> Option<String> {
    let from: Vec<_> = from.components().collect();
    let to_parts: Vec<_> = to.components().collect();
    let common = from
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut parts: Vec<String> = vec!["..".into(); from.len() - common];
    for c in &to_parts[common..] {
        parts.push(c.as_os_str().to_str()?.to_string());
    }
    let joined = parts.join("/");
    Some(if joined.starts_with("..") {
        joined
    } else {
        format!("./{joined}")
    })
}
