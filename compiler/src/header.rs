//! A built module's header, read back: the one way the runtime (and
//! anything else holding only a `.wasm`) learns what an object serves and
//! needs. The header and schema sections are self-contained `.oth` text
//! (book: reference/bundles.md), so reading them is parsing and lowering
//! that text; nothing else is loaded.

use std::path::PathBuf;

use crate::diagnostics::Severity;
use crate::loader::MemoryLoader;
use crate::model::{Model, ObjectDef};
use crate::resolve::FrontEnd;

/// What a header declares: its object, in the model its types live in.
#[derive(Clone, Debug)]
pub struct Header {
    pub model: Model,
    pub object: ObjectDef,
}

/// Reads the object a module's header sections declare: the sections are
/// parsed and lowered (with the header and schema rules), nothing more.
pub fn read(wasm: &[u8]) -> Result<Header, String> {
    let (front, model) = model_of("module.wasm", wasm.to_vec())
        .map_err(|e| format!("its header does not check: {e}"))?;
    let root = front.program.roots[0].0;
    let object = model
        .objects
        .iter()
        .find(|o| o.file.0 == root)
        .cloned()
        .ok_or("its header declares no object")?;
    Ok(Header { model, object })
}

/// The headers of the runtime's native objects (`othismo:env`).
pub fn natives() -> Result<Vec<Header>, String> {
    let import = crate::natives::Native::import_all().into_bytes();
    let (_, model) = model_of("natives.oth", import)
        .map_err(|e| format!("the runtime's own header does not check: {e}"))?;
    Ok(model
        .objects
        .iter()
        .filter(|o| o.native)
        .map(|o| Header {
            model: model.clone(),
            object: o.clone(),
        })
        .collect())
}

/// Loads one file held in memory and lowers it; `Err` names the first error.
fn model_of(name: &str, bytes: Vec<u8>) -> Result<(FrontEnd, Model), String> {
    let mut l = MemoryLoader::new();
    l.add(name, bytes);
    let mut front = crate::resolve::load(&l, &[PathBuf::from(name)]).map_err(|e| e.to_string())?;
    let mut diags = std::mem::take(&mut front.diags);
    let model = crate::check::model_only(&mut front, &mut diags);
    match diags
        .sorted()
        .into_iter()
        .find(|d| d.severity == Severity::Error)
    {
        Some(d) => Err(format!("{} ({})", d.message, d.code.as_str())),
        None => Ok((front, model)),
    }
}
