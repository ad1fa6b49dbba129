//! One function per fuzz target. Each takes the fuzzer's bytes, drives one
//! input boundary of the toolchain with them, and panics only when a
//! property fails (never because the input is bad).

use std::path::{Path, PathBuf};

use crucible::frame::{Direction, Frame, decode_all, encode_frame};
use othc::loader::MemoryLoader;
use othismo_runtime::{Io, Limits, Runtime};

/// A target's body: the fuzzer's bytes in, a panic when a property fails.
pub type Target = fn(&[u8]);

/// Every target, by the name its fuzz target and its replay folder
/// (`fixtures/fuzz/NAME/`) have.
pub const TARGETS: &[(&str, Target)] = &[
    ("lex_parse", lex_parse),
    ("check_render", check_render),
    ("fmt_roundtrip", fmt_roundtrip),
    ("values", values),
    ("wasm_header", wasm_header),
    ("bundle_load", bundle_load),
    ("frames", frames),
    ("tar_extract", tar_extract),
    ("host_abi", host_abi),
    ("http_response", http_response),
    ("json_decode", json_decode),
];

/// JSON as the Rust SDK reads it (the reader of every JSON message of a
/// Rust object, and of `othc test`): never a panic; what it takes, a
/// lenient reader (`serde_json`) takes too (it is stricter, never
/// looser); and what it writes it reads back to the same tree, written
/// again the same bytes (one form). Kept inputs: fixtures/fuzz/json_decode.
pub fn json_decode(data: &[u8]) {
    let Ok(tree) = othismo::json::decode(data) else {
        return;
    };
    // serde_json's quick float parsing (without its `float_roundtrip`)
    // rounds `1.7976931348623158e308`, a double's largest, to infinity and
    // refuses it: that one refusal is serde_json's, not a looser reading.
    if let Err(e) = serde_json::from_slice::<serde_json::Value>(data) {
        assert!(
            e.to_string().starts_with("number out of range"),
            "read by the SDK, refused by serde_json: {e}"
        );
    }
    let written = othismo::json::encode(&tree);
    let again = othismo::json::decode(&written).expect("what it writes, it reads");
    assert_eq!(othismo::json::encode(&again), written, "one form");
}

/// An `HttpResponse` as a module writes it to the Http object: where the
/// runtime reads it byte by byte, it reads what the `bson` crate reads.
pub fn http_response(data: &[u8]) {
    assert!(
        othismo_runtime::natives::http_response_readings_agree(data),
        "the direct reading and the crate's disagree"
    );
}

/// The file, value-file and BSON-block grammars: every error's span lies
/// inside the text.
pub fn lex_parse(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let inside = |errors: &[oth_syntax::SyntaxError]| {
        for e in errors {
            let s = e.span();
            assert!(
                s.start() <= s.end() && s.end() <= text.len(),
                "{e:?} outside the text"
            );
        }
    };
    inside(&oth_syntax::parse_file(text).errors);
    inside(&oth_syntax::parse_values(text).errors);
    inside(&oth_syntax::parse_bson(text, 0).errors);
}

/// A file checked with everything it imports from `othismo:env`, its
/// diagnostics rendered for people and as JSON lines (each valid JSON).
pub fn check_render(data: &[u8]) {
    let mut l = MemoryLoader::new();
    l.add("fuzz.oth", data.to_vec());
    let Ok(c) = othc::compile(&l, &[PathBuf::from("fuzz.oth")], &Default::default()) else {
        return;
    };
    let _ = othc::diagnostics::render::human(&c.front.sources, &c.front.diags, false);
    let json = othc::diagnostics::render::json(&c.front.sources, &c.front.diags);
    for line in json.lines() {
        serde_json::from_str::<serde_json::Value>(line).expect("a JSON diagnostic");
    }
}

/// The formatter: what it prints parses without errors, prints the same
/// again, and keeps every comment's text.
pub fn fmt_roundtrip(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(once) = othc::printer::format_file(text) else {
        return;
    };
    let parsed = oth_syntax::parse_file(&once);
    assert!(
        parsed.errors.iter().all(|e| e.is_warning()),
        "the formatted text does not parse: {:?}\n{once}",
        parsed.errors
    );
    let Ok(twice) = othc::printer::format_file(&once) else {
        panic!("the formatted text does not format:\n{once}");
    };
    assert_eq!(once, twice, "formatting is not idempotent");
    for t in oth_syntax::parse_file(text).trivia {
        assert!(
            once.contains(t.text.trim()),
            "the comment {:?} was lost",
            t.text
        );
    }
}

/// The image a value is given to: a slot of each kind of type.
const VALUES_IMAGE: &str = r#"
export schemas application/bson {
  enum Mood { calm, loud }
  message Inner { n: i32, tags?: [string] }
  message Everything {
    b: bool, s: string, i: i64, u: u8, f: f64, t?: time, id?: uuid, raw?: bytes,
    mood?: Mood, inner?: Inner, list?: [Inner], map?: {i32}, any?: any
  }
}
export object Keeper { serves { /x write Everything  /t write text/plain } }
export image Main {
  require all : Everything
  require text : text/plain = "hi"
  instance k = Keeper
  write /k/x all
  write /k/t text
}
"#;

/// A value file and a `--set`, read against an image with slots of every
/// kind: checked and encoded, or refused with diagnostics.
pub fn values(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut l = MemoryLoader::new();
    l.add("main.oth", VALUES_IMAGE);
    l.add("values.othv", text);
    let inputs = othc::ValueInputs {
        files: vec![PathBuf::from("values.othv")],
        sets: vec![format!("all={text}")],
    };
    let _ = othc::compile(&l, &[PathBuf::from("main.oth")], &inputs);
}

/// A module's header read as the runtime reads it: the bytes as a whole
/// module, and as the text of a header section and of a schemas section.
pub fn wasm_header(data: &[u8]) {
    let _ = othc::header::read(data);
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let header = format!("{}\n{text}", othc::wasm::HEADER_MAGIC);
    let _ = othc::header::read(&othc::wasm::module_with_sections(&[(
        othc::wasm::HEADER_SECTION,
        &header,
    )]));
    let _ = othc::header::read(&othc::wasm::module_with_sections(&[
        (
            othc::wasm::HEADER_SECTION,
            "# othismo header 1\nexport object Pad { }",
        ),
        ("othismo:schemas:application/bson", text),
    ]));
}

/// Limits small enough that one execution stays short.
fn small_limits() -> Limits {
    Limits {
        memory_mib: 16,
        time_ms: 100,
        payload: 1 << 16,
        queue: 1024,
        held_mib: 4,
        // A fuzzed module that traps stays stopped: one run, one outcome.
        restarts: 0,
        // One run, one order: a failure found is a failure replayed.
        workers: Some(1),
        ..Limits::default()
    }
}

/// Runs `bundle` with `input`, its output discarded; `false` when it does
/// not load.
fn run(bundle: &[u8], input: &[&str]) -> bool {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let lines: Vec<String> = input.iter().map(|s| s.to_string()).collect();
    let io = Io {
        input: Box::new(lines.into_iter().map(othismo_runtime::InputLine::from)),
        out: &mut out,
        err: &mut err,
        trace: None,
    };
    match Runtime::load(bundle, small_limits(), io) {
        Ok(r) => {
            let status = r.run();
            assert!(status == 0 || status == 1, "exit status {status}");
            true
        }
        Err(_) => false,
    }
}

/// A bundle as `othismo-run` loads it: refused, or loaded and run.
pub fn bundle_load(data: &[u8]) {
    run(data, &["a line"]);
}

/// Crucible frames, both directions: what decodes, encoded again, decodes
/// to the same frames.
pub fn frames(data: &[u8]) {
    for dir in [Direction::GuestToHost, Direction::HostToGuest] {
        let frames: Vec<Frame> = match decode_all(data, dir) {
            Ok(f) => f,
            Err((f, _)) => f,
        };
        let mut again = Vec::new();
        for f in &frames {
            encode_frame(f.kind, &f.payload, &mut again);
        }
        let back = match decode_all(&again, dir) {
            Ok(f) => f,
            Err((f, _)) => f,
        };
        assert_eq!(back, frames, "frames changed in a round trip");
    }
}

/// A tar archive pushed into a sandbox: refused, or extracted with nothing
/// written outside the destination and no link leading out of it.
pub fn tar_extract(data: &[u8]) {
    use std::sync::atomic::{AtomicU64, Ordering};
    static RUN: AtomicU64 = AtomicU64::new(0);
    let at = std::env::temp_dir().join(format!(
        "othismo-fuzz-tar-{}-{}",
        std::process::id(),
        RUN.fetch_add(1, Ordering::Relaxed)
    ));
    let root = at.join("root");
    std::fs::create_dir_all(&root).expect("a scratch folder");
    std::fs::write(at.join("secret"), "secret").expect("a scratch file");
    let _ = crucible::guest::extract_tar(&root, "/dest", data);
    let names: Vec<String> = std::fs::read_dir(&at)
        .expect("the scratch folder")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let outside_untouched = names.len() == 2
        && std::fs::read_to_string(at.join("secret")).ok().as_deref() == Some("secret");
    let escape = leads_out(&root, &root);
    let _ = std::fs::remove_dir_all(&at);
    assert!(
        outside_untouched,
        "something was written outside: {names:?}"
    );
    if let Some(link) = escape {
        panic!("a link leads out of the sandbox: {}", link.display());
    }
}

/// A link beneath `dir` that resolves outside `root`, if any.
fn leads_out(root: &Path, dir: &Path) -> Option<PathBuf> {
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let p = e.path();
        let Ok(meta) = std::fs::symlink_metadata(&p) else {
            continue;
        };
        if meta.file_type().is_symlink() {
            if let Ok(real) = std::fs::canonicalize(&p)
                && !real.starts_with(std::fs::canonicalize(root).ok()?)
            {
                return Some(p);
            }
        } else if meta.is_dir()
            && let Some(found) = leads_out(root, &p)
        {
            return Some(found);
        }
    }
    None
}

/// The image the host-ABI target's modules run in: one object made of the
/// fuzzer's calls, a peer it needs and that needs it, and the console.
const ABI_IMAGE: &str = r#"
import { Console } from "othismo:env"
object Peer {
  serves { /x  read -> text/plain  /x write text/plain  /** read -> */* }
  needs /back { /x  read -> text/plain }
}
object Fuzzed {
  serves { /x  read -> text/plain  /s watch -> text/plain* }
  needs /peer { /x  read -> text/plain  /x write text/plain  /** read -> */* }
  needs /console { /  watch -> text/plain*  / write text/plain }
}
image Abi {
  instance console = Console
  instance fuzzed = Fuzzed { mount /peer /peer  mount /console /console }
  instance peer = Peer { mount /back /fuzzed }
}
"#;

/// The prelude of the host-ABI target's modules: the imports, a memory
/// with text at known places, and an allocator.
const ABI_PRELUDE: &str = r#"
(import "othismo" "request" (func $request (param i32 i32 i32 i32 i32 i32 i32) (result i32)))
(import "othismo" "cancel" (func $cancel (param i32)))
(import "othismo" "answer" (func $answer (param i32 i32 i32 i32 i32 i32)))
(import "othismo" "fail" (func $fail (param i32 i32 i32 i32 i32 i32)))
(import "othismo" "forward" (func $forward (param i32 i32 i32)))
(import "othismo" "bind" (func $bind (param i32 i32 i32 i32 i32) (result i32)))
(import "othismo" "unmount" (func $unmount (param i32 i32) (result i32)))
(import "othismo" "expose" (func $expose (param i32 i32 i32 i32 i32) (result i32)))
(memory (export "memory") 1)
(data (i32.const 0) "text/plain")
(data (i32.const 16) "/peer/x")
(data (i32.const 32) "/console")
(data (i32.const 48) "/back/x")
(data (i32.const 64) "hello")
(data (i32.const 80) "/x")
(global $heap (mut i32) (i32.const 32768))
(func (export "othismo_alloc") (param $n i32) (result i32)
  (local $p i32)
  (local.set $p (global.get $heap))
  (global.set $heap (i32.add (local.get $p) (i32.and (i32.add (local.get $n) (i32.const 7)) (i32.const -8))))
  (if (i32.gt_u (global.get $heap) (i32.const 65536)) (then (global.set $heap (i32.const 32768)) (local.set $p (i32.const 32768))))
  (local.get $p))
(func (export "_start"))
"#;

/// Arguments the fuzzer picks from: places that hold text, edges of
/// memory, and the values that break arithmetic.
const ARGS: &[i32] = &[
    0,
    1,
    2,
    5,
    7,
    8,
    10,
    16,
    32,
    48,
    64,
    80,
    100,
    4096,
    65535,
    65536,
    65537,
    -1,
    -16,
    i32::MIN,
    i32::MAX,
];

/// A sequence of host calls with arguments drawn from `data`, as the
/// body of a WAT function; `$id` names the request being served, if any.
fn calls(data: &[u8]) -> String {
    let mut out = String::new();
    let mut bytes = data.iter().copied();
    let arg = |bytes: &mut dyn Iterator<Item = u8>| -> String {
        match bytes.next() {
            Some(b) if b >= 0xf0 => "(local.get $id)".to_string(),
            Some(b) => format!("(i32.const {})", ARGS[b as usize % ARGS.len()]),
            None => "(i32.const 0)".to_string(),
        }
    };
    while let Some(op) = bytes.next() {
        let (name, n, result) = match op % 8 {
            0 => ("request", 7, true),
            1 => ("cancel", 1, false),
            2 => ("answer", 6, false),
            3 => ("fail", 6, false),
            4 => ("forward", 3, false),
            5 => ("bind", 5, true),
            6 => ("unmount", 2, true),
            _ => ("expose", 5, true),
        };
        let args: Vec<String> = (0..n).map(|_| arg(&mut bytes)).collect();
        let call = format!("(call ${name} {})", args.join(" "));
        if result {
            out.push_str(&format!("(drop {call})\n"));
        } else {
            out.push_str(&call);
            out.push('\n');
        }
    }
    out
}

/// Modules that make the host calls the fuzzer chose, with the arguments
/// it chose, when started, when serving, and when answered: each either
/// works or stops its instance; the runtime never panics.
pub fn host_abi(data: &[u8]) {
    let third = data.len() / 3;
    let (start, rest) = data.split_at(third);
    let (serve, answer) = rest.split_at(rest.len() / 2);
    let wat = format!(
        ";; object Fuzzed\n\
         (func (export \"othismo_start\") (local $id i32)\n{}\
         (drop (call $request (i32.const 2) (i32.const 32) (i32.const 8) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0))))\n\
         (func (export \"othismo_serve\") (param $id i32) (param i32 i32 i32 i32 i32 i32 i32 i32)\n{})\n\
         (func (export \"othismo_answer\") (param $id i32) (param i32 i32 i32 i32 i32)\n{})\n\
         ;; object Peer\n\
         (func (export \"othismo_serve\") (param $id i32) (param i32 i32 i32 i32 i32 i32 i32 i32)\n\
         (call $answer (local.get $id) (i32.const 1) (i32.const 0) (i32.const 10) (i32.const 64) (i32.const 5)))\n",
        calls(start),
        calls(serve),
        calls(answer)
    );
    let mut l = MemoryLoader::new();
    l.add("abi.oth", ABI_IMAGE);
    let bundle = wat_image_bundle(&l, &wat);
    run(&bundle, &["one", "two"]);
}

fn wat_image_bundle(l: &MemoryLoader, wat: &str) -> Vec<u8> {
    crate::wat_bundle(l, Path::new("abi.oth"), wat, ABI_PRELUDE, &[])
        .unwrap_or_else(|e| panic!("the host-ABI image does not build: {e}"))
}
