//! An image whose objects are implemented by small WAT modules: each
//! `;; object NAME` part of a text, wrapped in a prelude (the host ABI's
//! imports, a memory, an allocator). The runtime's rule tests and the
//! host-ABI fuzz target build their bundles this way.

use std::path::{Path, PathBuf};

use othc::bundle::{Built, sha256_hex};
use othc::loader::Loader;
use othc::model::{ImageId, ObjectId, Origin};

/// The bundle of the first image of `file` (loaded through `loader`, with
/// `sets` as `--set` values), whose objects are implemented by the
/// `;; object NAME` parts of `wat`, each wrapped in `prelude`. Exports a
/// part leaves out are added as no-ops.
pub fn wat_bundle(
    loader: &dyn Loader,
    file: &Path,
    wat: &str,
    prelude: &str,
    sets: &[String],
) -> Result<Vec<u8>, String> {
    let inputs = othc::ValueInputs {
        files: Vec::new(),
        sets: sets.to_vec(),
    };
    let c = othc::compile(loader, &[file.to_path_buf()], &inputs).map_err(|e| e.to_string())?;
    if c.front.diags.has_errors() {
        return Err(othc::diagnostics::render::human(
            &c.front.sources,
            &c.front.diags,
            false,
        ));
    }
    let model = &c.checked.model;
    let root_file = c.front.program.roots[0].0;
    let parts = wat_parts(wat);
    let mut built = Vec::new();
    let mut modules = Vec::new();
    for (i, o) in model.objects.iter().enumerate() {
        if o.native || o.file.0 != root_file || model.files[o.file.index()].origin != Origin::Source
        {
            continue;
        }
        let body = parts
            .iter()
            .find(|(n, _)| *n == o.name)
            .map(|(_, b)| b.as_str())
            .ok_or_else(|| format!("no `;; object {}` in the .wat", o.name))?;
        let text = format!("(module\n{prelude}\n{body}\n{})", default_exports(body));
        let wasm = wat::parse_str(&text).map_err(|e| format!("{}: {e}", o.name))?;
        let id = ObjectId(i as u32);
        let wasm = othc::sections::append(&wasm, &othc::sections::sections_of(model, id))?;
        built.push(Built {
            object: id,
            name: o.name.clone(),
            path: PathBuf::from(format!("{}.wasm", o.name)),
            sha256: sha256_hex(&wasm),
            cached: false,
        });
        modules.push((format!("modules/{}.wasm", o.name), wasm));
    }
    let img = model
        .images
        .iter()
        .position(|i| i.file.0 == root_file)
        .ok_or("the file declares no image")?;
    let json = othc::bundle::image_json(&c.checked, ImageId(img as u32), &built)?;
    Ok(othc::bundle::write(&json, &modules)?)
}

/// `;; object NAME` starts the part of NAME.
fn wat_parts(wat: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in wat.lines() {
        if let Some(name) = line.trim().strip_prefix(";; object ") {
            out.push((name.trim().to_string(), String::new()));
        } else if let Some((_, body)) = out.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    out
}
/// No-op exports for those a part leaves out.
fn default_exports(body: &str) -> String {
    let defaults = [
        ("othismo_start", ""),
        (
            "othismo_serve",
            "(param i32 i32 i32 i32 i32 i32 i32 i32 i32)",
        ),
        ("othismo_answer", "(param i32 i32 i32 i32 i32 i32)"),
        ("othismo_error", "(param i32 i32 i32 i32 i32 i32)"),
        ("othismo_cancel", "(param i32)"),
    ];
    defaults
        .iter()
        .filter(|(name, _)| !body.contains(&format!("(export \"{name}\")")))
        .map(|(name, params)| format!("(func (export \"{name}\") {params})\n"))
        .collect()
}
