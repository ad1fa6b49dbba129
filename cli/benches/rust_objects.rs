//! `cargo bench -p othc-cli --bench rust_objects`
//!
//! Objects in Rust, beside their anchors in the same run:
//! - the Rust codec (the `othismo` crate and the bindings of
//!   `fixtures/codegen/everything.oth`, built for the host) decoding and
//!   encoding the same documents as the `bson` crate: ns per document of
//!   each, and the ratio;
//! - `othc build` of examples/hello-rust's Shouter (a Cargo package) cold
//!   (an empty module cache) and warm, beside examples/hello's Shouter (in
//!   AssemblyScript) built the same ways.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use othc::model::{FileIx, TypeId, TypeKind};
use othc_contracts::choices::Choices;
use othc_contracts::values;

struct Disk;

impl othc::loader::Loader for Disk {
    fn load(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        std::fs::read(path)
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

const MAIN: &str = r#"
#[path = "everything.oth.rs"]
mod everything;

use std::io::Read;
use othismo::bson::{Document, Field, Value};

fn main() {
    let rounds: usize = std::env::args().nth(1).unwrap().parse().unwrap();
    let mut input = Vec::new();
    std::io::stdin().read_to_end(&mut input).unwrap();
    let mut docs = Vec::new();
    let mut at = 0;
    while at + 4 <= input.len() {
        let mut n = [0u8; 4];
        n.copy_from_slice(&input[at..at + 4]);
        let len = u32::from_le_bytes(n) as usize;
        docs.push(input[at + 4..at + 4 + len].to_vec());
        at += 4 + len;
    }
    let t = std::time::Instant::now();
    let mut bytes = 0;
    for _ in 0..rounds {
        for d in &docs {
            let m = everything::AnyMessage::from_value(&Value::Document(Document::decode(d).unwrap())).unwrap();
            if let Value::Document(back) = m.to_value() {
                bytes += back.encode().len();
            }
        }
    }
    println!("{} {}", t.elapsed().as_nanos(), bytes);
}
"#;

fn main() {
    let measuring = std::env::args().any(|a| a == "--bench");
    codec(if measuring { 50 } else { 1 });
    builds();
}

fn codec(rounds: usize) {
    let file = root().join("fixtures/codegen/everything.oth");
    let c = othc::compile(
        &Disk,
        std::slice::from_ref(&file),
        &othc::ValueInputs::default(),
    )
    .unwrap();
    let model = &c.checked.model;
    let text = &c
        .front
        .sources
        .get(c.front.program.module(c.front.program.roots[0]).file)
        .text;
    let bindings = othc::backends::rust::generate(model, FileIx(c.front.program.roots[0].0), text);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench_rust_codec");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/everything.oth.rs"), &bindings.text).unwrap();
    std::fs::write(dir.join("src/main.rs"), MAIN).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"codec\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nothismo = {{ path = {:?} }}\n\n[workspace]\n",
            root().join("sdk/rust").display().to_string()
        ),
    )
    .unwrap();
    let built = Command::new(env!("CARGO"))
        .args(["build", "--offline", "--release", "--quiet"])
        .current_dir(&dir)
        .status()
        .unwrap();
    assert!(built.success());
    let messages: Vec<TypeId> = (0..model.types.len())
        .map(|i| TypeId(i as u32))
        .filter(|t| matches!(model.ty(*t).kind, TypeKind::Message { .. }))
        .collect();
    let mut docs: Vec<Vec<u8>> = Vec::new();
    for seed in 0..200 {
        for &t in &messages {
            let mut b = Vec::new();
            values::plain_message(model, t, &mut Choices::new(seed))
                .to_writer(&mut b)
                .unwrap();
            docs.push(b);
        }
    }
    let mut input = Vec::new();
    for d in &docs {
        input.extend_from_slice(&(d.len() as u32).to_le_bytes());
        input.extend_from_slice(d);
    }
    let mut run = Command::new(dir.join("target/release/codec"))
        .arg(rounds.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = run.stdin.take().unwrap();
    let feed = std::thread::spawn(move || stdin.write_all(&input));
    let out = run.wait_with_output().unwrap();
    feed.join().unwrap().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    let rust_ns: f64 = said.split_whitespace().next().unwrap().parse().unwrap();
    let t = Instant::now();
    let mut bytes = 0;
    for _ in 0..rounds {
        for d in &docs {
            let doc = bson::Document::from_reader(d.as_slice()).unwrap();
            let mut back = Vec::new();
            doc.to_writer(&mut back).unwrap();
            bytes += back.len();
        }
    }
    let bson_ns = t.elapsed().as_nanos() as f64;
    assert!(bytes > 0);
    let n = (docs.len() * rounds) as f64;
    println!(
        "BSON decode+encode of {} documents × {rounds} (every message type of everything.oth): \
         Rust codec {:.0} ns/doc, bson crate {:.0} ns/doc, ratio {:.2}×",
        docs.len(),
        rust_ns / n,
        bson_ns / n,
        rust_ns / bson_ns
    );
}

/// `othc build FILE` into `out` with the module cache `cache`: seconds.
fn build(file: &str, out: &Path, cache: &Path) -> f64 {
    let t = Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_othc"))
        .args(["build", file, "--out"])
        .arg(out)
        .env("OTHC_CACHE", cache)
        .current_dir(root())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    t.elapsed().as_secs_f64()
}

fn builds() {
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench_rust_builds");
    for (label, file) in [
        ("Shouter in Rust", "examples/hello-rust/Shouter.oth"),
        ("Shouter in AssemblyScript", "examples/hello/Shouter.oth"),
    ] {
        let cache = work.join(format!("cache-{}", label.len()));
        let _ = std::fs::remove_dir_all(&cache);
        othc_driver::toolchain::empty_cache_with_compiler(&cache).unwrap();
        let out = work.join("out");
        let _ = std::fs::remove_dir_all(&out);
        let cold = build(file, &out, &cache);
        let warm = build(file, &out, &cache);
        println!("othc build, {label}: cold {cold:.2} s, warm (cached) {warm:.2} s");
    }
}
