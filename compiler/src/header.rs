//! A built module's header, read back: the one way the runtime (and
//! anything else holding only a `.wasm`) learns what an object serves and
//! needs. The header and schema sections are self-contained `.oth` text
//! (book: reference/bundles.md), so reading them is parsing and lowering
//! that text; nothing else is loaded.

use std::path::PathBuf;

use crate::diagnostics::{Code, Severity};
use crate::loader::MemoryLoader;
use crate::model::{Model, ObjectDef};
use crate::resolve::FrontEnd;

/// What a header declares: its object, in the model its types live in.
#[derive(Clone, Debug)]
pub struct Header {
    pub model: Model,
    pub object: ObjectDef,
}

/// Why a header cannot be read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadError {
    /// The sections could not be loaded (not a module, no header
    /// section, a section too large): what loading said.
    Unloadable(String),
    /// Its text does not check: the first error and its code.
    DoesNotCheck { code: Code, message: String },
    /// It checks, and declares no object.
    NoObject,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Unloadable(why) => write!(f, "its header does not check: {why}"),
            ReadError::DoesNotCheck { code, message } => {
                write!(
                    f,
                    "its header does not check: {message} ({})",
                    code.as_str()
                )
            }
            ReadError::NoObject => f.write_str("its header declares no object"),
        }
    }
}

impl std::error::Error for ReadError {}

/// Reads the object a module's header sections declare: the sections are
/// parsed and lowered (with the header and schema rules), nothing more.
pub fn read(wasm: &[u8]) -> Result<Header, ReadError> {
    let (front, model) = model_of("module.wasm", wasm.to_vec())?;
    let root = front.program.roots[0].0;
    let object = model
        .objects
        .iter()
        .find(|o| o.file.0 == root)
        .cloned()
        .ok_or(ReadError::NoObject)?;
    Ok(Header { model, object })
}

/// The headers of the runtime's native objects (`othismo:env`).
pub fn natives() -> Result<Vec<Header>, ReadError> {
    let import = crate::natives::Native::import_all().into_bytes();
    let (_, model) = model_of("natives.oth", import)?;
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
fn model_of(name: &str, bytes: Vec<u8>) -> Result<(FrontEnd, Model), ReadError> {
    let mut l = MemoryLoader::new();
    l.add(name, bytes);
    let mut front = crate::resolve::load(&l, &[PathBuf::from(name)])
        .map_err(|e| ReadError::Unloadable(e.to_string()))?;
    let mut diags = std::mem::take(&mut front.diags);
    let model = crate::check::model_only(&mut front, &mut diags);
    match diags
        .sorted()
        .into_iter()
        .find(|d| d.severity == Severity::Error)
    {
        Some(d) => Err(ReadError::DoesNotCheck {
            code: d.code,
            message: d.message.clone(),
        }),
        None => Ok((front, model)),
    }
}

#[cfg(test)]
mod tests {
    use super::{ReadError, read};
    use crate::diagnostics::Code;
    use crate::wasm::module_with_sections;

    #[test]
    fn each_way_a_header_cannot_be_read_is_its_own_error() {
        assert!(matches!(
            read(b"not a module"),
            Err(ReadError::Unloadable(_))
        ));
        let no_object = module_with_sections(&[(
            "othismo:header",
            "# othismo header 1\nexport schemas application/bson { message M { a: string } }",
        )]);
        assert_eq!(read(&no_object).unwrap_err(), ReadError::NoObject);
        let broken = module_with_sections(&[(
            "othismo:header",
            "# othismo header 1\nexport object O { serves { / read -> Nope } }",
        )]);
        let err = read(&broken).unwrap_err();
        assert!(
            matches!(err, ReadError::DoesNotCheck { code, .. } if code != Code::E0110),
            "{err}"
        );
        assert!(
            err.to_string().starts_with("its header does not check: "),
            "{err}"
        );
    }
}
