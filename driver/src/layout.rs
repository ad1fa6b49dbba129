//! An SDK othc carries, written out where a compiler reads it.

use std::path::Path;

/// Writes an SDK's `files` into `dir` (made with its folders); files
/// already as they should be are left alone, so their times do not change
/// and a compiler watching them does not start again.
pub fn lay_out(files: &[(&str, &str)], dir: &Path) -> Result<(), String> {
    for (name, text) in files {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create `{}`: {e}", parent.display()))?;
        }
        if std::fs::read_to_string(&path).ok().as_deref() != Some(*text) {
            write_whole::write_whole(&path, text)
                .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
        }
    }
    Ok(())
}
