//! Choosing one of the images or objects a file declares, by `--image` or
//! `--object NAME`, or the only one there is; otherwise a message saying
//! what there is to choose from.

use std::path::Path;

/// The position in `declared` (names of the `kind`s `file` declares) of
/// the one `wanted`, or of the only one; `Err` is the message. `why` ends
/// the message for a file declaring none (what the command needs one for).
pub fn one(
    file: &Path,
    kind: &str,
    declared: &[&str],
    wanted: Option<&str>,
    why: &str,
) -> Result<usize, String> {
    let file = file.display();
    let names = declared.join(", ");
    match (wanted, declared) {
        (Some(n), _) => declared.iter().position(|d| *d == n).ok_or_else(|| {
            let has = if declared.is_empty() {
                String::new()
            } else {
                format!("; its {kind}s: {names}")
            };
            format!("`{file}` declares no {kind} `{n}`{has}")
        }),
        (None, [_]) => Ok(0),
        (None, []) => Err(format!("`{file}` declares no {kind}{why}")),
        (None, _) => Err(format!(
            "`{file}` declares several {kind}s ({names}): pick one with --{kind}"
        )),
    }
}
