//! Precompiled code (`othismo-run --code DIR`): modules compiled ahead of
//! time for any x86-64 load and run exactly as modules compiled at load
//! time; code that cannot be used (damaged, missing) is compiled instead,
//! with a warning naming the module and why.

mod common;

use othismo_runtime::code;

const WAT: &str = r#"
;; object Wrap
(func (export "othismo_serve") (param i32 i32 i32 i32 i32 i32 i32 i32 i32)
  (call $abort (i32.const 256) (i32.const 256) (i32.const 1) (i32.const 2)))
;; object Past
(func (export "othismo_serve") (param i32 i32 i32 i32 i32 i32 i32 i32 i32)
  (call $abort (i32.const 256) (i32.const 256) (i32.const 3) (i32.const 4)))
;; object Long
(func (export "othismo_serve") (param i32 i32 i32 i32 i32 i32 i32 i32 i32)
  (call $abort (i32.const 256) (i32.const 256) (i32.const 5) (i32.const 6)))
;; object Caller
(data (i32.const 256) "/wrap/x")
(data (i32.const 264) "/past/x")
(data (i32.const 272) "/long/x")
(func (export "othismo_start")
  (drop (call $req (i32.const 1) (i32.const 256) (i32.const 7)))
  (drop (call $req (i32.const 1) (i32.const 264) (i32.const 7)))
  (drop (call $req (i32.const 1) (i32.const 272) (i32.const 7))))
"#;

fn run(bundle: &[u8], code: Option<&std::path::Path>) -> (i32, String) {
    let r = common::run_with_code(bundle, &[], common::limits(), code);
    (r.status, r.err)
}

#[test]
fn precompiled_code_runs_as_compiled_code_and_bad_code_is_compiled_instead() {
    let prelude = common::prelude_with_abort();
    let file = common::root().join("fixtures/run/abort/Abort.oth");
    let bundle = common::wat_bundle(&file, WAT, &prelude, &[]).unwrap();
    let (want_status, want_err) = run(&bundle, None);
    assert_eq!(want_status, 1, "{want_err}");

    let dir = common::scratch("precompiled");
    let (_, modules) = othc::bundle::read(&bundle).unwrap();
    assert_eq!(modules.len(), 4);
    for (_, wasm) in &modules {
        std::fs::write(
            dir.join(code::file_name(wasm)),
            code::precompile(wasm).unwrap(),
        )
        .unwrap();
    }
    let (status, err) = run(&bundle, Some(&dir));
    assert_eq!(
        (status, &err),
        (want_status, &want_err),
        "with every module precompiled"
    );
    assert!(!err.contains("precompiled"), "{err}");

    // One damaged, one missing: each compiled here, saying so; the run is the same.
    let (first, second) = (&modules[0], &modules[1]);
    std::fs::write(dir.join(code::file_name(&first.1)), b"not code").unwrap();
    std::fs::remove_file(dir.join(code::file_name(&second.1))).unwrap();
    let (status, err) = run(&bundle, Some(&dir));
    assert_eq!(status, want_status);
    for (name, _) in [first, second] {
        assert!(
            err.contains(&format!("`{name}`: the precompiled code is not used")),
            "{name}: {err}"
        );
    }
    assert_eq!(
        err.matches("precompiled code is not used").count(),
        2,
        "{err}"
    );
    assert!(err.contains(want_err.trim()), "{err}");
}
