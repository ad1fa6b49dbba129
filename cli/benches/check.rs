//! Throughput of the whole checker: parse + resolve + check.
//!
//! `cargo bench -p othc --bench check` prints, for N = 1,000 and 10,000 and
//! each input shape, the median of several in-process runs (front end, then
//! front end + checker) in ms, MB/s and messages/s, and the linearity of the
//! scaling; then `othc check` as a whole process on the `schemas` shape at
//! N = 10,000 and 100,000 (wall time and peak resident memory), beside
//! `wasm-tools component wit` on the same schema written in WIT when
//! wasm-tools is installed, with the ratio. Numbers, not assertions: the
//! book's dev/performance.md records them.
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

// The allocator of the othc binary, so in-process figures match it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use shapes::{image, objects, schemas, wit_schemas};

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

/// One whole-process measurement: wall times (median) and peak RSS.
struct Process {
    wall: Duration,
    peak_kib: Option<u64>,
}

impl std::fmt::Display for Process {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:>8.1} ms", self.wall.as_secs_f64() * 1e3)?;
        match self.peak_kib {
            Some(kb) => write!(f, "  peak RSS {:>6.1} MiB", kb as f64 / 1024.0),
            None => write!(f, "  peak RSS unknown (no /usr/bin/time)"),
        }
    }
}

/// Runs `program args` `runs` times: the median wall time and the largest
/// peak RSS (from GNU time when it is installed). The program must succeed.
fn measure(program: &str, args: &[&std::path::Path], runs: usize) -> Process {
    let gnu_time = std::path::Path::new("/usr/bin/time").exists();
    let mut walls = Vec::new();
    let mut peak = None;
    for _ in 0..runs {
        let mut cmd = if gnu_time {
            let mut c = Command::new("/usr/bin/time");
            c.args(["-f", "%M", program]);
            c
        } else {
            Command::new(program)
        };
        cmd.args(args).stdout(std::process::Stdio::null());
        let t = Instant::now();
        let out = cmd.output().expect("the program starts");
        walls.push(t.elapsed());
        assert!(
            out.status.success(),
            "{program} {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        if gnu_time {
            let err = String::from_utf8_lossy(&out.stderr);
            let kb = err
                .lines()
                .last()
                .and_then(|l| l.trim().parse::<u64>().ok());
            peak = peak.max(kb);
        }
    }
    Process {
        wall: median(walls),
        peak_kib: peak,
    }
}

/// `wasm-tools` on PATH or where `cargo install` puts it.
fn wasm_tools() -> Option<String> {
    let mut candidates = vec!["wasm-tools".to_string()];
    if let Some(home) = std::env::var_os("HOME") {
        candidates.push(format!("{}/.cargo/bin/wasm-tools", home.to_string_lossy()));
    }
    candidates.into_iter().find(|c| {
        Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// `othc check` as a process on the `schemas` shape at N = 10,000 and
/// 100,000, beside `wasm-tools component wit` on the same schema in WIT
/// when wasm-tools is installed (`cargo install wasm-tools`), runs
/// interleaved so both see the same machine.
fn whole_process() {
    let dir = std::env::temp_dir().join(format!("othc-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let othc = env!("CARGO_BIN_EXE_othc");
    let wasm_tools = wasm_tools();
    println!("whole process, schemas shape, median of 7 runs:");
    let mut walls = Vec::new();
    for n in [10_000, 100_000] {
        let oth = dir.join(format!("big{n}.oth"));
        let src = schemas(n);
        std::fs::write(&oth, &src).expect("writes");
        let ours = measure(othc, &[std::path::Path::new("check"), &oth], 7);
        println!(
            "  N={n:>7} ({:>5.2} MB)  othc check                {ours}",
            src.len() as f64 / 1e6
        );
        if let Some(wt) = &wasm_tools {
            let wit = dir.join(format!("big{n}.wit"));
            let text = wit_schemas(n);
            std::fs::write(&wit, &text).expect("writes");
            let theirs = measure(
                wt,
                &[
                    std::path::Path::new("component"),
                    std::path::Path::new("wit"),
                    &wit,
                ],
                7,
            );
            println!(
                "  N={n:>7} ({:>5.2} MB)  wasm-tools component wit  {theirs}",
                text.len() as f64 / 1e6
            );
            println!(
                "  N={n:>7}  ratio othc / wasm-tools: time {:.2}, peak memory {}  (goal: time <= 0.50, memory <= 1.00 of 37 MiB at 10,000)",
                ours.wall.as_secs_f64() / theirs.wall.as_secs_f64(),
                match (ours.peak_kib, theirs.peak_kib) {
                    (Some(a), Some(b)) => format!("{:.2}", a as f64 / b as f64),
                    _ => "unknown".into(),
                }
            );
        }
        walls.push(ours.wall);
    }
    if wasm_tools.is_none() {
        println!("  (wasm-tools not found: `cargo install wasm-tools` to measure it beside othc)");
    }
    println!(
        "  linearity: othc check at 100,000 / at 10,000 = {:.1}x (goal: <= 11x)",
        walls[1].as_secs_f64() / walls[0].as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
