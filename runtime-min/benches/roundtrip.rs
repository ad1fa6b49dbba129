//! `cargo bench -p othismo-runtime --bench roundtrip`
//!
//! 1. A request round trip between two wasm instances through the runtime
//!    (a pinger reads `/pong/x`, the ponger answers one byte of text, the
//!    pinger's answer handler sends the next request), beside the same two
//!    modules driven by bare wasmtime calls in the same run: the same
//!    exports called, the same imports copying the same bytes out, with no
//!    routing, checks or queue. Both are timed in batches of round trips,
//!    the two sides alternating batch by batch; the median and p99 are of
//!    the per-round-trip time of each batch, and the ratio is the median of
//!    each pair of batches' ratio. The goal is a ratio within 1.5×.
//! 2. Calls in parallel: four servers sent a burst of requests, with
//!    `--workers 1` and a thread per core, alternating; once with calls of
//!    about a millisecond (they go to workers: the speed-up, against the
//!    most the cores allow) and once with short calls (they stay on the
//!    loop's thread: the same time either way).
//! 3. The start-up time (load: compile, read headers, instantiate; then run
//!    to idle) and resident memory of images of 100, 1,000 and 10,000 idle
//!    instances, each measured in a process of its own.

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use othismo_runtime::{Io, Limits, Runtime};
use wasmtime::{Caller, Engine, Instance, Linker, Module, Store, TypedFunc};

// The allocator the runtime ships with (`othc` and `othismo-run`), so the
// figures are the shipped runtime's; the bare anchor runs beside it with
// the same allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const BATCHES: usize = 30;
const PER_BATCH: u32 = 2000;

const PINGPONG: &str = r#"
object Pinger {
  needs /pong/** {
    /**  read -> text/plain
  }
}

object Ponger {
  serves {
    /x  read -> text/plain
  }
}

image PingPong {
  instance ponger = Ponger
  instance pinger = Pinger { mount /pong /ponger }
}
"#;

fn pingpong_wat(n: u32) -> String {
    format!(
        r#"
;; object Pinger
(data (i32.const 256) "/pong/x")
(global $left (mut i32) (i32.const {n}))
(func $ping
  (drop (call $req (i32.const 1) (i32.const 256) (i32.const 7))))
(func (export "othismo_start") (call $ping))
(func (export "othismo_answer") (param i32 i32 i32 i32 i32 i32)
  (global.set $left (i32.sub (global.get $left) (i32.const 1)))
  (if (i32.gt_s (global.get $left) (i32.const 0)) (then (call $ping))))

;; object Ponger
(data (i32.const 256) "x")
(func (export "othismo_serve") (param $id i32) (param i32 i32 i32 i32 i32 i32 i32 i32)
  (call $answer_text (local.get $id) (i32.const 1) (i32.const 256) (i32.const 1)))
"#
    )
}

fn prelude() -> String {
    std::fs::read_to_string(common::root().join("fixtures/run/rules/prelude.wat")).unwrap()
}

fn write_case(name: &str, oth: &str) -> std::path::PathBuf {
    let dir = common::scratch(&format!("bench_{name}"));
    let file = dir.join(format!("{name}.oth"));
    std::fs::write(&file, oth).unwrap();
    file
}

/// Loads and runs `bundle` with no input and its output kept, calling
/// `loaded` in between: (load time, run time, exit status).
fn quiet_run(bundle: &[u8], loaded: impl FnOnce()) -> (Duration, Duration, i32) {
    quiet_run_with(bundle, Limits::default(), loaded)
}

/// [`quiet_run`] with `limits`.
fn quiet_run_with(
    bundle: &[u8],
    limits: Limits,
    loaded: impl FnOnce(),
) -> (Duration, Duration, i32) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let io = Io {
        input: Box::new(std::iter::empty()),
        out: &mut out,
        err: &mut err,
        trace: None,
    };
    let t0 = Instant::now();
    let rt = Runtime::load(bundle, limits, io).expect("loads");
    let load_time = t0.elapsed();
    loaded();
    let t1 = Instant::now();
    let status = rt.run();
    (load_time, t1.elapsed(), status)
}

/// One batch through the runtime with `workers` threads for calls: the
/// time per round trip.
fn runtime_batch(bundle: &[u8], workers: usize) -> f64 {
    let limits = Limits {
        workers: Some(workers),
        ..Limits::default()
    };
    let (_, ran, status) = quiet_run_with(bundle, limits, || {});
    assert_eq!(status, 0);
    ran.as_secs_f64() / PER_BATCH as f64
}

/// The bare side: what the imports do is copy their bytes out, as the
/// runtime's do, and keep the last ticket.
#[derive(Default)]
struct Bare {
    copied: Vec<u8>,
    ticket: i32,
}

fn copy_out(c: &mut Caller<'_, Bare>, ptr: i32, len: i32) {
    let mem = c
        .get_export("memory")
        .and_then(|e| e.into_memory())
        .unwrap();
    let bytes = mem.data(&*c)[ptr as usize..(ptr + len) as usize].to_vec();
    c.data_mut().copied = bytes;
}

fn bare_linker(engine: &Engine) -> Linker<Bare> {
    let mut l = Linker::new(engine);
    l.func_wrap(
        "othismo",
        "request",
        |mut c: Caller<'_, Bare>, _v: i32, pp: i32, pl: i32, _: i32, _: i32, _: i32, _: i32| {
            copy_out(&mut c, pp, pl);
            c.data_mut().ticket += 1;
            c.data().ticket
        },
    )
    .unwrap();
    l.func_wrap(
        "othismo",
        "answer",
        |mut c: Caller<'_, Bare>, _id: i32, _d: i32, tp: i32, tl: i32, dp: i32, dl: i32| {
            copy_out(&mut c, tp, tl);
            copy_out(&mut c, dp, dl);
        },
    )
    .unwrap();
    l.func_wrap("othismo", "cancel", |_: i32| {}).unwrap();
    l.func_wrap(
        "othismo",
        "fail",
        |_: i32, _: i32, _: i32, _: i32, _: i32, _: i32| {},
    )
    .unwrap();
    l.func_wrap("othismo", "forward", |_: i32, _: i32, _: i32| {})
        .unwrap();
    l.func_wrap(
        "othismo",
        "bind",
        |_: i32, _: i32, _: i32, _: i32, _: i32| 0,
    )
    .unwrap();
    l.func_wrap("othismo", "unmount", |_: i32, _: i32| 0)
        .unwrap();
    l.func_wrap(
        "othismo",
        "expose",
        |_: i32, _: i32, _: i32, _: i32, _: i32| 0,
    )
    .unwrap();
    l
}

struct Side {
    store: Store<Bare>,
    instance: Instance,
    alloc: TypedFunc<i32, i32>,
}

impl Side {
    fn new(engine: &Engine, linker: &Linker<Bare>, bytes: &[u8]) -> Side {
        let module = Module::new(engine, bytes).unwrap();
        let mut store = Store::new(engine, Bare::default());
        let instance = linker.instantiate(&mut store, &module).unwrap();
        let alloc = instance
            .get_typed_func(&mut store, "othismo_alloc")
            .unwrap();
        Side {
            store,
            instance,
            alloc,
        }
    }

    fn put(&mut self, bytes: &[u8]) -> i32 {
        let p = self
            .alloc
            .call(&mut self.store, bytes.len() as i32)
            .unwrap();
        let mem = self.instance.get_memory(&mut self.store, "memory").unwrap();
        mem.write(&mut self.store, p as usize, bytes).unwrap();
        p
    }
}

type Serve = TypedFunc<(i32, i32, i32, i32, i32, i32, i32, i32, i32), ()>;
type Six = TypedFunc<(i32, i32, i32, i32, i32, i32), ()>;

/// The same two modules, the same calls per round trip, no runtime.
struct BarePair {
    ping: Side,
    pong: Side,
    serve: Serve,
    answer: Six,
}

impl BarePair {
    fn new(bundle: &[u8]) -> BarePair {
        let (_, modules) = othc::bundle::read(bundle).unwrap();
        let bytes = |n: &str| &modules.iter().find(|(m, _)| m.ends_with(n)).unwrap().1;
        let engine = Engine::default();
        let linker = bare_linker(&engine);
        let mut ping = Side::new(&engine, &linker, bytes("Pinger.wasm"));
        let mut pong = Side::new(&engine, &linker, bytes("Ponger.wasm"));
        let serve: Serve = pong
            .instance
            .get_typed_func(&mut pong.store, "othismo_serve")
            .unwrap();
        let answer: Six = ping
            .instance
            .get_typed_func(&mut ping.store, "othismo_answer")
            .unwrap();
        BarePair {
            ping,
            pong,
            serve,
            answer,
        }
    }

    /// One batch: the time per round trip.
    fn batch(&mut self) -> f64 {
        let t = Instant::now();
        for id in 1..=PER_BATCH as i32 {
            let p = self.pong.put(b"/x");
            self.serve
                .call(&mut self.pong.store, (id, 1, 0, p, 2, 0, 0, 0, 0))
                .unwrap();
            let tp = self.ping.put(b"text/plain");
            let dp = self.ping.put(b"x");
            self.answer
                .call(&mut self.ping.store, (id, 1, tp, 10, dp, 1))
                .unwrap();
        }
        t.elapsed().as_secs_f64() / PER_BATCH as f64
    }
}

/// Servers of the parallel image.
const SERVERS: usize = 4;

/// `SERVERS` instances of one server, and a driver that sends each a burst
/// of writes.
fn parallel_image() -> String {
    let needs: String = (0..SERVERS)
        .map(|k| format!("  needs /s{k} {{\n    /x  write text/plain\n  }}\n"))
        .collect();
    let instances: String = (0..SERVERS)
        .map(|k| format!("  instance c{k} = Crunch\n"))
        .collect();
    let mounts: String = (0..SERVERS)
        .map(|k| format!("    mount /s{k} /c{k}\n"))
        .collect();
    format!(
        "object Driver {{\n{needs}}}\n\nobject Crunch {{\n  serves {{\n    /x  write text/plain\n  }}\n}}\n\n\
         image Parallel {{\n{instances}  instance d = Driver {{\n{mounts}  }}\n}}\n"
    )
}

/// The driver, sending each server `each` writes, and a server whose every
/// call first counts down from `spin`.
fn parallel_wat(spin: u32, each: usize) -> String {
    format!(
        r#"
;; object Driver
(data (i32.const 256) "/s0/x")
(func (export "othismo_start") (local $k i32) (local $j i32)
  (loop $each
    (i32.store8 (i32.const 258) (i32.add (i32.const 48) (i32.rem_u (local.get $j) (i32.const {SERVERS}))))
    (drop (call $req_text (i32.const 5) (i32.const 256) (i32.const 5) (i32.const 256) (i32.const 1)))
    (local.set $j (i32.add (local.get $j) (i32.const 1)))
    (br_if $each (i32.lt_u (local.get $j) (i32.const {total})))))

;; object Crunch
(func (export "othismo_serve") (param $id i32) (param i32 i32 i32 i32 i32 i32 i32 i32)
  (local $left i32)
  (local.set $left (i32.const {spin}))
  (block $spun (loop $spin
    (br_if $spun (i32.eqz (local.get $left)))
    (local.set $left (i32.sub (local.get $left) (i32.const 1)))
    (br $spin)))
  (call $done (local.get $id)))
"#,
        total = SERVERS * each
    )
}

/// The parallel image's run time with `workers` threads.
fn parallel_run(bundle: &[u8], workers: usize) -> Duration {
    let limits = Limits {
        workers: Some(workers),
        ..Limits::default()
    };
    let (_, ran, status) = quiet_run_with(bundle, limits, || {});
    assert_eq!(status, 0);
    ran
}

/// Part 2: the parallel image with long and with short calls.
fn parallel(prelude: &str, rounds: usize) {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let file = write_case("parallel", &parallel_image());
    for (what, spin, each) in [
        ("calls of about 1 ms", 2_000_000, 50),
        ("short calls", 0, 5_000),
    ] {
        let bundle = common::wat_bundle(&file, &parallel_wat(spin, each), prelude, &[]).unwrap();
        let (mut one, mut many) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            one.push(parallel_run(&bundle, 1).as_secs_f64());
            many.push(parallel_run(&bundle, cores.max(2)).as_secs_f64());
        }
        for v in [&mut one, &mut many] {
            v.sort_by(f64::total_cmp);
        }
        let (o, m) = (percentile(&one, 0.5), percentile(&many, 0.5));
        println!(
            "  {} {what}: --workers 1 {:>8.2} ms, --workers {} {:>8.2} ms, speed-up {:.2}× (medians of {rounds}; at most {}×)",
            SERVERS * each,
            o * 1e3,
            cores.max(2),
            m * 1e3,
            o / m,
            cores.clamp(2, SERVERS)
        );
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

fn idle_image(n: usize) -> (String, String) {
    let mut oth = String::from(
        "object Idle {\n  serves {\n    /x  read -> text/plain\n  }\n}\n\nimage Idle100 {\n",
    );
    for i in 0..n {
        oth.push_str(&format!("  instance i{i} = Idle\n"));
    }
    oth.push_str("}\n");
    (oth, ";; object Idle\n".into())
}

/// Builds and loads an image of `n` idle instances and runs it to idle, in
/// this process: (build, load, run to idle, resident KiB added by the load).
fn idle_once(n: usize, prelude: &str) -> (Duration, Duration, Duration, u64) {
    let (oth, wat) = idle_image(n);
    let file = write_case(&format!("idle{n}"), &oth);
    let t = Instant::now();
    let idle = common::wat_bundle(&file, &wat, prelude, &[]).unwrap();
    let built = t.elapsed();
    let before = test_support::resident_kib();
    let mut held = 0;
    let (loaded, ran, status) = quiet_run(&idle, || held = test_support::resident_kib());
    assert_eq!(status, 0);
    (built, loaded, ran, held.saturating_sub(before))
}

/// `idle_once` in a fresh process (this bench run again with
/// `ROUNDTRIP_IDLE=N`), so each size's memory is its own.
fn idle_in_child(n: usize) -> String {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .env("ROUNDTRIP_IDLE", n.to_string())
        .output()
        .expect("the bench runs itself");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim_end().to_string()
}

fn main() {
    // `cargo test --benches` runs this with `--bench` absent: do one small
    // round so the code is exercised, not measured.
    let measuring = std::env::args().any(|a| a == "--bench");
    let prelude = prelude();

    if let Some(n) = std::env::var("ROUNDTRIP_IDLE")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        let (built, loaded, ran, kib) = idle_once(n, &prelude);
        println!(
            "  {n:>6} instances: load {:>8.1} ms, run to idle {:>7.2} ms, +{:>8} KiB resident ({:>5.1} KiB each); othc build {:.0} ms",
            loaded.as_secs_f64() * 1e3,
            ran.as_secs_f64() * 1e3,
            kib,
            kib as f64 / n as f64,
            built.as_secs_f64() * 1e3,
        );
        return;
    }

    // ROUNDTRIP_PROFILE=N: one run of N round trips and nothing else, to
    // look at under a profiler.
    if let Some(n) = std::env::var("ROUNDTRIP_PROFILE")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        let file = write_case("pingpong", PINGPONG);
        let bundle = common::wat_bundle(&file, &pingpong_wat(n), &prelude, &[]).unwrap();
        let (_, ran, _) = quiet_run(&bundle, || {});
        println!("{n} round trips in {:.1} ms", ran.as_secs_f64() * 1e3);
        return;
    }
    let n = if measuring { PER_BATCH } else { 10 };
    let file = write_case("pingpong", PINGPONG);
    let bundle = common::wat_bundle(&file, &pingpong_wat(n), &prelude, &[]).unwrap();
    if !measuring {
        let (_, _, status) = quiet_run(&bundle, || {});
        assert_eq!(status, 0);
        parallel(&prelude, 1);
        println!("roundtrip bench: exercised (run with `cargo bench` to measure)");
        return;
    }
    // The two sides alternate batch by batch, so a change in the machine's
    // load reaches both; the ratio is each pair's, its median printed. Once
    // with every call on the loop's thread, once with a thread per core.
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let mut pair = BarePair::new(&bundle);
    for workers in [1, cores.max(2)] {
        let (mut rt, mut bare, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..BATCHES {
            let r = runtime_batch(&bundle, workers);
            let b = pair.batch();
            rt.push(r);
            bare.push(b);
            ratios.push(r / b);
        }
        for v in [&mut rt, &mut bare, &mut ratios] {
            v.sort_by(f64::total_cmp);
        }
        let (rm, rp) = (percentile(&rt, 0.5), percentile(&rt, 0.99));
        let (bm, bp) = (percentile(&bare, 0.5), percentile(&bare, 0.99));
        println!(
            "request round trip, --workers {workers}, {BATCHES} batches of {PER_BATCH} each side, alternating; per round trip:"
        );
        println!(
            "  runtime   median {:>8.0} ns   p99 {:>8.0} ns   {:>10.0} requests/s",
            rm * 1e9,
            rp * 1e9,
            1.0 / rm
        );
        println!(
            "  bare      median {:>8.0} ns   p99 {:>8.0} ns   {:>10.0} requests/s",
            bm * 1e9,
            bp * 1e9,
            1.0 / bm
        );
        println!(
            "  ratio     median {:>8.2}× (of the pairs' ratios)   p99 {:>8.2}×   (goal: within 1.5×)",
            percentile(&ratios, 0.5),
            rp / bp
        );
    }
    println!("calls in parallel: {SERVERS} servers sent a burst of requests, alternating:");
    parallel(&prelude, 7);
    println!(
        "images of N idle instances (each in a fresh process; goal: 10,000 start <= 1 s, <= 1 GiB):"
    );
    for n in [100, 1_000, 10_000] {
        println!("{}", idle_in_child(n));
    }
}
