//! The runtime's rules, one case per `fixtures/run/rules/*.oth`: objects
//! whose modules are the `;; object NAME` parts of the `.wat` beside it
//! (wrapped in `prelude.wat`), an image of them, and the snapshot of the run
//! (exit status, output, reports, and the trace of every delivery).
//!
//! Directives at the top of a case, as comments:
//!   `# input: LINE`        a console input line (repeatable)
//!   `# set: SLOT=VALUE`    a slot value (`$DIR` is the case's sandbox)
//!   `# limit: NAME=N`      memory (MiB), time (ms), payload (bytes), queue
//!   `# sandbox`            a directory tree for Files, with links out of it
//!                          (see `sandbox`), at `$DIR`
//!   `# disk: N KiB`        with `# sandbox`: a disk of N KiB at `$DIR/small`
//!                          holding `a.txt` "alpha" (a tmpfs in the test's
//!                          own mount namespace: needs root)

mod common;

use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use othismo_runtime::Limits;

fn directives<'s>(src: &'s str, name: &str) -> Vec<&'s str> {
    let tag = format!("# {name}:");
    src.lines()
        .filter_map(|l| l.strip_prefix(&tag).map(str::trim))
        .collect()
}

/// The default limits, with what the fixture's `# limit:` lines say. An
/// instance that stops stays stopped unless the fixture allows restarts;
/// one worker, so the trace is the same every run.
fn limits(src: &str) -> Result<Limits, Failed> {
    let mut l = Limits {
        restarts: 0,
        workers: Some(1),
        ..Limits::default()
    };
    for d in directives(src, "limit") {
        let (k, v) = d.split_once('=').ok_or("`# limit: NAME=N`")?;
        let n: u64 = v.trim().parse()?;
        match k.trim() {
            "memory" => l.memory_mib = n,
            "time" => l.time_ms = n,
            "payload" => l.payload = n as usize,
            "queue" => l.queue = n as usize,
            "restarts" => l.restarts = n as u32,
            other => return Err(format!("no limit `{other}`").into()),
        }
    }
    Ok(l)
}

/// The tree a Files case serves, and what lies outside it:
///
/// ```text
/// outside/secret.txt
/// dir/a.txt            "alpha"
/// dir/sub/b.txt        "beta"
/// dir/big.bin          600 KiB: a file read in three parts
/// dir/pipe             a FIFO, which nobody opens at the other end
/// dir/empty/
/// dir/in -> a.txt      a link that stays inside
/// dir/out -> ../outside/secret.txt
/// dir/up -> ..         a link to the parent
/// dir/insub -> sub     a link to a directory inside
/// dir/abs -> DIR/a.txt an absolute link that stays inside
/// ```
fn sandbox(at: &Path) -> std::io::Result<PathBuf> {
    let dir = at.join("dir");
    std::fs::create_dir_all(at.join("outside"))?;
    std::fs::write(at.join("outside/secret.txt"), "secret")?;
    std::fs::create_dir_all(dir.join("sub"))?;
    std::fs::create_dir_all(dir.join("empty"))?;
    std::fs::write(dir.join("a.txt"), "alpha")?;
    std::fs::write(dir.join("sub/b.txt"), "beta")?;
    std::fs::write(dir.join("big.bin"), vec![b'x'; 600 * 1024])?;
    let made = std::process::Command::new("mkfifo")
        .arg(dir.join("pipe"))
        .status()?;
    assert!(made.success(), "mkfifo failed");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("a.txt", dir.join("in"))?;
        std::os::unix::fs::symlink("../outside/secret.txt", dir.join("out"))?;
        std::os::unix::fs::symlink("..", dir.join("up"))?;
        std::os::unix::fs::symlink("sub", dir.join("insub"))?;
        std::os::unix::fs::symlink(dir.join("a.txt"), dir.join("abs"))?;
    }
    Ok(dir)
}

/// Mounts a disk of `size` ("N KiB") at `at`, holding `a.txt` "alpha", in
/// this process's own mount namespace (`private_mounts`): it goes when the
/// test ends.
fn small_disk(at: &Path, size: &str) -> Result<(), Failed> {
    let kib: u64 = size
        .strip_suffix("KiB")
        .ok_or("`# disk: N KiB`")?
        .trim()
        .parse()?;
    std::fs::create_dir(at)?;
    let options = std::ffi::CString::new(format!("size={kib}k,mode=0755"))?;
    rustix::mount::mount(
        "tmpfs",
        at,
        "tmpfs",
        rustix::mount::MountFlags::empty(),
        options.as_c_str(),
    )
    .map_err(|e| format!("mounting a tmpfs at {}: {e}", at.display()))?;
    std::fs::write(at.join("a.txt"), "alpha")?;
    Ok(())
}

/// Gives this process mounts of its own, so that a case's small disk is
/// seen by nobody else and goes when the process ends. Called before any
/// other thread starts: the threads started after share the namespace.
fn private_mounts() -> Result<(), String> {
    use rustix::mount::{MountPropagationFlags as M, mount_change};
    // SAFETY: only the mount namespace is unshared (not the file
    // descriptor table), by the process's only thread.
    unsafe { rustix::thread::unshare_unsafe(rustix::thread::UnshareFlags::NEWNS) }
        .map_err(|e| format!("a mount namespace of its own (unshare): {e}; run as root"))?;
    // Mounts made in it must not spread back to the host's.
    mount_change("/", M::REC | M::PRIVATE).map_err(|e| format!("making mounts private: {e}"))
}

fn run_case(rel: PathBuf) -> Result<(), Failed> {
    let root = common::root();
    let file = root.join(&rel);
    let src = std::fs::read_to_string(&file)?;
    let wat = std::fs::read_to_string(file.with_extension("wat"))?;
    let prelude = std::fs::read_to_string(root.join("fixtures/run/rules/prelude.wat"))?;
    let stem = rel.file_stem().unwrap().to_string_lossy().into_owned();
    let mut dir = String::new();
    if src.lines().any(|l| l.trim() == "# sandbox") {
        let at = common::scratch(&format!("rules_{stem}"));
        let tree = sandbox(&at)?;
        if let Some(size) = directives(&src, "disk").first() {
            small_disk(&tree.join("small"), size)?;
        }
        dir = tree.to_string_lossy().into_owned();
    }
    let sets: Vec<String> = directives(&src, "set")
        .iter()
        .map(|s| s.replace("$DIR", &dir))
        .collect();
    let bundle = common::wat_bundle(&file, &wat, &prelude, &sets)?;
    let input = directives(&src, "input");
    let ran = common::run_with(&bundle, &input, limits(&src)?);
    if !dir.is_empty() {
        // Whatever was attempted, nothing outside the tree changed.
        let outside = Path::new(&dir).join("../outside");
        let left: Vec<_> = std::fs::read_dir(&outside)?
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(left, ["secret.txt"], "something was made outside the tree");
        assert_eq!(
            std::fs::read_to_string(outside.join("secret.txt"))?,
            "secret"
        );
    }
    // The sandbox's path differs from checkout to checkout: it is shown as
    // `$DIR`, and the size of a config message that carries it is hidden.
    let hide = |s: &str| {
        if dir.is_empty() {
            return s.to_string();
        }
        s.replace(&dir, "$DIR")
            .lines()
            .map(|l| match l.find("application/bson (") {
                Some(at) => format!("{}application/bson (… bytes)\n", &l[..at]),
                None => format!("{l}\n"),
            })
            .collect()
    };
    let body = format!(
        "----- STATUS\n{}\n----- STDOUT\n{}----- STDERR\n{}----- TRACE\n{}",
        ran.status,
        hide(&ran.out),
        hide(&ran.err),
        hide(&ran.trace)
    );
    let name = format!("run__rules__{stem}");
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(root.join("snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_input_file(&file);
    settings.bind(|| insta::assert_snapshot!(name, body));
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let mounts = private_mounts();
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let root = common::root();
    let mut cases: Vec<PathBuf> = std::fs::read_dir(root.join("fixtures/run/rules"))
        .expect("fixtures/run/rules")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "oth"))
        .map(|p| p.strip_prefix(&root).unwrap().to_path_buf())
        .collect();
    cases.sort();
    let trials = cases
        .into_iter()
        .map(|rel| {
            let name = rel.file_stem().unwrap().to_string_lossy().into_owned();
            let src = std::fs::read_to_string(root.join(&rel)).unwrap_or_default();
            let needs_disk = !directives(&src, "disk").is_empty();
            let (true, Err(why)) = (needs_disk, &mounts) else {
                return Trial::test(name, move || run_case(rel));
            };
            // A case that needs its own disk and cannot have one: a failure
            // in CI, which must run every case; skipped elsewhere.
            let why = format!("{name} needs a small disk of its own: {why}");
            if ci {
                Trial::test(name, move || Err(why.into()))
            } else {
                eprintln!("skipped: {why}");
                Trial::test(name, || Ok(())).with_ignored_flag(true)
            }
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
