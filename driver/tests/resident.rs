//! The resident compiler processes, driven for real (node runs the script
//! othc embeds) with a stand-in for the AssemblyScript compiler
//! (`fixtures/build/resident/fake_asc.mjs`) that can succeed, fail, write
//! onto stdout, throw or crash on request.
//!
//! One test function: its steps (which count processes and compare their
//! ids) run in order, each on the pool it names.

use std::path::{Path, PathBuf};

use othc_driver::resident::{Compilers, Outcome, Shared, Tier};

fn fake_asc() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/build/resident/fake_asc.mjs")
}

/// The id of the process that answered.
fn pid(o: &Outcome) -> u32 {
    let at = o.output.find("pid=").expect("a pid in the output") + 4;
    o.output[at..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

fn compile_in(pool: &Compilers, what: &str, dir: &Path) -> Result<Outcome, String> {
    pool.compile(
        &fake_asc(),
        dir,
        &[what.to_string(), "x".into(), "y z".into()],
    )
}

#[test]
fn compilations_share_a_process_that_survives_their_failures() {
    let asc = fake_asc();
    assert!(asc.is_file());
    let dir = std::env::temp_dir().join(format!("othc-resident-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dir = dir.canonicalize().unwrap();
    let pool = Compilers::new(Tier::Optimizing, None);
    let run = |what: &str, dir: &Path| compile_in(&pool, what, dir);

    // Two compilations one after another: one process, run in the folder
    // asked for, given the arguments as they were.
    let first = run("ok", &dir).unwrap();
    assert!(first.ok, "{first:?}");
    assert!(
        first
            .output
            .contains(&format!("cwd={} args=x,y z", dir.display())),
        "{first:?}"
    );
    let second = run("ok", Path::new("/")).unwrap();
    assert!(second.output.contains("cwd=/ "), "{second:?}");
    assert_eq!(pid(&first), pid(&second), "the second reused the process");
    assert_eq!(pool.running(), 1);

    // Another compiler (another asc.js): a process of its own, and the
    // idle one of the first is kept while the pool has room.
    let other = dir.join("other_asc.mjs");
    std::fs::copy(&asc, &other).unwrap();
    let most = std::thread::available_parallelism().map_or(1, usize::from);
    let theirs = pool.compile(&other, &dir, &["ok".to_string()]).unwrap();
    assert_ne!(pid(&theirs), pid(&first));
    if most > 1 {
        assert_eq!(pool.running(), 2);
        assert_eq!(pid(&run("ok", &dir).unwrap()), pid(&first), "kept");
    }
    pool.release_idle();
    let first = run("ok", &dir).unwrap();
    assert_eq!(pool.running(), 1);

    // A module that does not compile: its output, and the process stays.
    let failed = run("fail", &dir).unwrap();
    assert!(!failed.ok);
    assert!(failed.output.starts_with("ERROR TS1: fail"), "{failed:?}");
    assert_eq!(pid(&failed), pid(&first));

    // Something else writing onto node's stdout does not break the
    // conversation.
    let noisy = run("noise", &dir).unwrap();
    assert!(noisy.ok && noisy.output.starts_with("noise"), "{noisy:?}");
    assert_eq!(pid(&noisy), pid(&first));

    // The compiler throwing: a failed compilation saying so, and the
    // process retires; the next compilation gets a fresh one.
    let thrown = run("throw", &dir).unwrap();
    assert!(!thrown.ok);
    assert!(
        thrown
            .output
            .contains("the AssemblyScript compiler failed: Error: the compiler broke"),
        "{thrown:?}"
    );
    let after = run("ok", &dir).unwrap();
    assert!(after.ok);
    assert_ne!(pid(&after), pid(&first), "a retired process is not reused");
    assert_eq!(pool.running(), 1);

    // The process dying mid-compilation: an error naming it, not a hang,
    // and the next compilation runs.
    let crashed = run("exit", &dir).unwrap_err();
    assert!(
        crashed.contains("the AssemblyScript compiler stopped while compiling")
            && crashed.contains("exit status: 3"),
        "{crashed}"
    );
    assert_eq!(pool.running(), 0);
    let again = run("ok", &dir).unwrap();
    assert!(again.ok);

    // A process that stopped while idle (killed from outside) is replaced
    // without the compilation failing.
    kill(pid(&again));
    let replaced = run("ok", &dir).unwrap();
    assert!(replaced.ok);
    assert_ne!(pid(&replaced), pid(&again));

    // Compilations from several threads at once: each its own process,
    // never more than one per core.
    let pids: Vec<u32> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..most + 1)
            .map(|_| s.spawn(|| run("sleep", &dir).unwrap()))
            .collect();
        handles
            .into_iter()
            .map(|h| pid(&h.join().unwrap()))
            .collect()
    });
    let distinct: std::collections::BTreeSet<u32> = pids.iter().copied().collect();
    assert_eq!(distinct.len(), most, "{pids:?}");
    assert_eq!(pool.running(), most);

    // Released when idle.
    pool.release_idle();
    assert_eq!(pool.running(), 0);

    // A shared process (what `--watch` keeps): compilations go to it through
    // its socket, in a folder only this user can enter.
    let shared = Shared::start(&asc).unwrap();
    let folder = shared.socket().parent().unwrap().to_path_buf();
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&folder).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700, "{}", folder.display());
    let to_shared = Compilers::new(Tier::Baseline, Some(shared.socket().to_path_buf()));
    assert_eq!(to_shared.at_once(), 1, "the shared process answers in turn");
    let run = |what: &str, dir: &Path| compile_in(&to_shared, what, dir);
    let one = run("ok", &dir).unwrap();
    let two = run("fail", &dir).unwrap();
    assert_eq!(pid(&one), shared.id(), "{one:?}");
    assert_eq!(pid(&two), shared.id(), "{two:?}");
    // Thrown in: it retires, and is renewed.
    let thrown = run("throw", &dir).unwrap();
    assert!(!thrown.ok && pid(&thrown) == shared.id(), "{thrown:?}");
    let old = shared.id();
    for _ in 0..100 {
        if !folder.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(!folder.exists(), "a retired process takes its socket along");
    let shared = shared.renewed().unwrap();
    assert_ne!(shared.id(), old);
    let to_renewed = Compilers::new(Tier::Baseline, Some(shared.socket().to_path_buf()));
    let run = |what: &str, dir: &Path| compile_in(&to_renewed, what, dir);
    let three = run("ok", &dir).unwrap();
    assert_eq!(pid(&three), shared.id());
    // Ended with its owner, socket and folder too.
    to_renewed.release_idle();
    let folder = shared.socket().parent().unwrap().to_path_buf();
    drop(shared);
    assert!(!folder.exists());
    // With no process behind the socket, a compilation starts its own.
    let own = run("ok", &dir).unwrap();
    assert!(own.ok);
    assert_eq!(to_renewed.running(), 1, "its own process");
    drop(to_renewed);
    // A pool's processes end with it.
    let own_pid = pid(&own);
    for _ in 0..100 {
        if !Path::new(&format!("/proc/{own_pid}")).exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(
        !Path::new(&format!("/proc/{own_pid}")).exists(),
        "ended with its pool"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

fn kill(pid: u32) {
    let status = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    // Until it is gone: a zombie (the pool has not reaped it) whose threads
    // have all ended, so nothing holds its end of the pipes.
    for _ in 0..250 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let threads = std::fs::read_dir(format!("/proc/{pid}/task")).map_or(0, Iterator::count);
        if stat.is_empty() || (stat.contains(") Z ") && threads <= 1) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!("process {pid} did not end");
}
