//! Throughput of the whole checker: parse + resolve + check.
//!
//! `cargo bench -p othc --bench check` prints, for N = 1,000 and 10,000 and
//! each input shape, the median of several in-process runs (front end, then
//! front end + checker) in ms, MB/s and messages/s, and the linearity of the
//! scaling; then `othc check` as a whole process on the `schemas` shape
//! (wall time and peak resident memory), the number to hold against other
//! schema compilers. Numbers, not assertions: see the issue notes.
//!
//! Shapes:
//! - `schemas`: exactly the shape other schema compilers were measured on
//!   here: `message Leaf { id: i32 }`, N messages `M0..M{N-1}` with fields
//!   `name: string, flag: bool, count: i32, total: i64, ratio: f64,
//!   tags: [string], parent: M{(i-1)/2}` (`Leaf` for M0) `, opt_val?: i32`,
//!   and N/10 enums of 4 values;
//! - `objects`: the same types, plus objects serving and needing them;
//! - `image`: an image wiring N/10 instances, each needing the next.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use othc::loader::MemoryLoader;

#[path = "shapes/mod.rs"]
mod shapes;
use shapes::{image, objects, schemas};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(f());
                t.elapsed()
            })
            .collect(),
    )
}

fn main() {
    let runs = 7;
    println!("in-process, median of {runs} runs");
    for (shape, generate) in [
        ("schemas", schemas as fn(usize) -> String),
        ("objects", objects),
        ("image", image),
    ] {
        let mut per_message = Vec::new();
        for n in [1_000, 10_000] {
            let src = generate(n);
            let mut loader = MemoryLoader::new();
            loader.add("big.oth", src.clone());
            let roots = [PathBuf::from("big.oth")];
            let c = othc::compile(&loader, &roots, &Default::default()).expect("loads");
            assert!(
                !c.front.diags.has_errors(),
                "{shape} N={n} checks clean: {:?}",
                c.front.diags.iter().next()
            );
            let front = time(runs, || othc::load(&loader, &roots).expect("loads"));
            let full = time(runs, || {
                othc::compile(&loader, &roots, &Default::default()).expect("loads")
            });
            let mb = src.len() as f64 / 1e6;
            for (what, d) in [("parse+resolve", front), ("parse+resolve+check", full)] {
                let secs = d.as_secs_f64();
                println!(
                    "  {shape:<8} N={n:>6}  {what:<20} {:>8.2} ms  {:>6.1} MB/s  {:>9.0} messages/s  ({mb:.2} MB)",
                    secs * 1e3,
                    mb / secs,
                    n as f64 / secs,
                );
            }
            per_message.push(full.as_secs_f64() / n as f64);
        }
        println!(
            "  {shape:<8} scaling: time per message at 10,000 / at 1,000 = {:.2} (1.00 is linear)",
            per_message[1] / per_message[0]
        );
    }
    whole_process();
}

/// `othc check` as a process on the `schemas` shape at N = 10,000.
fn whole_process() {
    let dir = std::env::temp_dir().join(format!("othc-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("big.oth");
    let src = schemas(10_000);
    std::fs::write(&file, &src).expect("writes");
    let bin = env!("CARGO_BIN_EXE_othc");
    let mut walls = Vec::new();
    let mut peak_kb = 0;
    for _ in 0..7 {
        let t = Instant::now();
        let status = Command::new("/usr/bin/time")
            .args(["-f", "%M", bin, "check"])
            .arg(&file)
            .output();
        let wall = t.elapsed();
        match status {
            Ok(out) if out.status.success() => {
                walls.push(wall);
                let err = String::from_utf8_lossy(&out.stderr);
                if let Some(kb) = err
                    .lines()
                    .last()
                    .and_then(|l| l.trim().parse::<u64>().ok())
                {
                    peak_kb = peak_kb.max(kb);
                }
            }
            _ => {
                // No /usr/bin/time: time the process alone.
                let t = Instant::now();
                let ok = Command::new(bin)
                    .arg("check")
                    .arg(&file)
                    .status()
                    .is_ok_and(|s| s.success());
                assert!(ok, "othc check runs clean");
                walls.push(t.elapsed());
            }
        }
    }
    let wall = median(walls);
    println!(
        "whole process: othc check, schemas shape, N=10,000 ({:.2} MB): {:.1} ms wall (median of 7), peak RSS {}",
        src.len() as f64 / 1e6,
        wall.as_secs_f64() * 1e3,
        if peak_kb > 0 {
            format!("{:.1} MiB", peak_kb as f64 / 1024.0)
        } else {
            "unknown (no /usr/bin/time)".into()
        }
    );
    println!("  goal: under half of wasm-tools' ~75 ms, peak memory at most 37 MiB");
    let _ = std::fs::remove_dir_all(&dir);
}
