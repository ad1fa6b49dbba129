//! The JSON Schema `othc gen --lang jsonschema` writes for each file of
//! `fixtures/codegen/json/` is snapshot-tested (`json_schema__X`);
//! `rust_json.rs` validates what the codecs write against it with Python's
//! `jsonschema`.

mod common;
use common::{RootLoader, root};

#[test]
fn the_json_schema_is_as_reviewed() {
    let files = test_support::files_with_extension(&root().join("fixtures/codegen/json"), "oth");
    assert!(!files.is_empty());
    for path in files {
        let rel = path.strip_prefix(root()).unwrap().to_path_buf();
        let c = othc::compile(&RootLoader, &[rel], &Default::default()).unwrap();
        assert!(!c.front.diags.has_errors(), "{}", path.display());
        let ix = othc::model::FileIx(c.front.program.roots[0].0);
        let g = othc::backends::json_schema::generate(&c.checked.model, ix);
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(root().join("snapshots"));
        settings.set_prepend_module_to_snapshot(false);
        settings.set_omit_expression(true);
        settings.set_input_file(&path);
        let body = format!("//// {}\n{}", g.file_name, g.text);
        settings.bind(|| insta::assert_snapshot!(format!("json_schema__{stem}"), body));
    }
}
