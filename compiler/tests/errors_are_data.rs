//! Every phase's errors are data with their wording in one place: a
//! diagnostic is built only in an error enum's `to_diagnostic` (files named
//! `*errors.rs`) or in the diagnostics module itself. A `Diagnostic::new`
//! anywhere else in the compiler or the build driver fails this test.

use std::path::Path;

#[test]
fn diagnostics_are_built_only_from_error_enums() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = test_support::files_with_extension(&root.join("compiler/src"), "rs");
    files.extend(test_support::files_with_extension(
        &root.join("driver/src"),
        "rs",
    ));
    assert!(files.len() > 40);
    let allowed = |p: &Path| {
        let name = p.file_name().unwrap().to_string_lossy();
        name.ends_with("errors.rs") || p.parent().is_some_and(|d| d.ends_with("diagnostics"))
    };
    let mut found = Vec::new();
    for f in files.iter().filter(|f| !allowed(f)) {
        let text = std::fs::read_to_string(f).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        for (n, line) in code.lines().enumerate() {
            if line.contains("Diagnostic::new(") && !line.trim_start().starts_with("//") {
                found.push(format!("{}:{}", f.display(), n + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "diagnostics built outside an error enum (add a variant to the phase's enum instead):\n{}",
        found.join("\n")
    );
}
