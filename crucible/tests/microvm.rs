//! The microVM backend for real: `crucible serve --backend microvm` started
//! as a process, each sandbox a qemu microVM (TCG on these machines), driven
//! with the client library as any client would: the conformance suite every
//! backend passes (`tests/suite`), then what only a VM shows. The set-up installs qemu
//! when it is missing (apt-get, saying so); the daemon fetches its kernel
//! and busybox with `apt-get download` into a state directory kept between
//! runs. Under `CI=true` a test that cannot run fails.

mod suite;

use suite::{output, sh, tar_of};

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crucible::client::{Client, ClientError, Transport, collect_within};
use crucible::sandbox::NewSandbox;

const LIMIT: Duration = Duration::from_secs(60);

struct Daemon {
    child: std::process::Child,
    addr: String,
    state: PathBuf,
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether qemu is here (installed if need be) and apt knows the kernel
/// package the daemon fetches; `false` means skip.
fn qemu_ready() -> bool {
    let known = || {
        Command::new("apt-cache")
            .args(["depends", "linux-image-cloud-amd64"])
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("Depends:"))
    };
    if !known() {
        eprintln!("test set-up: apt knows no linux-image-cloud-amd64; running apt-get update");
        let _ = Command::new("apt-get").args(["update", "-q"]).status();
    }
    let ready =
        test_support::ensure_debian_tool("qemu-system-x86_64", "qemu-system-x86").and_then(|()| {
            if known() {
                Ok(())
            } else {
                Err("apt-get cannot find linux-image-cloud-amd64 (the guest kernel)".to_string())
            }
        });
    match ready {
        Ok(()) => true,
        Err(why) if test_support::under_ci() => panic!("the microVM tests cannot run: {why}"),
        Err(why) => {
            eprintln!("skipping the microVM tests: {why}");
            false
        }
    }
}

/// The workspace binary `name` beside this test's `crucible`, built with
/// cargo when it is not there (`cargo test --workspace` builds them all).
fn built(name: &str, package: &str) -> PathBuf {
    let at = Path::new(env!("CARGO_BIN_EXE_crucible")).with_file_name(name);
    if !at.exists() {
        eprintln!("test set-up: building {name} (cargo build -p {package} --bin {name})");
        let ok = Command::new(env!("CARGO"))
            .args(["build", "-p", package, "--bin", name])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok && at.exists(), "cannot build {name}");
    }
    at
}

/// A daemon with the microVM backend and sandbox `first`, once it listens.
/// Its guests hold the `othismo-run` beside it.
fn daemon(first: &str) -> Daemon {
    built("othismo-run", "othismo-runtime");
    let state = Path::new(env!("CARGO_TARGET_TMPDIR")).join("microvm-state");
    let mut child = Command::new(env!("CARGO_BIN_EXE_crucible"))
        .args(["serve", "--backend", "microvm", "--listen", "127.0.0.1:0"])
        .args([
            "--key",
            "k",
            "--memory",
            "256",
            "--sandbox",
            first,
            "--root",
        ])
        .arg(&state)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut said = String::new();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let addr = loop {
        let Some(Ok(line)) = lines.next() else {
            let _ = child.kill();
            panic!("the daemon ended before it listened; it said:\n{said}");
        };
        eprintln!("daemon: {line}");
        said.push_str(&line);
        said.push('\n');
        if let Some(rest) = line.strip_prefix("listening on ") {
            break rest.split_whitespace().next().unwrap().to_string();
        }
    };
    // The rest of what it says goes to the test's stderr.
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            eprintln!("daemon: {line}");
        }
    });
    assert!(said.contains("accelerator"), "{said}");
    Daemon { child, addr, state }
}

/// The sizes of the newest snapshot's state file and RAM file under `state`.
fn snapshot_files(state: &Path) -> (u64, u64) {
    let newest = std::fs::read_dir(state.join("snapshots"))
        .expect("the snapshots directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".vmstate"))
        .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
        .expect("a snapshot");
    let size = |p: &Path| {
        p.metadata()
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
            .len()
    };
    (
        size(&newest),
        size(&crucible::vm::snapshot::ram_of(&newest)),
    )
}

/// The pids of the qemu processes serving sandboxes under `state`.
fn qemus(state: &Path, id: &str) -> Vec<u32> {
    let marker = state.join("vms").join(id).join("agent.sock");
    let marker = marker.to_string_lossy();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(marker.as_ref()))
        })
        .collect()
}

#[tokio::test]
async fn sandboxes_are_microvms_reached_only_through_their_agent() {
    if !qemu_ready() {
        return;
    }
    let d = daemon("a");
    let c = Client::new(&d.addr, Some("k".into()));
    images_run_on_the_host_as_they_run_here(&d);

    // What every backend does (exec through each transport, env, cwd,
    // timeouts, group kill, files), here in a VM.
    suite::conformance(&c, "a").await;
    // The guest's own kernel, and no network interface but loopback.
    let out = output(&c, "a", "ls /sys/class/net; uname -r").await;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "lo", "{out}");
    assert_eq!(lines.len(), 2, "{out}");
    assert!(
        lines[1].contains("cloud-amd64"),
        "the guest's kernel: {out}"
    );
    let tar = tar_of(&[("hello.txt", tar::EntryType::Regular, "", b"hello, VM")]);
    c.push("a", "/work", tar).await.unwrap();

    // A second sandbox is another VM: it does not see the first one's files.
    let info = c
        .create(&NewSandbox {
            id: Some("b".into()),
            memory_mib: Some(192),
            vcpus: Some(1),
        })
        .await
        .unwrap();
    assert_eq!(info.state, "running");
    assert_eq!(
        info.started.as_deref(),
        Some("boot"),
        "b's size has no snapshot"
    );
    // Sandboxes of the default size resume from the snapshot, each with the
    // host's clock and randomness of its own.
    let a = c.info("a").await.unwrap();
    assert_eq!(a.started.as_deref(), Some("snapshot"), "{a:?}");
    let twin = c.create(&NewSandbox::default()).await.unwrap();
    assert_eq!(twin.started.as_deref(), Some("snapshot"));
    let probe = "date +%s; head -c 16 /dev/urandom | od -An -tx1";
    let in_a = output(&c, "a", probe).await;
    let in_twin = output(&c, &twin.id, probe).await;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    for out in [&in_a, &in_twin] {
        let t: u64 = out.lines().next().unwrap().trim().parse().unwrap();
        assert!(
            now.abs_diff(t) < 30,
            "the guest's clock: {t}, the host's: {now}"
        );
    }
    assert_ne!(
        in_a.lines().nth(1),
        in_twin.lines().nth(1),
        "two VMs from one snapshot share their randomness"
    );
    // Both map the snapshot's RAM file, each privately: what one writes
    // into its memory (a's file lives in its tmpfs) the other never sees.
    match c.pull(&twin.id, "/work/hello.txt").await {
        Err(ClientError::Http { status: 404, .. }) => {}
        other => panic!("a VM resumed beside a sees a's file: {other:?}"),
    }
    let (state_file, ram_file) = snapshot_files(&d.state);
    assert!(
        state_file < 4 << 20 && ram_file >= 192 << 20,
        "the snapshot keeps the memory in its RAM file, the devices in its state file: {state_file} and {ram_file} bytes"
    );
    c.delete(&twin.id).await.unwrap();
    match c.pull("b", "/work/hello.txt").await {
        Err(ClientError::Http { status: 404, .. }) => {}
        other => panic!("sandbox b sees a's file: {other:?}"),
    }
    let out = output(&c, "b", "grep MemTotal /proc/meminfo").await;
    let kib: u64 = out.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert!(kib < 192 * 1024, "b asked for 192 MiB: {out}");
    match c
        .create(&NewSandbox {
            id: Some("b".into()),
            ..NewSandbox::default()
        })
        .await
    {
        Err(ClientError::Http { status: 409, .. }) => {}
        other => panic!("{other:?}"),
    }

    // Too little memory for the guest: refused before a VM is started.
    let small = NewSandbox {
        memory_mib: Some(100),
        ..NewSandbox::default()
    };
    match c.create(&small).await {
        Err(ClientError::Http { status: 400, error }) => {
            assert!(error.contains("initramfs"), "{error}")
        }
        other => panic!("{other:?}"),
    }

    // A VM that dies mid-command: the command ends in-band with -1 and the
    // reason, and the sandbox says it is dead.
    let qemu_a = qemus(&d.state, "a");
    assert_eq!(qemu_a.len(), 1, "one qemu for sandbox a: {qemu_a:?}");
    let s = c
        .exec("a", &sh("sleep 30"), Transport::Websocket)
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    Command::new("kill")
        .args(["-KILL", &qemu_a[0].to_string()])
        .status()
        .unwrap();
    let got = collect_within(s, LIMIT).await.unwrap();
    let r = got.result.unwrap();
    assert_eq!(r.exit_code, -1);
    assert!(r.error.as_deref().unwrap_or("").contains("VM"), "{r:?}");
    let info = c.info("a").await.unwrap();
    assert_eq!(info.state, "dead", "{info:?}");
    // A command started in a dead VM: 1011 on the WebSocket transport,
    // in-band -1 one-shot.
    let closed = match c.exec("a", &sh("true"), Transport::Websocket).await {
        Ok(s) => collect_within(s, LIMIT).await.map(|_| ()),
        Err(e) => Err(e),
    };
    match closed {
        Err(ClientError::Unreachable(why)) => assert!(why.contains("VM"), "{why}"),
        other => panic!("a command in a dead VM: {other:?}"),
    }
    let got = collect_within(
        c.exec("a", &sh("true"), Transport::Post).await.unwrap(),
        LIMIT,
    )
    .await
    .unwrap();
    assert_eq!(got.result.unwrap().exit_code, -1);

    // DELETE stops the VM and frees everything.
    let qemu_b = qemus(&d.state, "b");
    assert_eq!(qemu_b.len(), 1);
    for id in ["a", "b"] {
        c.delete(id).await.unwrap();
        match c.info(id).await {
            Err(ClientError::Http { status: 404, .. }) => {}
            other => panic!("{id} after DELETE: {other:?}"),
        }
        assert!(!d.state.join("vms").join(id).exists());
    }
    assert!(
        !Path::new(&format!("/proc/{}", qemu_b[0])).exists(),
        "qemu of b left running"
    );
    assert!(qemus(&d.state, "b").is_empty());
}

/// `othc run --on`: the hello image built here, run in a fresh sandbox (or
/// in sandbox `a`), its output and exit status as a local run's; the
/// sandboxes it made are gone after; what fails says which host and what.
fn images_run_on_the_host_as_they_run_here(d: &Daemon) {
    let othc = built("othc", "othc-cli");
    let hello = test_support::copy_of_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/hello"),
        env!("CARGO_TARGET_TMPDIR"),
        "microvm-hello",
    );
    let on = format!("crucible://{}", d.addr);
    let othc_run = |extra: &[&str], key: &str| {
        test_support::run_with_input(
            Command::new(&othc)
                .arg("run")
                .arg(hello.join("Hello.oth"))
                .args(extra)
                .env("CRUCIBLE_KEY", key),
            b"Ada\nGrace\n",
        )
    };
    let o = othc_run(&["--on", &on], "k");
    let (out, err) = test_support::texts(&o);
    assert_eq!(out, "Hi, Ada.\nHI, ADA.\nHi, Grace.\nHI, GRACE.\n", "{err}");
    assert_eq!(o.status.code(), Some(0), "{err}");
    // The modules were compiled here and the guest ran that code.
    assert!(err.contains("compiling 2 module(s)"), "{err}");
    assert!(!err.contains("precompiled code is not used"), "{err}");
    let set = r#"greeting=Greeting { prefix: "Yo ", excited: true }"#;
    let o = othc_run(&["--on", &format!("{on}/a"), "--set", set], "k");
    let (out, err) = test_support::texts(&o);
    assert_eq!(out, "Yo Ada!\nYO ADA!\nYo Grace!\nYO GRACE!\n", "{err}");
    assert_eq!(o.status.code(), Some(0), "{err}");
    // Only sandbox a is left: the one made for the first run was deleted.
    let vms: Vec<String> = std::fs::read_dir(d.state.join("vms"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(vms, ["a"]);
    // A wrong key, a missing sandbox, a host that is not there.
    let o = othc_run(&["--on", &on], "wrong");
    let (_, err) = test_support::texts(&o);
    assert!(err.contains(&on) && err.contains("--key"), "{err}");
    assert_eq!(o.status.code(), Some(2));
    let o = othc_run(&["--on", &format!("{on}/nope")], "k");
    let (_, err) = test_support::texts(&o);
    assert!(err.contains("no sandbox `nope`"), "{err}");
    let o = othc_run(&["--on", "crucible://127.0.0.1:1"], "k");
    let (_, err) = test_support::texts(&o);
    assert!(err.contains("cannot reach crucible://127.0.0.1:1"), "{err}");
}
