//! A built module's header, read back: the one way the runtime (and
//! anything else holding only a `.wasm`) learns what an object serves and
//! needs. The header and schema sections are self-contained `.oth` text
//! (book: reference/bundles.md), so reading them is parsing and lowering
//! that text; nothing else is loaded.

use std::path::PathBuf;

use crate::model::{Model, ObjectDef};

/// What a header declares: its object, in the model its types live in.
#[derive(Clone, Debug)]
pub struct Header {
    pub model: Model,
    pub object: ObjectDef,
}

/// Reads the object a module's header sections declare.
pub fn read(wasm: &[u8]) -> Result<Header, String> {
    let mut l = crate::loader::MemoryLoader::new();
    l.add("module.wasm", wasm.to_vec());
    let c = crate::compile(&l, &[PathBuf::from("module.wasm")], &Default::default())
        .map_err(|e| e.to_string())?;
    if c.front.diags.has_errors() {
        return Err("its header does not check".into());
    }
    let root = c.front.program.roots[0].0;
    let object = c
        .checked
        .model
        .objects
        .iter()
        .find(|o| o.file.0 == root)
        .cloned()
        .ok_or("its header declares no object")?;
    Ok(Header {
        model: c.checked.model,
        object,
    })
}

/// The headers of the runtime's native objects (`othismo:env`).
pub fn natives() -> Result<Vec<Header>, String> {
    let mut l = crate::loader::MemoryLoader::new();
    l.add(
        "natives.oth",
        b"import { Console, Files, Clock } from \"othismo:env\"\n".to_vec(),
    );
    let c = crate::compile(&l, &[PathBuf::from("natives.oth")], &Default::default())
        .map_err(|e| e.to_string())?;
    if c.front.diags.has_errors() {
        return Err("the runtime's own header does not check".into());
    }
    let model = c.checked.model;
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
