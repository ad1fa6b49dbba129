//! Input nested far past the limit (E0109) is one diagnostic, never a
//! stack overflow: a 20,000-deep list type, a 10,000-deep literal, the same
//! in a value given with `--set`, formatting them, and a module header
//! holding such a type, read as the runtime reads it. Each of these aborted
//! the process before the limit (a test binary that overflows its stack
//! aborts, so this test fails rather than reports).

use std::path::PathBuf;

use othc::loader::MemoryLoader;
use othc::{ValueInputs, compile};

const TYPE_DEPTH: usize = 20_000;
const VALUE_DEPTH: usize = 10_000;

fn deep_type() -> String {
    format!("{}string{}", "[".repeat(TYPE_DEPTH), "]".repeat(TYPE_DEPTH))
}

fn deep_value() -> String {
    format!("{}1{}", "[".repeat(VALUE_DEPTH), "]".repeat(VALUE_DEPTH))
}

fn codes(c: &othc::Compilation) -> Vec<&'static str> {
    c.front.diags.iter().map(|d| d.code.as_str()).collect()
}

/// Runs `f` on a thread with a small stack (256 KiB), as a stricter
/// stand-in for whatever stack a caller gives the compiler.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(f)
        .unwrap()
        .join()
        .expect("no overflow, no panic")
}

#[test]
fn a_deep_type_and_a_deep_literal_are_one_error_each() {
    let src = format!(
        "export schemas application/bson {{\n  message Deep {{ cells: {} }}\n  message Box {{ items: [[i32]] }}\n}}\n\
         export object Keeper {{ serves {{ /box write Box }} }}\n\
         export image Main {{\n  instance k = Keeper\n  write /k/box Box {{ items: {} }}\n}}\n",
        deep_type(),
        deep_value()
    );
    let c = on_small_stack(move || {
        let mut l = MemoryLoader::new();
        l.add("deep.oth", src.clone());
        let c = compile(&l, &[PathBuf::from("deep.oth")], &ValueInputs::default()).unwrap();
        let formatted = othc::printer::format_file(&src);
        assert!(
            formatted.is_err(),
            "a file with syntax errors is not formatted"
        );
        codes(&c)
    });
    assert_eq!(c, vec!["E0109", "E0109"]);
}

#[test]
fn a_deep_value_given_with_set_is_one_error() {
    let codes = on_small_stack(|| {
        let mut l = MemoryLoader::new();
        l.add(
            "main.oth",
            "export object Keeper { serves { /box write text/plain } }\n\
             export image Main {\n  require box : text/plain\n  instance k = Keeper\n  write /k/box box\n}\n",
        );
        let inputs = ValueInputs {
            files: Vec::new(),
            sets: vec![format!("box={}", deep_value())],
        };
        let c = compile(&l, &[PathBuf::from("main.oth")], &inputs).unwrap();
        codes(&c)
    });
    assert!(codes.contains(&"E0109"), "{codes:?}");
}

#[test]
fn a_module_header_with_a_deep_type_is_refused_not_overflowed() {
    let header = "# othismo header 1\nexport object Pad { serves { /p write Deep } }";
    let schemas = format!(
        "export schemas application/bson {{ message Deep {{ cells: {} }} }}",
        deep_type()
    );
    let err = on_small_stack(move || {
        let wasm = othc::wasm::module_with_sections(&[
            ("othismo:header", header),
            ("othismo:schemas:application/bson", &schemas),
        ]);
        othc::header::read(&wasm)
            .map(|_| ())
            .unwrap_err()
            .to_string()
    });
    assert!(err.contains("E0109"), "{err}");
}
