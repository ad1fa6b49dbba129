//! `othc run --watch` and `othc build --watch`: run the same command again
//! whenever one of its inputs changes.
//!
//! The command runs as a child process (this program, with the same
//! arguments but `--watch`), so stopping it mid-run is a kill and never
//! leaves this process half-way through a build or an image; the child
//! shares this process's standard input, output and error. The inputs are
//! every `.oth` file the command's files load (imports included), the
//! implementations beside them (`*.ts`, not the generated `*.oth.ts`) and
//! the `asconfig.json` there (there or not: it chooses their collector),
//! and the value files given with `--values`. They are polled (a stat call per
//! file forty times a second), which needs no platform watcher and sees
//! edits made through any editor's save strategy (rename or write in place).
//!
//! The runs share one AssemblyScript compiler process, started here and
//! kept warm between them (`othc_driver::resident::Shared`): a rebuild after
//! an edit compiles in a fraction of a cold start's time.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, SystemTime};

use othc_driver::resident::{SOCKET_ENV, Shared};

use super::EXIT_USAGE;
use super::fs::FsLoader;

/// How often the inputs are looked at: a stat call per input costs next to
/// nothing (watching hello's five files takes 0.2% of a core; a hundred
/// files are 4,000 calls a second, under a percent), and the wait is part
/// of every edit's time to a rebuilt program.
const POLL: Duration = Duration::from_millis(25);
/// How long a change must be quiet before the command runs again: an
/// editor saving several files, or writing one in pieces, is one change.
/// Editors write a save, even of many files, within a few milliseconds;
/// every millisecond here is added to every edit's time to a rebuilt
/// program.
const SETTLE: Duration = Duration::from_millis(50);

/// What a file looked like: its modification time and length, or absent.
type Stamp = Option<(SystemTime, u64)>;

/// Runs the command of this process's arguments, without `--watch`, again
/// after every change to its inputs; returns only when it cannot start it.
pub fn watch(roots: &[PathBuf], values: &[PathBuf]) -> u8 {
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: --watch cannot find othc's own program to run: {e}");
            return EXIT_USAGE;
        }
    };
    let args: Vec<OsString> = std::env::args_os()
        .skip(1)
        .filter(|a| a != "--watch")
        .collect();
    let mut files = inputs(roots, values);
    let mut stamps = stamp_all(&files);
    eprintln!(
        "othc: watching {} file(s) for changes (Ctrl-C to stop)",
        files.len()
    );
    let mut compiler = shared_compiler();
    let mut child = match start(&exe, &args, compiler.as_ref()) {
        Ok(c) => Some(c),
        Err(status) => return status,
    };
    loop {
        std::thread::sleep(POLL);
        if let Some(c) = &mut child
            && let Ok(Some(status)) = c.try_wait()
        {
            eprintln!("othc: {}; waiting for a change", describe(status));
            child = None;
        }
        let now = stamp_all(&files);
        let Some(changed) = first_change(&files, &stamps, &now).map(Path::to_path_buf) else {
            continue;
        };
        // Wait for the writes to settle, then take the inputs afresh: the
        // change may have added or removed an import.
        loop {
            let before = stamp_all(&files);
            std::thread::sleep(SETTLE);
            if stamp_all(&files) == before {
                break;
            }
        }
        if let Some(mut c) = child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
        files = inputs(roots, values);
        stamps = stamp_all(&files);
        eprintln!("othc: {} changed; running again", changed.display());
        compiler = compiler.and_then(|c| c.renewed().ok());
        child = match start(&exe, &args, compiler.as_ref()) {
            Ok(c) => Some(c),
            Err(status) => return status,
        };
    }
}

/// The compiler process the runs share, kept warm between them; none when
/// it cannot start (each run then starts its own, and says why if it
/// cannot either).
fn shared_compiler() -> Option<Shared> {
    let asc = othc_driver::toolchain::asc().ok()?;
    Shared::start(&asc).ok()
}

fn start(exe: &Path, args: &[OsString], compiler: Option<&Shared>) -> Result<Child, u8> {
    let mut cmd = Command::new(exe);
    cmd.args(args);
    if let Some(c) = compiler {
        cmd.env(SOCKET_ENV, c.socket());
    }
    // However this process ends (Ctrl-C reaches both, but a kill reaches
    // only this one), the child must not run on without it: an image left
    // behind would keep reading the terminal.
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: prctl is async-signal-safe and touches no memory of ours,
        // which is all that may be done between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    cmd.spawn().map_err(|e| {
        eprintln!("error: --watch cannot start {}: {e}", exe.display());
        EXIT_USAGE
    })
}

fn describe(status: std::process::ExitStatus) -> String {
    match status.code() {
        Some(0) => "finished".into(),
        Some(n) => format!("exited with status {n}"),
        None => "was stopped by a signal".into(),
    }
}

/// The files whose change makes the command run again, sorted.
fn inputs(roots: &[PathBuf], values: &[PathBuf]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = roots.iter().chain(values).cloned().collect();
    // What the roots load; a root that does not load yet is watched alone.
    if let Ok(front) = othc::load(&FsLoader, roots) {
        for (_, f) in front.sources.files() {
            let p = PathBuf::from(&f.name);
            if p.is_file() {
                out.push(p);
            }
        }
    }
    let dirs: Vec<PathBuf> = out
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "oth"))
        .map(|p| match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        })
        .collect();
    for d in dirs {
        // Watched whether or not it is there: made, changed or removed, it
        // changes how the objects beside it are built.
        out.push(d.join(othc_driver::toolchain::ASCONFIG));
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            if name.ends_with(".ts") && !name.ends_with(".oth.ts") && p.is_file() {
                out.push(p);
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

fn stamp_all(files: &[PathBuf]) -> Vec<Stamp> {
    files
        .iter()
        .map(|p| {
            let m = std::fs::metadata(p).ok()?;
            Some((m.modified().ok()?, m.len()))
        })
        .collect()
}

/// The first file whose stamp differs.
fn first_change<'a>(files: &'a [PathBuf], before: &[Stamp], now: &[Stamp]) -> Option<&'a Path> {
    files
        .iter()
        .zip(before.iter().zip(now))
        .find(|(_, (a, b))| a != b)
        .map(|(p, _)| p.as_path())
}
