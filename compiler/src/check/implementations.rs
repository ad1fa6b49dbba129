//! What `othc build` needs beyond `othc check`: every object it will compile
//! has its implementation (E0407), one of its own (E0408). An object
//! without `native` is implemented by the AssemblyScript file named after
//! the object, next to its `.oth` file (`object Greeter` in `Greeter.oth` →
//! `Greeter.ts`; `Counter` and `Clicker` in `Both.oth` → `Counter.ts`,
//! `Clicker.ts`), or by the Cargo package of a folder named after it, next
//! to it (`Shouter/Cargo.toml`): an object written in Rust.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use super::Checked;
use super::header::HeaderError;
use crate::diagnostics::Diagnostics;
use crate::loader::Loader;
use crate::model::{ImageId, ObjectId, Origin, Shape};
use crate::resolve::FrontEnd;

/// The implementation file of `object`, declared in `key` (a `.oth` path).
pub fn implementation_path(key: &std::path::Path, object: &str) -> PathBuf {
    key.with_file_name(format!("{object}.ts"))
}

/// The manifest of the Cargo package that implements `object` in Rust,
/// when it is written in Rust: `<object>/Cargo.toml` beside `key`.
pub fn rust_package_path(key: &std::path::Path, object: &str) -> PathBuf {
    key.with_file_name(object).join("Cargo.toml")
}

/// The language an object's implementation is written in, as
/// `check_implementations` found it: what the build driver chooses the
/// toolchain by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Language {
    /// `<object>.ts` beside the `.oth` file.
    AssemblyScript,
    /// The Cargo package `<object>/Cargo.toml` beside it.
    Rust,
}

impl Language {
    /// Its name, as messages say it.
    pub fn name(self) -> &'static str {
        match self {
            Language::AssemblyScript => "AssemblyScript",
            Language::Rust => "Rust",
        }
    }
}

/// An object to build, and its implementation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Implementation {
    pub object: ObjectId,
    /// The entry file (`Greeter.ts`) or the package's manifest
    /// (`Shouter/Cargo.toml`).
    pub path: PathBuf,
    pub language: Language,
}

/// The objects a build of the root files compiles: those the root files
/// declare, and those their images instantiate (through nested images too).
pub fn objects_to_build(front: &FrontEnd, checked: &Checked) -> Vec<ObjectId> {
    let mut out = objects_used(front, checked);
    out.retain(|o| {
        checked.model.files[checked.model.object(*o).file.index()].origin == Origin::Source
    });
    out
}

/// The objects a build uses that come compiled already: imported from a
/// `.wasm` file, which goes into the bundles as it is.
pub fn prebuilt_objects(front: &FrontEnd, checked: &Checked) -> Vec<ObjectId> {
    let mut out = objects_used(front, checked);
    out.retain(|o| {
        checked.model.files[checked.model.object(*o).file.index()].origin == Origin::Wasm
    });
    out
}

/// What the root files declare or their images instantiate (through nested
/// images too), natives aside.
fn objects_used(front: &FrontEnd, checked: &Checked) -> Vec<ObjectId> {
    let model = &checked.model;
    let roots: HashSet<usize> = front.program.roots.iter().map(|m| m.0 as usize).collect();
    let mut out: Vec<ObjectId> = Vec::new();
    let mut seen_img: HashSet<ImageId> = HashSet::new();
    let mut stack: Vec<ImageId> = Vec::new();
    for (i, o) in model.objects.iter().enumerate() {
        if roots.contains(&o.file.index()) {
            out.push(ObjectId(i as u32));
        }
    }
    for (i, img) in model.images.iter().enumerate() {
        if roots.contains(&img.file.index()) {
            stack.push(ImageId(i as u32));
        }
    }
    while let Some(img) = stack.pop() {
        if !seen_img.insert(img) {
            continue;
        }
        for inst in &model.image(img).instances {
            match inst.of {
                Some(Shape::Object(o)) => out.push(o),
                Some(Shape::Image(j)) => stack.push(j),
                None => {}
            }
        }
    }
    out.sort();
    out.dedup();
    out.retain(|o| !model.object(*o).native);
    out
}

/// E0407 for each object to build whose implementation file is missing,
/// and E0408 for two that would be compiled from one file. Returns the
/// objects whose implementation is there and theirs alone, each with it.
pub fn check_implementations(
    front: &FrontEnd,
    checked: &Checked,
    loader: &dyn Loader,
    diags: &mut Diagnostics,
) -> Vec<Implementation> {
    let mut by_file: HashMap<PathBuf, ObjectId> = HashMap::new();
    let mut out = Vec::new();
    for o in objects_to_build(front, checked) {
        let def = checked.model.object(o);
        let module = &front.program.modules[def.file.index()];
        let ts = implementation_path(&module.key, &def.name);
        let at = checked.spans.objects[o.index()].name;
        if let Some(&first) = by_file.get(&ts) {
            diags.report(HeaderError::OneImplementation {
                object: def.name.clone(),
                at,
                other: checked.spans.objects[first.index()].name,
                file: ts.display().to_string(),
            });
            out.retain(|i: &Implementation| i.object != first);
            continue;
        }
        by_file.insert(ts.clone(), o);
        // The AssemblyScript file first, then the Cargo package.
        let candidates = [
            (ts.clone(), Language::AssemblyScript),
            (rust_package_path(&module.key, &def.name), Language::Rust),
        ];
        if let Some((path, language)) = candidates
            .into_iter()
            .find(|(path, _)| loader.load(path).is_ok())
        {
            out.push(Implementation {
                object: o,
                path,
                language,
            });
            continue;
        }
        let beside = module.key.with_extension("ts");
        diags.report(HeaderError::NoImplementation {
            object: def.name.clone(),
            at,
            file: ts.display().to_string(),
            beside: (beside != ts && loader.load(&beside).is_ok())
                .then(|| beside.display().to_string()),
        });
    }
    out
}
