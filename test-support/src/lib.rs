//! What the workspace's tests share, so each helper is written once: a
//! small seeded generator for property tests, a process run with standard
//! input fed to it, and a fresh scratch directory per test.

pub mod host_program;
pub mod lines;
pub mod rust_source;
pub mod wrk;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};

/// SplitMix64: small, fast, and the same sequence for the same seed on
/// every machine, so a failing case is named by its seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// One of `items` (which must not be empty).
    pub fn pick<'a, T: ?Sized>(&mut self, items: &[&'a T]) -> &'a T {
        items[self.below(items.len())]
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }
}

/// Runs `cmd` with `stdin` written to its standard input (then closed),
/// collecting its status and output.
pub fn run_with_input(cmd: &mut Command, stdin: &[u8]) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {:?}: {e}", cmd.get_program()));
    let mut input = child.stdin.take().expect("stdin is piped");
    // A program may exit without reading all of it: that is its business.
    let _ = input.write_all(stdin);
    drop(input);
    child
        .wait_with_output()
        .expect("the process can be waited for")
}

/// Waits for `child` to end, at most `limit`: its status and what it
/// wrote on stderr (piped). Past the limit it is killed and the test
/// fails with `what` (a process that should have stopped, never a hang).
pub fn ended_within(
    child: &mut Child,
    limit: std::time::Duration,
    what: &str,
) -> (ExitStatus, String) {
    let Some(status) = exited_within(child, limit) else {
        panic!("{what} is still running after {} s", limit.as_secs());
    };
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        use std::io::Read;
        e.read_to_string(&mut err).unwrap();
    }
    (status, err)
}

/// `child`'s exit status if it ends within `limit`; if it does not, it is
/// killed and the answer is `None` (the caller says what it was waiting
/// for, with what it has of the child's output).
pub fn exited_within(child: &mut Child, limit: std::time::Duration) -> Option<ExitStatus> {
    let deadline = std::time::Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Standard output and error as text (lossy).
pub fn texts(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A fixture's escapes made bytes: `\r`, `\n`, `\t`, `\\` and `\xHH`;
/// `{N*c}` is the character c N times.
pub fn unescape(s: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match (b[i], b.get(i + 1)) {
            (b'\\', Some(b'r')) => (out.push(b'\r'), i += 2).1,
            (b'\\', Some(b'n')) => (out.push(b'\n'), i += 2).1,
            (b'\\', Some(b't')) => (out.push(b'\t'), i += 2).1,
            (b'\\', Some(b'\\')) => (out.push(b'\\'), i += 2).1,
            (b'\\', Some(b'x')) => {
                let hex = std::str::from_utf8(&b[i + 2..i + 4]).unwrap();
                out.push(u8::from_str_radix(hex, 16).unwrap());
                i += 4;
            }
            (b'{', _) => {
                let end = s[i..].find('}').unwrap() + i;
                let (n, c) = s[i + 1..end].split_once('*').unwrap();
                let n: usize = n.parse().unwrap();
                out.extend(std::iter::repeat_n(c.as_bytes(), n).flatten());
                i = end + 1;
            }
            (c, _) => (out.push(c), i += 1).1,
        }
    }
    out
}

/// An empty directory `name` under `base` (a test binary's
/// `CARGO_TARGET_TMPDIR`), whatever a previous run left there.
pub fn scratch(base: &str, name: &str) -> PathBuf {
    let dir = Path::new(base).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot make {}: {e}", dir.display()));
    dir
}

/// Every file under `dir` (recursively) whose name ends in `.ext`, sorted.
pub fn files_with_extension(dir: &Path, ext: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, ext, out);
            } else if p.extension().is_some_and(|x| x == ext) {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, ext, &mut out);
    out.sort();
    out
}

/// A tar entry: name, kind, link target, data.
pub type TarEntry<'a> = (&'a str, tar::EntryType, &'a str, &'a [u8]);

/// A tar archive with each name and link target written raw, as hostile
/// archives are (the `tar` crate refuses to write `..` itself).
pub fn raw_tar(entries: &[TarEntry<'_>]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (name, kind, link, data) in entries {
        let mut h = tar::Header::new_old();
        h.set_entry_type(*kind);
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        let old = h.as_old_mut();
        old.name[..name.len()].copy_from_slice(name.as_bytes());
        old.linkname[..link.len()].copy_from_slice(link.as_bytes());
        h.set_cksum();
        b.append(&h, *data).expect("appending to memory");
    }
    b.into_inner().expect("finishing in memory")
}

/// A tar archive of about 1.5 KB holding one GNU sparse entry `name` that
/// reads as 8 GiB (the most an octal field holds) of zeros and 512 real
/// bytes at its end: what a tar reader that trusts declared sizes reads
/// until memory runs out.
pub fn sparse_bomb_tar(name: &str) -> Vec<u8> {
    fn octal(field: &mut [u8], n: u64) {
        let s = format!("{n:0width$o}", width = field.len() - 1);
        field[..s.len()].copy_from_slice(s.as_bytes());
        field[s.len()] = 0;
    }
    const SIZE: u64 = (1 << 33) - 1;
    let mut h = tar::Header::new_gnu();
    h.set_path(name).expect("a short name");
    h.set_mode(0o644);
    h.set_size(512);
    h.set_entry_type(tar::EntryType::GNUSparse);
    {
        let gnu = h.as_gnu_mut().expect("a GNU header");
        octal(&mut gnu.realsize, SIZE);
        octal(&mut gnu.sparse[0].offset, SIZE - 512);
        octal(&mut gnu.sparse[0].numbytes, 512);
    }
    h.set_cksum();
    let mut b = tar::Builder::new(Vec::new());
    b.append(&h, &[7u8; 512][..]).expect("appending to memory");
    b.into_inner().expect("finishing in memory")
}

/// This process's resident memory in KiB (Linux's `VmRSS`; 0 where it
/// cannot be read): what the benches report memory with.
pub fn resident_kib() -> u64 {
    resident_kib_in("/proc/self/status")
}

/// Process `pid`'s resident memory in KiB (0 once it has gone).
pub fn resident_kib_of(pid: u32) -> u64 {
    resident_kib_in(&format!("/proc/{pid}/status"))
}

fn resident_kib_in(status: &str) -> u64 {
    std::fs::read_to_string(status)
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or(0)
}

/// Sends `GET path` to `addr` and reads until `until` has come (the head
/// and the first of the body, say); the connection, still open, and what
/// came so far. Panics if it closes first or the status is not 200.
pub fn get_begun(addr: &str, path: &str, until: &str) -> (std::net::TcpStream, Vec<u8>) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).expect("connecting");
    s.set_read_timeout(Some(std::time::Duration::from_secs(120)))
        .expect("a read timeout");
    write!(s, "GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").expect("sending the request");
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&got).contains(until) {
        let n = s.read(&mut buf).expect("reading the response");
        assert!(
            n > 0,
            "closed before {until:?} came: {:?}",
            String::from_utf8_lossy(&got)
        );
        got.extend_from_slice(&buf[..n]);
    }
    assert!(
        got.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&got)
    );
    (s, got)
}

/// Whether this run is CI's (`CI=true`): there a test that cannot run fails.
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Whether a test can go on, given why it could not (`Err`): under CI it
/// fails then, saying why; elsewhere it is skipped, saying so.
pub fn runnable(ready: Result<(), String>) -> bool {
    match ready {
        Ok(()) => true,
        Err(why) if under_ci() => panic!("this test cannot run under CI=true: {why}"),
        Err(why) => {
            eprintln!("skipped: {why}");
            false
        }
    }
}

/// Makes sure the command `bin` exists, installing Debian's `package` with
/// apt-get if it does not (saying so on stderr). `Err` says why it cannot be
/// had; the caller fails under CI and skips, saying so, elsewhere.
pub fn ensure_debian_tool(bin: &str, package: &str) -> Result<(), String> {
    let found = || {
        Command::new("sh")
            .args(["-c", &format!("command -v {bin}")])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    ensure_debian_package(package, &format!("`{bin}`"), &found)
}

/// A Rust toolchain that builds `wasm32-unknown-unknown`: rustup's target
/// when installed, else Debian's `rustc`, `cargo`, `libstd-rust-dev-wasm32`
/// and `lld-14` (installed with apt-get when missing, saying so).
pub fn ensure_rust_wasm32() -> Result<(), String> {
    let found = || {
        Command::new("rustup")
            .args(["target", "list", "--installed"])
            .output()
            .is_ok_and(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .any(|l| l.trim() == "wasm32-unknown-unknown")
            })
            || (Path::new("/usr/bin/cargo").exists()
                && Path::new("/usr/bin/rust-lld").exists()
                && Path::new("/usr/lib/rustlib/wasm32-unknown-unknown").exists())
    };
    for package in ["rustc", "cargo", "lld-14", "libstd-rust-dev-wasm32"] {
        if found() {
            return Ok(());
        }
        ensure_debian_package(package, "a Rust toolchain for wasm32", &|| {
            Command::new("dpkg")
                .args(["-s", package])
                .output()
                .is_ok_and(|o| o.status.success())
        })?;
    }
    if found() {
        Ok(())
    } else {
        Err("no Rust toolchain for wasm32-unknown-unknown after installing Debian's".into())
    }
}

/// Makes sure Python's `module` imports, installing PyPI's `package` with
/// pip when it does not (saying so on stderr).
pub fn ensure_python_module(module: &str, package: &str) -> Result<(), String> {
    let found = || {
        Command::new("python3")
            .args(["-c", &format!("import {module}")])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    installed_once(&found, || {
        eprintln!(
            "test set-up: Python's `{module}` is missing; installing PyPI's `{package}` (python3 -m pip install {package})"
        );
        let pip = |extra: &[&str]| {
            Command::new("python3")
                .args(["-m", "pip", "install", "-q", package])
                .args(extra)
                .stdout(Stdio::null())
                .status()
                .map_err(|e| format!("cannot run python3 -m pip: {e}"))
        };
        // A Python that Debian manages refuses pip without this flag.
        if !pip(&[])?.success() {
            pip(&["--break-system-packages"])?;
        }
        if found() {
            Ok(())
        } else {
            Err(format!(
                "`pip install {package}` did not make `{module}` importable; install it by hand to run this test"
            ))
        }
    })
}

/// What `found` says is there, or else `install` run, by one test at a
/// time: the tests of one binary run on threads, and a second apt-get or
/// pip fails or races while the first installs. Once the lock is ours,
/// what another test installed meanwhile counts.
fn installed_once(
    found: &dyn Fn() -> bool,
    install: impl FnOnce() -> Result<(), String>,
) -> Result<(), String> {
    if found() {
        return Ok(());
    }
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if found() {
        return Ok(());
    }
    install()
}

/// Makes sure Debian's `package` is installed when `found` says what it
/// gives (`what`, in words) is missing: `apt-get install`, saying so on
/// stderr. For what no single command shows (an Emacs library, say).
pub fn ensure_debian_package(
    package: &str,
    what: &str,
    found: &dyn Fn() -> bool,
) -> Result<(), String> {
    installed_once(found, || {
        eprintln!(
            "test set-up: {what} is missing; installing Debian's `{package}` (apt-get update && apt-get install -y {package})"
        );
        let run = |args: &[&str]| {
            Command::new("apt-get")
                // Another process's apt-get (not a test's): wait for its lock.
                .args(["-o", "DPkg::Lock::Timeout=600"])
                .args(args)
                .env("DEBIAN_FRONTEND", "noninteractive")
                .stdout(Stdio::null())
                .status()
                .map_err(|e| format!("cannot run apt-get: {e}"))
        };
        run(&["update", "-q"])?;
        let status = run(&["install", "-y", "-q", package])?;
        if !status.success() || !found() {
            return Err(format!(
                "`apt-get install {package}` failed ({status}); install it by hand to run this test"
            ));
        }
        Ok(())
    })
}

/// A fresh copy of folder `dir` (sub-folders too) under `base`, named
/// `name`: a fixture a test may build in.
pub fn copy_of_dir(dir: &Path, base: &str, name: &str) -> PathBuf {
    let out = scratch(base, name);
    copy_tree(dir, &out);
    out
}

/// Copies `from` into `to`, sub-folders too (a Rust object's package),
/// leaving out what builds make (`build`, `target`, `Cargo.lock`).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder to copy into");
    for e in std::fs::read_dir(from)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", from.display()))
        .flatten()
    {
        let (p, n) = (e.path(), e.file_name());
        if n == "build" || n == "target" || n == "Cargo.lock" {
            continue;
        }
        if p.is_dir() {
            copy_tree(&p, &to.join(&n));
        } else {
            std::fs::copy(&p, to.join(&n)).expect("copy");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generator_is_seeded() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::new(7);
                move |_| r.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::new(7);
                move |_| r.next_u64()
            })
            .collect();
        assert_eq!(a, b);
        assert_ne!(a[0], a[1]);
        let mut r = Rng::new(1);
        assert!((0..1000).all(|_| r.below(3) < 3));
    }

    #[test]
    fn a_process_gets_its_input() {
        let o = run_with_input(Command::new("cat").arg("-"), b"fed\n");
        assert!(o.status.success());
        assert_eq!(texts(&o).0, "fed\n");
    }
}
