//! The AssemblyScript BSON codec beside the Rust `bson` crate, on the same
//! ~1 KB message (nested messages, lists, a map), in the same run: ns per
//! encode and decode, and the ratio AS / Rust (goal: encode within 2×,
//! decode within 1.2×).
//!
//! The AS side (`benches/as/codec.ts` with the bindings of
//! `fixtures/codegen/everything.oth`) runs under wasmtime, the engine
//! runtime-min uses. The bench first checks that both sides write the same
//! bytes.

use std::path::Path;
use std::time::Instant;

use bson::{Document, doc};
use othc_driver::toolchain::Profile;

#[path = "../tests/common/mod.rs"]
mod common;

fn value() -> Document {
    let inners: Vec<Document> = (0..8)
        .map(|i| doc! { "label": format!("guest number {i}"), "default": i })
        .collect();
    let grid: Vec<Vec<i32>> = (0..4)
        .map(|r| (0..10).map(|c| r * 10 + c).collect())
        .collect();
    let mut by_name = Document::new();
    for i in 0..6 {
        by_name.insert(format!("key{i}"), doc! { "label": "by name", "default": i });
    }
    doc! {
        "$type": "Nested",
        "inner": { "label": "the inner one", "default": 1 },
        "inners": inners,
        "grid": grid,
        "byName": by_name,
        "tags": { "greek": ["alpha", "beta", "gamma", "delta", "epsilon"] },
        "moods": ["busy", "calm", "calm", "calm", "calm", "calm"],
        "anything": [{ "$type": "Note", "text": "a note carried in an any field" }],
    }
}

fn main() {
    let dir = std::env::temp_dir().join(format!("othc-codec-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let wasm_path =
        common::build_with_everything(&dir, "compiler/benches/as/codec.ts", Profile::Release);

    let n = 200_000u32;
    let v = value();
    let bytes = bson::to_vec(&v).unwrap();
    let mut sink = 0usize;
    for _ in 0..n / 10 {
        sink += bson::to_vec(&v).unwrap().len();
    }
    let t = Instant::now();
    for _ in 0..n {
        sink += bson::to_vec(std::hint::black_box(&v)).unwrap().len();
    }
    let rust_encode = t.elapsed().as_nanos() as f64 / n as f64;
    let t = Instant::now();
    for _ in 0..n {
        let d: Document = bson::from_slice(std::hint::black_box(&bytes)).unwrap();
        sink += d.len();
    }
    let rust_decode = t.elapsed().as_nanos() as f64 / n as f64;
    std::hint::black_box(sink);

    let (as_encode, as_decode, as_bytes) =
        run_as(&wasm_path, n).expect("the AS codec runs under wasmtime");
    assert_eq!(as_bytes, bytes, "both codecs write the same bytes");
    println!("a {}-byte message, {n} times each", bytes.len());
    println!(
        "  encode: AS {as_encode:>8.0} ns   Rust bson {rust_encode:>8.0} ns   ratio {:.2}",
        as_encode / rust_encode
    );
    println!(
        "  decode: AS {as_decode:>8.0} ns   Rust bson {rust_decode:>8.0} ns   ratio {:.2}  (AS decodes into the generated class, Rust into a Document)",
        as_decode / rust_decode
    );
    println!(
        "  goal: encode within 2×, decode within 1.2×; the AS side runs under wasmtime (cranelift), the engine runtime-min uses"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `benchEncode(n)` and `benchDecode(n)` under wasmtime: ns per
/// operation, and the bytes the AS side wrote.
fn run_as(wasm: &Path, n: u32) -> wasmtime::Result<(f64, f64, Vec<u8>)> {
    use wasmtime::{Engine, Linker, Module, Store};
    let engine = Engine::default();
    let module = Module::from_file(&engine, wasm)?;
    let mut store = Store::new(&engine, ());
    let mut linker: Linker<()> = Linker::new(&engine);
    // The codec makes no host calls; any would trap.
    linker.define_unknown_imports_as_traps(&module)?;
    let instance = linker.instantiate(&mut store, &module)?;
    instance
        .get_typed_func::<(), ()>(&mut store, "_start")?
        .call(&mut store, ())?;
    let encode = instance.get_typed_func::<i32, i32>(&mut store, "benchEncode")?;
    let decode = instance.get_typed_func::<i32, i32>(&mut store, "benchDecode")?;
    let n = n as i32;
    encode.call(&mut store, n / 10)?;
    decode.call(&mut store, n / 10)?;
    let t = Instant::now();
    encode.call(&mut store, n)?;
    let encode_ns = t.elapsed().as_nanos() as f64 / n as f64;
    let t = Instant::now();
    let ok = decode.call(&mut store, n)?;
    let decode_ns = t.elapsed().as_nanos() as f64 / n as f64;
    assert_eq!(ok, n, "every decode succeeds");
    let ptr = instance
        .get_typed_func::<(), i32>(&mut store, "outputPtr")?
        .call(&mut store, ())? as usize;
    let len = instance
        .get_typed_func::<(), i32>(&mut store, "outputLen")?
        .call(&mut store, ())? as usize;
    let memory = instance
        .get_memory(&mut store, "memory")
        .expect("the module exports its memory");
    let bytes = memory.data(&store)[ptr..ptr + len].to_vec();
    Ok((encode_ns, decode_ns, bytes))
}
