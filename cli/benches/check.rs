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

/// A program and its arguments.
type Cmd<'a> = (&'a str, &'a [&'a std::path::Path]);

/// Runs `program args` once: its wall time, and its peak RSS from GNU time
/// when that is installed. The program must succeed.
fn run_once((program, args): Cmd) -> (Duration, Option<u64>) {
    let gnu_time = std::path::Path::new("/usr/bin/time").exists();
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
    let wall = t.elapsed();
    assert!(
        out.status.success(),
        "{program} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let peak = gnu_time
        .then(|| {
            let err = String::from_utf8_lossy(&out.stderr);
            err.lines()
                .last()
                .and_then(|l| l.trim().parse::<u64>().ok())
        })
        .flatten();
    (wall, peak)
}

/// Runs each command `runs` times, the commands taking turns run by run
/// (so a change in the machine's load reaches all of them alike): per
/// command its measurement, and its wall time in each run, in order.
fn measure(cmds: &[Cmd], runs: usize) -> Vec<(Process, Vec<Duration>)> {
    let mut walls = vec![Vec::new(); cmds.len()];
    let mut peaks = vec![None; cmds.len()];
    for _ in 0..runs {
        for (i, &cmd) in cmds.iter().enumerate() {
            let (wall, peak) = run_once(cmd);
            walls[i].push(wall);
            peaks[i] = peaks[i].max(peak);
        }
    }
    walls
        .into_iter()
        .zip(peaks)
        .map(|(w, peak_kib)| {
            let wall = median(w.clone());
            (Process { wall, peak_kib }, w)
        })
        .collect()
}

fn median_f64(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
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
/// when wasm-tools is installed (`cargo install wasm-tools`), the two
/// taking turns run by run so both see the same machine; the ratio is the
/// median of the runs' ratios.
fn whole_process() {
    let dir = std::env::temp_dir().join(format!("othc-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let othc = env!("CARGO_BIN_EXE_othc");
    let wasm_tools = wasm_tools();
    const RUNS: usize = 11;
    println!("whole process, schemas shape, median of {RUNS} runs (taking turns with wasm-tools):");
    let mut walls = Vec::new();
    for n in [10_000, 100_000] {
        let oth = dir.join(format!("big{n}.oth"));
        let src = schemas(n);
        std::fs::write(&oth, &src).expect("writes");
        let wit = dir.join(format!("big{n}.wit"));
        // The WIT schema only for wasm-tools to read, when it is installed.
        let wit_text = wasm_tools.as_ref().map(|_| wit_schemas(n));
        if let Some(text) = &wit_text {
            std::fs::write(&wit, text).expect("writes");
        }
        let check_args = [std::path::Path::new("check"), &oth];
        let wit_args = [
            std::path::Path::new("component"),
            std::path::Path::new("wit"),
            &wit,
        ];
        let mut cmds: Vec<Cmd> = vec![(othc, &check_args)];
        if let Some(wt) = &wasm_tools {
            cmds.push((wt, &wit_args));
        }
        let measured = measure(&cmds, RUNS);
        let (ours, our_walls) = &measured[0];
        println!(
            "  N={n:>7} ({:>5.2} MB)  othc check                {ours}",
            src.len() as f64 / 1e6
        );
        if let Some((theirs, their_walls)) = measured.get(1) {
            println!(
                "  N={n:>7} ({:>5.2} MB)  wasm-tools component wit  {theirs}",
                wit_text.as_ref().map_or(0, String::len) as f64 / 1e6
            );
            // Each run's othc / wasm-tools.
            let per_run: Vec<f64> = our_walls
                .iter()
                .zip(their_walls)
                .map(|(a, b)| a.as_secs_f64() / b.as_secs_f64())
                .collect();
            let (lo, hi) = per_run
                .iter()
                .fold((f64::MAX, 0f64), |(lo, hi), &r| (lo.min(r), hi.max(r)));
            println!(
                "  N={n:>7}  ratio othc / wasm-tools: time {:.2} (runs {lo:.2}-{hi:.2}), peak memory {}  (goal: time <= 0.50, memory <= 1.00 of 37 MiB at 10,000)",
                median_f64(per_run),
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
