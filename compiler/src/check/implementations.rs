//! What `othc build` needs beyond `othc check`: every object it will compile
//! has its implementation file (E0407). An object without `native` is
//! implemented by the AssemblyScript file with the same stem next to its
//! `.oth` file (`Greeter.oth` → `Greeter.ts`).

use std::collections::HashSet;
use std::path::PathBuf;

use super::Checked;
use super::header::HeaderError;
use crate::diagnostics::Diagnostics;
use crate::loader::Loader;
use crate::model::{FileOrigin, ImageId, ObjectId, Shape};
use crate::resolve::FrontEnd;

/// The implementation file of the objects declared in `key` (a `.oth` path).
pub fn implementation_path(key: &std::path::Path) -> PathBuf {
    key.with_extension("ts")
}

/// The objects a build of the root files compiles: those the root files
/// declare, and those their images instantiate (through nested images too).
pub fn objects_to_build(front: &FrontEnd, checked: &Checked) -> Vec<ObjectId> {
    let mut out = objects_used(front, checked);
    out.retain(|o| {
        checked.model.files[checked.model.object(*o).file.index()].origin == FileOrigin::Source
    });
    out
}

/// The objects a build uses that come compiled already: imported from a
/// `.wasm` file, which goes into the bundles as it is.
pub fn prebuilt_objects(front: &FrontEnd, checked: &Checked) -> Vec<ObjectId> {
    let mut out = objects_used(front, checked);
    out.retain(|o| {
        checked.model.files[checked.model.object(*o).file.index()].origin == FileOrigin::Wasm
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

/// E0407 for each object to build whose implementation file is missing.
pub fn check_implementations(
    front: &FrontEnd,
    checked: &Checked,
    loader: &dyn Loader,
    diags: &mut Diagnostics,
) {
    let mut reported: HashSet<PathBuf> = HashSet::new();
    for o in objects_to_build(front, checked) {
        let def = checked.model.object(o);
        let module = &front.program.modules[def.file.index()];
        let ts = implementation_path(&module.key);
        if loader.load(&ts).is_ok() || !reported.insert(ts.clone()) {
            continue;
        }
        diags.report(HeaderError::NoImplementation {
            object: def.name.clone(),
            at: checked.spans.objects[o.index()].name,
            file: ts.display().to_string(),
        });
    }
}
