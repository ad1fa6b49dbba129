//! The AssemblyScript BSON codec beside the Rust `bson` crate, on the same
//! ~1 KB message (nested messages, lists, a map), in the same run, the two
//! sides alternating in rounds: ns per encode and decode, and the median
//! round's ratio AS / Rust (goal: encode within 2×, decode within 1.2×).
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

    let v = value();
    let bytes = bson::to_vec(&v).unwrap();
    let mut wasm = AsCodec::load(&wasm_path).expect("the AS codec loads under wasmtime");
    assert_eq!(
        wasm.encoded().unwrap(),
        bytes,
        "both codecs write the same bytes"
    );
    // Warm both sides up, then alternate them in rounds, so that a change
    // in the machine's load reaches both: the ratio is each round's, and
    // the median of the rounds is printed.
    let mut sink = 0usize;
    for _ in 0..N / 10 {
        sink += bson::to_vec(&v).unwrap().len();
    }
    wasm.encode(N / 10).unwrap();
    wasm.decode(N / 10).unwrap();
    let (mut enc, mut dec) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let t = Instant::now();
        for _ in 0..N {
            sink += bson::to_vec(std::hint::black_box(&v)).unwrap().len();
        }
        let rust_encode = per_op(t);
        let t = Instant::now();
        for _ in 0..N {
            let d: Document = bson::from_slice(std::hint::black_box(&bytes)).unwrap();
            sink += d.len();
        }
        let rust_decode = per_op(t);
        let as_encode = wasm.encode(N).unwrap();
        let as_decode = wasm.decode(N).unwrap();
        enc.push((as_encode / rust_encode, as_encode, rust_encode));
        dec.push((as_decode / rust_decode, as_decode, rust_decode));
    }
    std::hint::black_box(sink);
    let median = |mut v: Vec<(f64, f64, f64)>| {
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        v[v.len() / 2]
    };
    let (enc, dec) = (median(enc), median(dec));
    println!(
        "a {}-byte message; {ROUNDS} rounds of {N} of each, sides alternating; the median round:",
        bytes.len()
    );
    println!(
        "  encode: AS {:>8.0} ns   Rust bson {:>8.0} ns   ratio {:.2}",
        enc.1, enc.2, enc.0
    );
    println!(
        "  decode: AS {:>8.0} ns   Rust bson {:>8.0} ns   ratio {:.2}  (AS decodes into the generated class, Rust into a Document)",
        dec.1, dec.2, dec.0
    );
    println!(
        "  goal: encode within 2×, decode within 1.2×; the AS side runs under wasmtime (cranelift), the engine runtime-min uses"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

const N: u32 = 40_000;
const ROUNDS: usize = 7;

fn per_op(t: Instant) -> f64 {
    t.elapsed().as_nanos() as f64 / N as f64
}

/// The AS side: `benchEncode(n)` and `benchDecode(n)` of `benches/as/codec.ts`
/// under wasmtime.
struct AsCodec {
    store: wasmtime::Store<()>,
    instance: wasmtime::Instance,
}

impl AsCodec {
    fn load(wasm: &Path) -> wasmtime::Result<AsCodec> {
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
        Ok(AsCodec { store, instance })
    }

    fn call(&mut self, name: &str, n: u32) -> wasmtime::Result<i32> {
        let f = self
            .instance
            .get_typed_func::<i32, i32>(&mut self.store, name)?;
        f.call(&mut self.store, n as i32)
    }

    /// ns per encode, over `n`.
    fn encode(&mut self, n: u32) -> wasmtime::Result<f64> {
        let t = Instant::now();
        self.call("benchEncode", n)?;
        Ok(t.elapsed().as_nanos() as f64 / n as f64)
    }

    /// ns per decode, over `n`; every one must succeed.
    fn decode(&mut self, n: u32) -> wasmtime::Result<f64> {
        let t = Instant::now();
        let ok = self.call("benchDecode", n)?;
        let ns = t.elapsed().as_nanos() as f64 / n as f64;
        assert_eq!(ok, n as i32, "every decode succeeds");
        Ok(ns)
    }

    /// The bytes the AS side writes for the value.
    fn encoded(&mut self) -> wasmtime::Result<Vec<u8>> {
        self.call("benchEncode", 1)?;
        let ptr = self
            .instance
            .get_typed_func::<(), i32>(&mut self.store, "outputPtr")?
            .call(&mut self.store, ())? as usize;
        let len = self
            .instance
            .get_typed_func::<(), i32>(&mut self.store, "outputLen")?
            .call(&mut self.store, ())? as usize;
        let memory = self
            .instance
            .get_memory(&mut self.store, "memory")
            .expect("the module exports its memory");
        Ok(memory.data(&self.store)[ptr..ptr + len].to_vec())
    }
}
