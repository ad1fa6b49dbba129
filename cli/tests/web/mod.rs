//! What the HTTP tests (and the site bench) share: building an image that listens on port 0,
//! running it with `othc run` (a real process, its stdin a pipe the test
//! writes), finding the address it printed, and fetching with curl.

#![allow(dead_code)]

pub mod load;
pub mod nginx;
pub mod report;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::Duration;

use test_support::lines::ChildLines;

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Makes sure curl is there (installing it under CI, skipping elsewhere).
pub fn have(bin: &str, package: &str) -> bool {
    test_support::runnable(test_support::ensure_debian_tool(bin, package))
}

/// Builds `image` (a path from the repository's root) with its listen slot
/// on port 0, into a scratch folder; returns the bundle. Slow the first
/// time (asc), so it says so.
pub fn build(image: &str, out: &str) -> PathBuf {
    build_as(image, out, "--debug")
}

/// [`build`] with the profile flag given (`--debug` or `--release`).
pub fn build_as(image: &str, out: &str, profile: &str) -> PathBuf {
    build_with(image, out, profile, &[])
}

/// [`build_as`] with slot values of its own (`--set` each).
pub fn build_with(image: &str, out: &str, profile: &str, sets: &[&str]) -> PathBuf {
    let out = test_support::scratch(env!("CARGO_TARGET_TMPDIR"), out);
    eprintln!("building {image} {profile} (the first build compiles its objects with asc)");
    let o = Command::new(env!("CARGO_BIN_EXE_othc"))
        .current_dir(root())
        .args(["build", image, profile, "--color", "never", "--out"])
        .arg(&out)
        .args([
            "--set",
            r#"listen=HttpConfig { listen: "127.0.0.1:0", maxBody: 4096 }"#,
        ])
        .args(sets.iter().flat_map(|s| ["--set", s]))
        .output()
        .expect("othc runs");
    assert!(
        o.status.success(),
        "othc build {image} failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let name = Path::new(image)
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .to_string();
    out.join(format!("{name}.othimg"))
}

/// A running image.
pub struct Running {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    lines: ChildLines,
}

/// Runs a bundle with `othc run` from the repository's root (`args` after
/// it) and waits for it to say where it listens.
pub fn start(bundle: &Path, args: &[&str]) -> Running {
    start_with_env(bundle, args, &[])
}

/// `start`, with environment variables set for the run.
pub fn start_with_env(bundle: &Path, args: &[&str], env: &[(&str, &str)]) -> Running {
    let mut run = Command::new(env!("CARGO_BIN_EXE_othc"));
    run.envs(env.iter().copied());
    launch(run, bundle, args)
}

/// `start`, run by `wrapper` (a program and its arguments, the command
/// after them: `prlimit --nofile=...`, say).
pub fn start_under(wrapper: &[&str], bundle: &Path, args: &[&str]) -> Running {
    let mut run = Command::new(wrapper[0]);
    run.args(&wrapper[1..]).arg(env!("CARGO_BIN_EXE_othc"));
    launch(run, bundle, args)
}

/// `run` (othc, or what runs it) given `run BUNDLE ARGS` and started.
fn launch(mut run: Command, bundle: &Path, args: &[&str]) -> Running {
    let mut child = run
        .current_dir(root())
        .arg("run")
        .arg(bundle)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("othc runs");
    let mut lines = ChildLines::of(&mut child);
    let base = loop {
        let l = lines.wait_for(false, "listening on ");
        if let Some(at) = l.strip_prefix("listening on ") {
            break at.to_string();
        }
    };
    let stdin = child.stdin.take();
    Running {
        child,
        stdin,
        base,
        lines,
    }
}

impl Running {
    /// Writes a console line.
    pub fn line(&mut self, l: &str) {
        let s = self.stdin.as_mut().expect("stdin is open");
        writeln!(s, "{l}").unwrap();
        s.flush().unwrap();
    }

    /// Waits for a stdout line containing `text`.
    pub fn wait_out(&mut self, text: &str) {
        self.lines.wait_for(true, text);
    }

    /// Waits for a stderr line containing `text` (those before it are
    /// read past) and returns it.
    pub fn wait_err(&mut self, text: &str) -> String {
        self.lines.wait_for(false, text)
    }

    /// What the image printed on stderr so far.
    pub fn stderr(&mut self) -> String {
        self.lines.text(false)
    }

    /// Sends SIGINT and waits for the exit status (at most 20 s); returns it
    /// with everything the image printed on stderr.
    pub fn interrupt(self) -> (i32, String) {
        let pid = self.child.id().to_string();
        Command::new("kill").args(["-INT", &pid]).status().unwrap();
        self.ended_within(Duration::from_secs(20), "SIGINT did not stop the image")
    }

    /// Waits for the image to end by itself (at most `limit`, else it is
    /// killed and the test fails saying `otherwise`); returns the exit
    /// status with everything the image printed on stderr.
    pub fn ended_within(mut self, limit: Duration, otherwise: &str) -> (i32, String) {
        let Some(s) = test_support::exited_within(&mut self.child, limit) else {
            panic!("{otherwise}; stderr:\n{}", self.stderr());
        };
        // The reader threads finish with the pipes.
        self.lines.closed_within(Duration::from_secs(5));
        (s.code().unwrap_or(-1), self.stderr())
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A response as curl saw it (the body decoded from chunks).
#[derive(Debug)]
pub struct Fetched {
    pub status: u16,
    /// Lower-case names.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Fetched {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// `curl -s -i` with `args` (method, data, headers) and the URL.
pub fn curl(args: &[&str], url: &str) -> Fetched {
    let o = Command::new("curl")
        .args(["-s", "-i", "--max-time", "20"])
        .args(args)
        .arg(url)
        .output()
        .expect("curl runs");
    assert!(
        o.status.success(),
        "curl {args:?} {url} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let raw = o.stdout;
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a response head");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Fetched {
        status,
        headers,
        body: raw[split + 4..].to_vec(),
    }
}

/// examples/site built to serve `dir` (read-only) instead of its own
/// files.
pub fn build_site_serving(dir: &Path, out: &str, profile: &str) -> PathBuf {
    build_site_serving_with(dir, out, profile, &[])
}

/// [`build_site_serving`] with slot values of its own (`--set` each).
pub fn build_site_serving_with(dir: &Path, out: &str, profile: &str, sets: &[&str]) -> PathBuf {
    let files = format!(
        r#"files=FilesConfig {{ dir: "{}", readonly: true }}"#,
        dir.display()
    );
    let sets: Vec<&str> = [files.as_str()]
        .into_iter()
        .chain(sets.iter().copied())
        .collect();
    build_with("examples/site/Site.oth", out, profile, &sets)
}

/// The CPU time (user and system, every thread) of process `pid` and of
/// its children still running (nginx's workers), in clock ticks (1/100 s
/// on Linux).
pub fn cpu_ticks(pid: u32) -> u64 {
    let stat = |p: &str| -> Option<(u32, u64)> {
        let s = std::fs::read_to_string(format!("/proc/{p}/stat")).ok()?;
        // After the command's name, which is in parentheses and may hold
        // spaces: state, ppid, ... utime (14th field), stime (15th).
        let rest: Vec<&str> = s[s.rfind(')')? + 2..].split(' ').collect();
        let ppid = rest.get(1)?.parse().ok()?;
        let ticks = rest.get(11)?.parse::<u64>().ok()? + rest.get(12)?.parse::<u64>().ok()?;
        Some((ppid, ticks))
    };
    let own = stat(&pid.to_string()).map_or(0, |(_, t)| t);
    let children: u64 = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        .filter_map(|n| stat(&n))
        .filter(|(ppid, _)| *ppid == pid)
        .map(|(_, t)| t)
        .sum();
    own + children
}

/// `size` bytes that differ with their position (a part served out of
/// place shows), for big files.
pub fn pattern(size: u64) -> Vec<u8> {
    (0..size)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect()
}
