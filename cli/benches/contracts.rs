//! `cargo bench -p othc-cli --bench contracts`
//!
//! How fast `othc test` generates and checks requests, on the hello
//! objects (Greeter and Shouter), beside the bare cost of what it runs: the
//! same number of fresh instances, started and sent one fixed valid request
//! each through the runtime's host with nothing generated or checked, in
//! the same run. Prints requests/s of both and the ratio. The modules are
//! built first by `othc test` itself (the cache makes later runs quick).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use othc::loader::Loader;
use othismo_runtime::probe::Module;
use othismo_runtime::{Limits, Payload};

struct Disk;

impl Loader for Disk {
    fn load(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        std::fs::read(path)
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn main() {
    let measuring = std::env::args().any(|a| a == "--bench");
    let cases: u64 = if measuring { 20_000 } else { 200 };
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench_contracts");
    for (file, object, path, ct, body) in [
        (
            "examples/hello/Greeter.oth",
            "Greeter",
            "/greeting",
            "application/bson",
            greeting(),
        ),
        (
            "examples/hello/Shouter.oth",
            "Shouter",
            "/",
            "text/plain",
            b"Ada".to_vec(),
        ),
    ] {
        // Built (and its findings, none, shown) by `othc test` itself.
        let o = Command::new(env!("CARGO_BIN_EXE_othc"))
            .args(["test", file, "--cases", "10", "--seed", "1", "--out"])
            .arg(&out)
            .current_dir(root())
            .output()
            .expect("othc runs");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let wasm = std::fs::read(out.join(format!("{object}.wasm"))).unwrap();
        let module = Module::new(&wasm, Limits::default()).unwrap();
        let c = othc::compile(&Disk, &[root().join(file)], &othc::ValueInputs::default()).unwrap();
        let id = c.root_objects()[0];
        let opts = othc_contracts::Options {
            cases,
            seed: 1,
            round_trip: false,
            shrink_budget: 0,
            show: None,
        };
        let t = Instant::now();
        let report = othc_contracts::test_object(&c.checked, id, &module, &opts);
        let tested = t.elapsed().as_secs_f64();
        assert!(report.failures.is_empty());
        let requests = report.requests;

        // The bare cost: as many fresh instances, started, one request each.
        let payload = Some(Payload {
            content_type: Arc::from(ct),
            data: body.clone(),
        });
        let t = Instant::now();
        for id in 0..requests {
            let mut p = module.instance().unwrap();
            p.start().unwrap();
            p.serve(
                othismo_runtime::abi::RequestId(id as i32 + 1),
                othc::model::Verb::Write,
                1,
                path,
                &payload,
            )
            .unwrap();
        }
        let bare = t.elapsed().as_secs_f64();
        let (rps, bare_rps) = (requests as f64 / tested, requests as f64 / bare);
        println!(
            "{object}: {cases} cases, {requests} requests generated and checked: {rps:>9.0} req/s; \
             bare (a fresh instance and one fixed request each): {bare_rps:>9.0} req/s; ratio {:.2}×",
            rps / bare_rps
        );
    }
}

/// A `Greeting` message: `$type`, `prefix`, `excited`.
fn greeting() -> Vec<u8> {
    let d = bson::doc! { "$type": "Greeting", "prefix": "Hi, ", "excited": false };
    let mut out = Vec::new();
    d.to_writer(&mut out).unwrap();
    out
}
