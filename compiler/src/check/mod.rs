//! The checker: proves the rules of book: reference/checking.md on a loaded program and builds
//! the resolved model the backends share.
//!
//! Phases, each reporting into one sink and none stopping the next: lowering
//! (names, E02xx and the formats' block rules), header rules (E04xx), schema
//! rules across types (E0304, E0305), image rules and literals (E05xx,
//! E06xx), and unused imports (W0001). A name that did not resolve becomes
//! `Unknown` in the model and matches anything, so one mistake is one error.

mod header;
pub(crate) mod image;
mod implementations;
mod lower;
pub mod matching;
mod payloads;
mod schema;
mod scope;
mod values;

use crate::diagnostics::codes::Phase;
use crate::diagnostics::{Code, Diagnostic, Diagnostics, Severity};
use crate::formats::Formats;
use crate::model::{Model, Spans};
use crate::name_errors::NameError;
use crate::resolve::{FrontEnd, Origin};

pub use header::HeaderError;
pub use implementations::{
    Implementation, Language, check_implementations, implementation_path, objects_to_build,
    prebuilt_objects, rust_package_path,
};
pub use matching::covers;
pub use payloads::SlotValue;
pub use scope::{MemberUse, NameUse, Sym};
pub use values::{ValueInputs, load_values};

/// What the rule modules share.
pub struct Cx<'a> {
    pub model: &'a Model,
    pub spans: &'a Spans,
    pub diags: &'a mut Diagnostics,
}

/// The checked program.
pub struct Checked {
    pub model: Model,
    pub spans: Spans,
    /// Where every path of every image leads, as the checker resolved it:
    /// the bundle writer writes this, never resolving again.
    pub namespace: crate::namespace::Namespace,
    /// Every name as the checker resolved it, for editors.
    pub names: ResolvedNames,
}

/// The names of a checked program as the lowering resolved them, as it met
/// them: the scopes' own data, moved out when the check ends. Only an
/// editor asks about places, so only it pays for the sorting
/// ([`NameIndex::new`]); at 10,000 messages that was a tenth of a
/// command-line check's serial time.
#[derive(Default)]
pub struct ResolvedNames {
    /// Per file (indexed like `model.files`), what its scope recorded.
    files: Vec<scope::FileNames>,
}

impl ResolvedNames {
    fn new(scopes: Vec<scope::Scope>) -> ResolvedNames {
        ResolvedNames {
            files: scopes.into_iter().map(scope::Scope::into_names).collect(),
        }
    }
}

/// The names of a checked program, as the lowering resolved them: what the
/// language server answers definitions, references, renames and
/// completions from, without resolving a name a second way.
#[derive(Default)]
pub struct NameIndex {
    /// Every resolved use, sorted by file and place, each place once.
    pub uses: Vec<NameUse>,
    /// Every member named in a literal (a field name, an enum value),
    /// sorted by file and place, each place once.
    pub members: Vec<MemberUse>,
    /// Per file (indexed like `model.files`): the names in scope, sorted.
    pub in_scope: Vec<Vec<(String, Sym)>>,
}

impl NameIndex {
    pub fn new(names: ResolvedNames) -> NameIndex {
        let mut uses = Vec::new();
        let mut members = Vec::new();
        let mut in_scope = Vec::with_capacity(names.files.len());
        for f in names.files {
            uses.extend(f.uses);
            members.extend(f.members);
            let mut names = f.in_scope;
            names.sort();
            in_scope.push(names);
        }
        uses.sort_by_key(|u| (u.at.file, u.at.span.start(), u.at.span.end()));
        uses.dedup();
        members.sort_by_key(|u| (u.at.file, u.at.span.start(), u.at.span.end()));
        members.dedup();
        NameIndex {
            uses,
            members,
            in_scope,
        }
    }
}

/// A program loaded and checked: its sources, every diagnostic, the model.
pub struct Compilation {
    pub front: FrontEnd,
    pub checked: Checked,
}

impl Compilation {
    /// Whether model file `file` is one named on the command line (model
    /// files are numbered as the loaded modules are).
    fn is_root(&self, file: crate::model::FileIx) -> bool {
        self.front.program.roots.iter().any(|r| r.0 == file.0)
    }

    /// The images the files named on the command line declare, in order.
    pub fn root_images(&self) -> Vec<crate::model::ImageId> {
        let images = self.checked.model.images.iter().enumerate();
        images
            .filter(|(_, i)| self.is_root(i.file))
            .map(|(k, _)| crate::model::ImageId(k as u32))
            .collect()
    }

    /// The objects (not the runtime's natives) the files named on the
    /// command line declare, in order.
    pub fn root_objects(&self) -> Vec<crate::model::ObjectId> {
        let objects = self.checked.model.objects.iter().enumerate();
        objects
            .filter(|(_, o)| !o.native && self.is_root(o.file))
            .map(|(k, _)| crate::model::ObjectId(k as u32))
            .collect()
    }
}

/// Loads `roots` and everything they import, reads the slot values, and
/// checks it all. `Err` only for a root or value file that cannot be read.
pub fn compile(
    loader: &dyn crate::loader::Loader,
    roots: &[std::path::PathBuf],
    inputs: &ValueInputs,
) -> Result<Compilation, crate::resolve::RootError> {
    let mut front = crate::resolve::load(loader, roots)?;
    let values = load_values(&mut front, loader, inputs)?;
    let mut diags = std::mem::take(&mut front.diags);
    let checked = check(&mut front, &values, &mut diags);
    front.diags = diags;
    Ok(Compilation { front, checked })
}

/// The model of what `front` loaded, with the rules of headers and schemas
/// checked, and no image checked: what reading a module's header needs,
/// without the image phase a header has nothing for.
pub fn model_only(front: &mut FrontEnd, diags: &mut Diagnostics) -> Model {
    let formats = std::mem::take(&mut front.formats);
    let model = lowered_with_rules(front, &formats, diags).model;
    front.formats = formats;
    model
}

/// Lowering, then the rules of each object's header and each type on its
/// own: what both a header read and a whole check start with.
fn lowered_with_rules(
    front: &mut FrontEnd,
    formats: &Formats,
    diags: &mut Diagnostics,
) -> lower::Lowered {
    let lowered = lower::lower(front, formats, diags);
    let mut cx = Cx {
        model: &lowered.model,
        spans: &lowered.spans,
        diags,
    };
    header::check(&mut cx);
    schema::required_cycles(&mut cx);
    lowered
}

/// Checks everything `front` loaded; `values` are the slot values from value
/// files and `--set`, in order of precedence (later wins). The schema
/// blocks' members move into the model, so `front` is checked once.
pub fn check(front: &mut FrontEnd, values: &[SlotValue], diags: &mut Diagnostics) -> Checked {
    // Lent while the front end is lowered (and its blocks moved out).
    let formats = std::mem::take(&mut front.formats);
    let mut lowered = lowered_with_rules(front, &formats, diags);
    schema::agreement(
        &mut Cx {
            model: &lowered.model,
            spans: &lowered.spans,
            diags,
        },
        &formats,
    );
    // What a parse error dropped (an entry, a mount) would show up as unmet
    // needs and unused mounts: images are checked once every file parses.
    let parses = !diags
        .iter()
        .any(|d| d.code.phase() == Phase::Syntax && d.severity == Severity::Error);
    let namespace = if parses {
        payloads::finish(front, &mut lowered, &formats, values, diags);
        image::ImageChecker::new(&lowered, diags).run()
    } else {
        Default::default()
    };
    drop_echoes_of_failed_imports(diags);
    diags.merge_repeats(&[Code::E0203, Code::E0303, Code::E0306], "and here");
    unused_imports(front, &lowered, diags);
    // Nobody can act on a style warning in `othismo:env` or a module's header.
    let generated: Vec<_> = front
        .program
        .modules
        .iter()
        .filter(|m| m.origin != Origin::Source)
        .map(|m| m.file)
        .collect();
    diags.drop_warnings_in(&generated);
    let lower::Lowered {
        model,
        spans,
        scopes,
        ..
    } = lowered;
    let names = ResolvedNames::new(scopes);
    front.formats = formats;
    Checked {
        model,
        spans,
        namespace,
        names,
    }
}

fn unused_imports(front: &FrontEnd, lowered: &lower::Lowered, diags: &mut Diagnostics) {
    for (mi, m) in front.program.modules.iter().enumerate() {
        // An unknown name in the file may be a misspelling of the import
        // that looks unused: say only the first.
        let unknown_here = diags.iter().any(|d| {
            d.primary.at.file == m.file
                && (d.code == Code::E0203
                    || (d.code.phase() == Phase::Syntax && d.severity == Severity::Error))
        });
        if m.origin != Origin::Source || unknown_here {
            continue;
        }
        let mut unused: Vec<(&String, crate::source::FileSpan)> = lowered.scopes[mi]
            .bindings()
            .filter(|(_, b)| b.imported && !b.used.get())
            .map(|(n, b)| (n, b.at))
            .collect();
        unused.sort_by_key(|(_, at)| at.span.start());
        for (name, at) in unused {
            diags.report(NameError::UnusedImport {
                name: name.clone(),
                at,
            });
        }
    }
}

/// The name an error says is not in scope (a name in a header or an image,
/// or a field type in a schema), read from the error it was made from.
pub fn unknown_name(d: &Diagnostic) -> Option<&str> {
    if let Some(NameError::Unknown { name, .. }) = d.cause::<NameError>() {
        return Some(name.as_str());
    }
    match d.cause::<crate::formats::SchemaError>()? {
        crate::formats::SchemaError::UnknownType { name, .. } => Some(name.as_str()),
        _ => None,
    }
}

/// Drops the unknown-name errors about a name whose import failed in the
/// same file (the import's error said so, with the right suggestion): one
/// mistake, one error.
fn drop_echoes_of_failed_imports(diags: &mut Diagnostics) {
    let failed: std::collections::HashSet<(crate::source::FileId, String)> = diags
        .iter()
        .filter_map(|d| match d.cause::<crate::resolve::LoadError>()? {
            crate::resolve::LoadError::Private { at, name, .. }
            | crate::resolve::LoadError::NotExported { at, name, .. } => {
                Some((at.file, name.clone()))
            }
            _ => None,
        })
        .collect();
    if failed.is_empty() {
        return;
    }
    diags.retain(|d| {
        unknown_name(d).is_none_or(|name| !failed.contains(&(d.primary.at.file, name.to_string())))
    });
}
