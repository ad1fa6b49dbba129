//! The edit–build loop on examples/hello (two modules), whole processes.
//!
//! `cargo bench -p othc-cli --bench build` prints medians of a few runs:
//! - the anchor: the pinned `asc` command run on each module's sources, one
//!   after the other, with othc's release flags;
//! - `othc build` with an empty module cache, release and `--debug`, with
//!   the ratio to the anchor;
//! - `othc build` after an edit to one module (the other from the cache);
//! - the same under `othc build --watch` (its runs share a warm compiler),
//!   from the edit to the watcher's `built` line.
//!
//! Numbers, not assertions: the book's dev/performance.md records them.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use othc_driver::toolchain::{self, Profile};

const RUNS: usize = 3;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:>7.0} ms", d.as_secs_f64() * 1e3)
}

fn run(cmd: &mut Command) {
    let o = cmd.output().expect("runs");
    assert!(
        o.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Appends a comment no earlier run wrote, so the module is compiled
/// rather than taken from the module cache.
fn touch(file: &Path) {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let text = std::fs::read_to_string(file).unwrap();
    std::fs::write(file, format!("{text}// edited {nanos}\n")).unwrap();
}

struct Bench {
    dir: PathBuf,
    cache: PathBuf,
    /// The pinned compiler's command (`bin/asc.js`), for the anchor.
    asc_cli: PathBuf,
}

impl Bench {
    /// `othc ARGS` in the example's copy, with module cache `self.cache`.
    fn othc(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_othc"));
        cmd.args(args)
            .env("OTHC_CACHE", &self.cache)
            .current_dir(&self.dir);
        cmd
    }

    /// An empty module cache, the installed compiler linked into it.
    fn empty_cache(&self) {
        toolchain::empty_cache_with_compiler(&self.cache).unwrap();
    }

    /// `asc` run as a user would, on each module in turn.
    fn anchor(&self, pkgs: &Path) -> Duration {
        let exports = pkgs.join("othismo/exports.ts");
        let start = Instant::now();
        for module in ["Greeter.ts", "Shouter.ts"] {
            run(Command::new("node")
                .arg(&self.asc_cli)
                .arg(module)
                .arg(&exports)
                .args(toolchain::flags(
                    Profile::Release,
                    toolchain::Collector::Incremental,
                ))
                .arg("--path")
                .arg(pkgs)
                .args(["-o", "/dev/null"])
                .current_dir(&self.dir));
        }
        start.elapsed()
    }

    fn cold(&self, profile: &str) -> Duration {
        self.empty_cache();
        let start = Instant::now();
        run(&mut self.othc(&["build", profile, "Hello.oth"]));
        start.elapsed()
    }

    fn edited(&self, profile: &str) -> Duration {
        touch(&self.dir.join("Shouter.ts"));
        let start = Instant::now();
        run(&mut self.othc(&["build", profile, "Hello.oth"]));
        start.elapsed()
    }

    /// From an edit to the watcher's `built` line, `RUNS` times.
    fn watched(&self, profile: &str) -> Vec<Duration> {
        let mut child = self
            .othc(&["build", "--watch", profile, "Hello.oth"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("othc starts");
        let mut err = BufReader::new(child.stderr.take().unwrap()).lines();
        let mut until_built = || {
            for line in err.by_ref() {
                let line = line.expect("the watcher's stderr");
                assert!(!line.contains("error"), "the watcher said: {line}");
                if line.starts_with("built ") {
                    return;
                }
            }
            panic!("the watcher ended");
        };
        until_built();
        let mut out = Vec::new();
        for _ in 0..RUNS {
            // Past the watcher's poll, so each edit is one change.
            std::thread::sleep(Duration::from_millis(250));
            touch(&self.dir.join("Shouter.ts"));
            let start = Instant::now();
            until_built();
            out.push(start.elapsed());
        }
        let _ = child.kill();
        let _ = child.wait();
        out
    }
}

fn main() {
    let api = toolchain::asc().expect("the AssemblyScript compiler installs");
    // The package's command, beside its API: `.../assemblyscript/dist/asc.js`.
    let asc_cli = api.parent().unwrap().with_file_name("bin").join("asc.js");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = test_support::copy_of_dir(
        &root.join("examples/hello"),
        env!("CARGO_TARGET_TMPDIR"),
        "bench_build",
    );
    let b = Bench {
        cache: dir.join("cache"),
        dir,
        asc_cli,
    };
    // The bindings, and the SDK laid out for the anchor.
    b.empty_cache();
    run(&mut b.othc(&["build", "--debug", "Hello.oth"]));
    let pkgs = toolchain::lay_out_sdk(&b.dir.join("bench-sdk")).unwrap();

    println!("examples/hello, 2 modules, median of {RUNS} runs");
    let anchor = median((0..RUNS).map(|_| b.anchor(&pkgs)).collect());
    println!(
        "  asc on each module in turn, release flags (the anchor)  {}",
        ms(anchor)
    );
    let ratio = |d: Duration| d.as_secs_f64() / anchor.as_secs_f64();
    for profile in ["--release", "--debug"] {
        let cold = median((0..RUNS).map(|_| b.cold(profile)).collect());
        println!(
            "  othc build {profile:<9}, empty module cache           {}  {:.2}× the anchor",
            ms(cold),
            ratio(cold)
        );
    }
    for profile in ["--release", "--debug"] {
        let edit = median((0..RUNS).map(|_| b.edited(profile)).collect());
        println!(
            "  othc build {profile:<9}, one module edited             {}",
            ms(edit)
        );
        let watched = median(b.watched(profile));
        println!(
            "  othc build --watch {profile:<9}, edit to built         {}",
            ms(watched)
        );
    }
}
