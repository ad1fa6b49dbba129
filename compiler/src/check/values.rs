//! Slot values from outside the image: value files (`--values FILE`) and
//! `--set 'slot=Value'`, read into the source map so their diagnostics point
//! into them.

use std::path::PathBuf;

use oth_syntax::ast::ValueLine;

use super::SlotValue;
use crate::loader::{Loader, decode_source};
use crate::resolve::{FrontEnd, RootError};

/// What the command line gave, in its order: value files, then `--set`s.
#[derive(Clone, Debug, Default)]
pub struct ValueInputs {
    pub files: Vec<PathBuf>,
    pub sets: Vec<String>,
}

/// Reads and parses every value file and `--set`; the result is in order
/// of precedence (later wins). A value file that cannot be read is a
/// usage failure, like a root file.
pub fn load_values(
    front: &mut FrontEnd,
    loader: &dyn Loader,
    inputs: &ValueInputs,
) -> Result<Vec<SlotValue>, RootError> {
    let mut out = Vec::new();
    for path in &inputs.files {
        let text = loader
            .load(path)
            .map_err(|e| e.to_string())
            .and_then(decode_source)
            .map_err(|reason| RootError {
                path: path.clone(),
                reason,
            })?;
        parse_into(front, path.display().to_string(), text, &mut out);
    }
    for (i, set) in inputs.sets.iter().enumerate() {
        let name = if inputs.sets.len() == 1 {
            "--set".to_string()
        } else {
            format!("--set #{}", i + 1)
        };
        parse_into(front, name, set.clone(), &mut out);
    }
    Ok(out)
}

fn parse_into(front: &mut FrontEnd, name: String, text: String, out: &mut Vec<SlotValue>) {
    let file = front.sources.add(name, text);
    let parsed = oth_syntax::parse_values(&front.sources.get(file).text);
    for e in &parsed.errors {
        front.diags.syntax(file, e);
    }
    for line in parsed.tree.lines {
        if let ValueLine::Set { slot, value, .. } = line {
            out.push(SlotValue { file, slot, value });
        }
    }
}
