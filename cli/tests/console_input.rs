//! Console input as users pipe it in, hostile included
//! (fixtures/cli/console_input.cases): a line that is not UTF-8 used to end
//! input on the spot, silently, the lines after it never read and the run
//! ending with status 0; a line with no end was held whole whatever its
//! length; a failed read ended input saying nothing. Each now says what
//! happened on stderr, goes on where it can, and ends with status 1.

mod othc_process;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use othc_process::{root, stderr, stdout};

/// Hello built once for every case.
fn hello() -> &'static PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let dir = test_support::copy_of_dir(
            &root().join("examples/hello"),
            env!("CARGO_TARGET_TMPDIR"),
            "console_input_hello",
        );
        let o = othc_process::othc(&["build", &dir.join("Hello.oth").to_string_lossy()]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        dir.join("build/Hello.othimg")
    })
}

/// `othc run` of Hello (`args` after it), every stream piped.
fn spawn_hello(args: &[&str]) -> std::process::Child {
    let bundle = hello().to_string_lossy().into_owned();
    Command::new(env!("CARGO_BIN_EXE_othc"))
        .args(["run", &bundle])
        .args(args)
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn run_hello(args: &[&str], input: &[u8]) -> std::process::Output {
    let bundle = hello().to_string_lossy().into_owned();
    let mut all = vec!["run", &bundle];
    all.extend_from_slice(args);
    test_support::run_with_input(
        Command::new(env!("CARGO_BIN_EXE_othc"))
            .args(&all)
            .current_dir(root()),
        input,
    )
}

#[test]
fn every_case_of_console_input() {
    let cases = std::fs::read_to_string(root().join("fixtures/cli/console_input.cases")).unwrap();
    let mut ran = 0;
    for line in cases
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let f: Vec<&str> = line.split(" | ").map(str::trim).collect();
        let [name, input, output, says, status] = f[..] else {
            panic!("a case has five fields: {line}");
        };
        let o = run_hello(&[], &test_support::unescape(input));
        let (out, err) = (stdout(&o), stderr(&o));
        assert_eq!(
            out.as_bytes(),
            test_support::unescape(output),
            "{name}: stderr {err}"
        );
        if says == "-" {
            assert!(!err.contains("error"), "{name}: {err}");
        } else {
            assert!(err.contains(says), "{name}: {err}");
        }
        assert_eq!(
            o.status.code(),
            Some(status.parse().unwrap()),
            "{name}: {err}"
        );
        ran += 1;
    }
    assert!(ran >= 6, "only {ran} case(s)");
}

/// A line with no end, 400 MB long: read through and dropped as it comes,
/// never held whole (the process stays far below its size), and the line
/// after it is greeted.
#[test]
fn an_endless_line_is_dropped_as_it_comes_not_held() {
    let mut child = spawn_hello(&["--max-payload", "1000"]);
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let block = vec![b'x'; 1 << 20];
    for _ in 0..400 {
        std::io::Write::write_all(&mut stdin, &block).unwrap();
    }
    // Its peak resident memory, read before it can end.
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let peak_kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap();
    std::io::Write::write_all(&mut stdin, b"\nAda\n").unwrap();
    drop(stdin);
    let o = child.wait_with_output().unwrap();
    let (out, err) = (stdout(&o), stderr(&o));
    assert!(
        peak_kib < 150 * 1024,
        "400 MB of one line took {peak_kib} KiB at its peak"
    );
    assert_eq!(out, "Hi, Ada.\nHI, ADA.\n", "{err}");
    assert!(
        err.contains(
            "error: console input line 1 is 419430400 bytes long, over the payload limit of 1000"
        ),
        "{err}"
    );
    assert_eq!(o.status.code(), Some(1), "{err}");
}

/// Standard input that cannot be read (a directory): said, and status 1.
#[test]
fn input_that_cannot_be_read_says_so() {
    let bundle = hello().to_string_lossy().into_owned();
    let o = Command::new(env!("CARGO_BIN_EXE_othc"))
        .args(["run", &bundle])
        .current_dir(root())
        .stdin(std::fs::File::open(root().join("examples")).unwrap())
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(
        err.contains("error: console input could not be read: Is a directory"),
        "{err}"
    );
    assert_eq!(o.status.code(), Some(1), "{err}");
}

/// Standard output whose reader stops taking it (a pipe nobody reads, as
/// `| less` left alone): the loop waits on the write and serves nothing
/// meanwhile, which the run says past 2 s, and says again when output is
/// taken; nothing is lost (it used to wait saying nothing).
#[test]
fn output_nobody_takes_is_said_and_nothing_is_lost() {
    use std::io::{BufRead, Read};
    let mut child = spawn_hello(&[]);
    // Stderr read as it comes; stdout left unread for now.
    let (tx, said) = std::sync::mpsc::channel();
    let err = std::io::BufReader::new(child.stderr.take().unwrap());
    std::thread::spawn(move || {
        for l in err.lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    // Far more output than a pipe holds (64 KiB): 20,000 names, two
    // greetings each.
    let names: String = (0..20_000).map(|i| format!("n{i}\n")).collect();
    let mut stdin = child.stdin.take().unwrap();
    let feed = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, names.as_bytes()));
    let mut seen = Vec::new();
    let warning = loop {
        let l = said
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("no warning in 60 s; stderr: {seen:?}"));
        if l.contains("warning: the runtime has waited 2 s to write `") {
            break l;
        }
        seen.push(l);
    };
    assert!(
        warning.contains("'s output: standard output's reader is not taking it: nothing else is served until it is over"),
        "{warning}"
    );
    // Now it is read: every greeting comes, and the end of the wait is said.
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    feed.join().unwrap().unwrap();
    let status = child.wait().unwrap();
    let rest: Vec<String> = said.try_iter().collect();
    assert_eq!(out.lines().count(), 40_000, "greetings lost");
    assert!(
        out.ends_with("Hi, n19999.\nHI, N19999.\n"),
        "{}",
        &out[out.len() - 40..]
    );
    assert!(
        rest.iter()
            .any(|l| l.starts_with("standard output took the output after ")),
        "{rest:?}"
    );
    assert_eq!(status.code(), Some(0), "{rest:?}");
}
