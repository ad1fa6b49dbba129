//! Renaming a type, object, image, instance, slot, field or enum value
//! everywhere it is named, or saying why not.

use super::{Analysis, Target};
use crate::source::FileSpan;

/// Replace the text at `at` with `new_text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub at: FileSpan,
    pub new_text: String,
}

/// Whether `target` is something a rename can change, or why not.
pub fn renamable(target: Target) -> Result<(), &'static str> {
    match target {
        Target::Sym(_) | Target::Instance(..) | Target::Slot(..) | Target::Member(..) => Ok(()),
        Target::Entry(_) | Target::Wire(..) | Target::Export(..) | Target::Startup(..) => Err(
            "only types, objects, images, instances, slots, fields and enum values can be renamed",
        ),
    }
}

/// The edits that rename `target` to `new_name`, or why it cannot be.
pub fn rename(analysis: &Analysis, target: Target, new_name: &str) -> Result<Vec<Edit>, String> {
    let valid = new_name
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && new_name.chars().all(|c| c.is_alphanumeric() || c == '_');
    if !valid {
        return Err(format!(
            "`{new_name}` is not a name: names are letters, digits and `_`, not starting with a digit"
        ));
    }
    // Fields and enum values may be spelled like keywords; nothing else.
    if oth_syntax::is_keyword(new_name) && !matches!(target, Target::Member(..)) {
        return Err(format!("`{new_name}` is a keyword"));
    }
    renamable(target)?;
    let Some(def) = analysis.definition(target) else {
        return Err("nothing to rename here".into());
    };
    let old = analysis.text(def.file)[def.span.range()].to_string();
    if old == new_name {
        return Ok(Vec::new());
    }
    let places = analysis.references(target);
    if let Some(p) = places.iter().find(|p| !analysis.is_source(p.file)) {
        let name = &analysis.compiled.front.sources.get(p.file).name;
        return Err(format!(
            "`{old}` is declared in `{name}`, which is not a source file you can edit"
        ));
    }
    collides(analysis, target, &old, new_name)?;
    // An import under another name (`import { A as B }`) keeps its local
    // name: only the places that spell the old one change.
    Ok(places
        .into_iter()
        .filter(|p| analysis.text(p.file)[p.span.range()] == *old)
        .map(|at| Edit {
            at,
            new_text: new_name.to_string(),
        })
        .collect())
}

/// Whether `new` is taken where `target` is known as `old`.
fn collides(analysis: &Analysis, target: Target, old: &str, new: &str) -> Result<(), String> {
    let model = &analysis.compiled.checked.model;
    let line = |at: FileSpan| {
        let f = analysis.compiled.front.sources.get(at.file);
        format!("{}:{}", f.name, f.line_col(at.span.start()).line)
    };
    match target {
        Target::Sym(sym) => {
            // Every file that knows the symbol by its old name.
            for (fi, names) in analysis.names.in_scope.iter().enumerate() {
                let knows = names.iter().any(|(n, s)| n == old && *s == sym);
                if !knows {
                    continue;
                }
                if let Some((_, other)) = names.iter().find(|(n, _)| n == new) {
                    let file = &model.files[fi].name;
                    let at = analysis.definition(Target::Sym(*other)).map(line);
                    return Err(format!(
                        "`{new}` is already {} {} in `{file}`{}",
                        crate::name_errors::article(other.kind().describe()),
                        other.kind().describe(),
                        at.map(|a| format!(" (declared at {a})"))
                            .unwrap_or_default()
                    ));
                }
            }
            Ok(())
        }
        Target::Instance(img, _) => {
            let def = model.image(img);
            if let Some(x) = def.instances.iter().position(|x| x.name == new) {
                let at = analysis.definition(Target::Instance(img, x)).map(line);
                return Err(format!(
                    "image `{}` already has an instance `{new}`{}",
                    def.name,
                    at.map(|a| format!(" (at {a})")).unwrap_or_default()
                ));
            }
            if def
                .needs
                .iter()
                .any(|n| n.mount.to_string() == format!("/{new}"))
            {
                return Err(format!(
                    "image `{}` needs something at `/{new}`: the instance would hide it",
                    def.name
                ));
            }
            Ok(())
        }
        Target::Member(t, _) => {
            let def = model.ty(t);
            let (what, taken) = match &def.kind {
                crate::model::TypeKind::Message { fields } => {
                    ("a field", fields.iter().any(|f| f.name == new))
                }
                crate::model::TypeKind::Enum { values } => {
                    ("a value", values.iter().any(|v| v.name == new))
                }
            };
            if taken {
                return Err(format!("`{}` already has {what} `{new}`", def.name));
            }
            Ok(())
        }
        Target::Slot(img, _) => {
            let def = model.image(img);
            if def.slots.iter().any(|s| s.name == new) {
                return Err(format!("image `{}` already has a slot `{new}`", def.name));
            }
            Ok(())
        }
        _ => Ok(()),
    }
}
