//! File transfer: push (a tar archive extracted in the guest) and pull (one
//! file's bytes), over loopback; and every kind of tar entry that tries to
//! escape its destination, refused before anything is written.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crucible::client::{Client, ClientError};
use crucible::daemon::{self, Config};
use crucible::guest::extract_tar;
use crucible::local::LocalBackend;
use crucible::wire::WireFilesPutResult;

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("crucible_files")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

use test_support::{TarEntry as Entry, raw_tar as archive};

use tar::EntryType::{Directory, Link, Regular, Symlink};

/// A sandbox root, with a secret beside it that no push may touch.
fn sandbox(name: &str) -> (PathBuf, PathBuf) {
    let at = scratch(name);
    let root = at.join("root");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(at.join("secret"), "secret").unwrap();
    (root, at)
}

fn untouched(at: &Path) {
    let names: Vec<_> = std::fs::read_dir(at)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let mut names = names;
    names.sort();
    assert_eq!(names, ["root", "secret"], "something was written outside");
    assert_eq!(
        std::fs::read_to_string(at.join("secret")).unwrap(),
        "secret"
    );
}

#[test]
fn a_tar_is_extracted_beneath_its_destination() {
    let (root, at) = sandbox("ok");
    let tar = archive(&[
        ("docs/", Directory, "", b""),
        ("docs/a.txt", Regular, "", b"alpha"),
        ("./b.txt", Regular, "", b"beta!"),
        ("docs/link", Symlink, "a.txt", b""),
        ("docs/up", Symlink, "../b.txt", b""),
        ("hard", Link, "docs/a.txt", b""),
    ]);
    let r = extract_tar(&root, "/dest/here", &tar).unwrap();
    assert_eq!(
        r,
        WireFilesPutResult {
            files: 3,
            bytes: 10
        }
    );
    let base = root.join("dest/here");
    assert_eq!(
        std::fs::read_to_string(base.join("docs/a.txt")).unwrap(),
        "alpha"
    );
    assert_eq!(
        std::fs::read_to_string(base.join("docs/link")).unwrap(),
        "alpha"
    );
    assert_eq!(
        std::fs::read_to_string(base.join("docs/up")).unwrap(),
        "beta!"
    );
    assert_eq!(std::fs::read_to_string(base.join("hard")).unwrap(), "alpha");
    untouched(&at);
}

#[test]
fn every_escape_is_refused_and_nothing_is_written() {
    let cases: &[(&str, &[Entry<'_>])] = &[
        ("absolute path", &[("/etc/evil", Regular, "", b"x")]),
        ("dot-dot", &[("../../secret", Regular, "", b"x")]),
        ("dot-dot inside", &[("a/../../secret", Regular, "", b"x")]),
        ("absolute symlink", &[("l", Symlink, "/etc/passwd", b"")]),
        ("climbing symlink", &[("l", Symlink, "../../secret", b"")]),
        (
            "deep climbing symlink",
            &[("a/b/l", Symlink, "../../../x", b"")],
        ),
        ("hard link out", &[("h", Link, "../../secret", b"")]),
        ("absolute hard link", &[("h", Link, "/etc/passwd", b"")]),
        (
            "write through a link it made",
            &[("d", Symlink, ".", b""), ("d/../x", Regular, "", b"x")],
        ),
        ("a device", &[("dev", tar::EntryType::Char, "", b"")]),
        (
            // Each link harmless on its own; the chain leads to `/`.
            "a chain of links",
            &[
                ("s", Symlink, ".", b""),
                ("t1", Symlink, "s/..", b""),
                ("t2", Symlink, "t1/..", b""),
                ("t3", Symlink, "t2/..", b""),
                ("t4", Symlink, "t3/..", b""),
                ("t5", Symlink, "t4/..", b""),
                ("t6", Symlink, "t5/..", b""),
                ("t7", Symlink, "t6/..", b""),
                ("t8", Symlink, "t7/..", b""),
            ],
        ),
        (
            "a link at a link",
            &[("a", Symlink, ".", b""), ("b", Symlink, "a", b"")],
        ),
    ];
    for (what, entries) in cases {
        let (root, at) = sandbox(&what.replace(' ', "_"));
        let err = extract_tar(&root, "/dest", &archive(entries)).expect_err(what);
        assert_eq!(
            err.kind,
            crucible::failure::FailureKind::Invalid,
            "{what}: {err:?}"
        );
        untouched(&at);
        assert!(
            !root.join("dest").exists()
                || std::fs::read_dir(root.join("dest"))
                    .unwrap()
                    .next()
                    .is_none(),
            "{what}: entries written before the refusal"
        );
    }
}

#[test]
fn an_archive_that_cannot_be_written_whole_writes_nothing() {
    // Each archive starts with a good entry: a refusal found only while
    // writing left it behind (and a missing hard link target answered 404).
    let cases: &[(&str, &[Entry<'_>], &str)] = &[
        (
            "hard link to a missing member",
            &[
                ("a.txt", Regular, "", b"a"),
                ("h", Link, "missing.txt", b""),
            ],
            "not a file of the archive",
        ),
        (
            "hard link to a later member",
            &[("h", Link, "b.txt", b""), ("b.txt", Regular, "", b"b")],
            "not a file of the archive",
        ),
        (
            "hard link to a directory",
            &[("d", Directory, "", b""), ("h", Link, "d", b"")],
            "not a file of the archive",
        ),
        (
            "a file where a directory is needed",
            &[("f", Regular, "", b"f"), ("f/g", Regular, "", b"g")],
            "it is a file",
        ),
        (
            "a directory over a file",
            &[("f", Regular, "", b"f"), ("f", Directory, "", b"")],
            "a file is there",
        ),
        (
            "a file over a directory",
            &[("d/x", Regular, "", b"x"), ("d", Regular, "", b"d")],
            "a directory is there",
        ),
        (
            "a link over a file",
            &[("f", Regular, "", b"f"), ("f", Symlink, "g", b"")],
            "something is already there",
        ),
    ];
    for (what, entries, says) in cases {
        let (root, at) = sandbox(&what.replace(' ', "_"));
        let err = extract_tar(&root, "/dest", &archive(entries)).expect_err(what);
        assert_eq!(
            err.kind,
            crucible::failure::FailureKind::Invalid,
            "{what}: {err:?}"
        );
        assert!(err.reason.contains(says), "{what}: {}", err.reason);
        assert!(
            !root.join("dest").exists(),
            "{what}: written before the refusal"
        );
        untouched(&at);
    }
    // Against what is on disk already: a file where the archive has a directory.
    let (root, at) = sandbox("conflict_on_disk");
    std::fs::create_dir_all(root.join("dest")).unwrap();
    std::fs::write(root.join("dest/f"), "f").unwrap();
    let tar = archive(&[("new.txt", Regular, "", b"n"), ("f/g", Regular, "", b"g")]);
    let err = extract_tar(&root, "/dest", &tar).unwrap_err();
    assert!(err.reason.contains("it is a file"), "{}", err.reason);
    assert!(!root.join("dest/new.txt").exists());
    // A destination beneath a file.
    let err = extract_tar(&root, "/dest/f/sub", &archive(&[("x", Regular, "", b"x")])).unwrap_err();
    assert!(err.reason.contains("not a directory"), "{}", err.reason);
    untouched(&at);
    // A hard link to a file already there is fine.
    let r = extract_tar(&root, "/dest", &archive(&[("h", Link, "f", b"")])).unwrap();
    assert_eq!(r.files, 1);
    assert_eq!(std::fs::read_to_string(root.join("dest/h")).unwrap(), "f");
}

#[test]
fn a_sparse_entry_is_refused_without_reading_it() {
    let (root, at) = sandbox("sparse");
    let tar = test_support::sparse_bomb_tar("big");
    assert!(tar.len() < 4096);
    // What a reader that trusts the entry would read.
    let mut a = tar::Archive::new(&tar[..]);
    let declared = a.entries().unwrap().next().unwrap().unwrap().size();
    assert!(declared > 1 << 32, "{declared}");
    let err = extract_tar(&root, "/dest", &tar).unwrap_err();
    assert_eq!(err.kind, crucible::failure::FailureKind::Invalid);
    assert!(err.reason.contains("sparse"), "{}", err.reason);
    untouched(&at);
}

#[cfg(unix)]
#[test]
fn a_link_through_a_link_already_there_is_refused() {
    let (root, at) = sandbox("chain_on_disk");
    std::fs::create_dir_all(root.join("dest")).unwrap();
    std::os::unix::fs::symlink(".", root.join("dest/s")).unwrap();
    let err = extract_tar(&root, "/dest", &archive(&[("t", Symlink, "s/..", b"")])).unwrap_err();
    assert!(
        err.reason.contains("through the link `s`"),
        "{}",
        err.reason
    );
    assert!(std::fs::symlink_metadata(root.join("dest/t")).is_err());
    untouched(&at);
}

#[cfg(unix)]
#[test]
fn links_already_in_the_sandbox_are_not_written_through() {
    let (root, at) = sandbox("existing_link");
    std::fs::create_dir_all(root.join("dest")).unwrap();
    std::os::unix::fs::symlink(at.join("secret"), root.join("dest/file")).unwrap();
    std::os::unix::fs::symlink(&at, root.join("dest/dir")).unwrap();
    for name in ["file", "dir/new"] {
        let err =
            extract_tar(&root, "/dest", &archive(&[(name, Regular, "", b"x")])).expect_err(name);
        assert!(err.reason.contains("link"), "{name}: {}", err.reason);
    }
    // A symlinked destination directory itself.
    let err = extract_tar(&root, "/dest/dir", &archive(&[("f", Regular, "", b"x")])).unwrap_err();
    assert!(err.reason.contains("link"), "{}", err.reason);
    untouched(&at);
}

#[tokio::test]
async fn push_and_pull_over_the_daemon() {
    let at = scratch("daemon");
    let local = LocalBackend::new(at.join("sandboxes"));
    let sb = local.create("box").unwrap();
    std::fs::write(at.join("outside.txt"), "outside").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(at.join("outside.txt"), sb.dir().join("sneaky")).unwrap();
    let config = Config {
        key: Some("k".into()),
        ..Config::default()
    };
    let addr = daemon::spawn("127.0.0.1:0".parse().unwrap(), Arc::new(local), config)
        .await
        .unwrap();
    let c = Client::new(&addr.to_string(), Some("k".into()));
    let tar = archive(&[
        ("hello.txt", Regular, "", b"hello, sandbox"),
        ("sub/x.bin", Regular, "", &[0, 1, 2]),
    ]);
    let r = c.push("box", "/work dir", tar).await.unwrap();
    assert_eq!(
        r,
        WireFilesPutResult {
            files: 2,
            bytes: 17
        }
    );
    assert_eq!(
        c.pull("box", "/work dir/hello.txt").await.unwrap(),
        b"hello, sandbox"
    );
    assert_eq!(
        c.pull("box", "/work dir/sub/x.bin").await.unwrap(),
        [0, 1, 2]
    );
    // What is not there, what leads out, what escapes: 4xx with a reason.
    for (path, status) in [
        ("/nope.txt", 404),
        ("/sneaky", 400),
        ("/../outside.txt", 400),
        ("relative", 400),
    ] {
        match c.pull("box", path).await {
            Err(ClientError::Http { status: s, error }) => {
                assert_eq!(s, status, "{path}: {error}")
            }
            other => panic!("{path}: {other:?}"),
        }
    }
    let evil = archive(&[("../../outside.txt", Regular, "", b"pwned")]);
    match c.push("box", "/", evil).await {
        Err(ClientError::Http { status: 400, error }) => {
            assert!(error.contains("escapes"), "{error}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        std::fs::read_to_string(at.join("outside.txt")).unwrap(),
        "outside"
    );
    // A hard link naming a missing member: 400 with the reason, nothing written.
    let broken = archive(&[("first.txt", Regular, "", b"1"), ("h", Link, "gone", b"")]);
    match c.push("box", "/atomic", broken).await {
        Err(ClientError::Http { status: 400, error }) => {
            assert!(error.contains("`gone`"), "{error}")
        }
        other => panic!("{other:?}"),
    }
    assert!(!sb.dir().join("atomic").exists());
    match c
        .push("box", "/", b"not a tar at all, clearly".to_vec())
        .await
    {
        Err(ClientError::Http { status: 400, .. }) => {}
        other => panic!("{other:?}"),
    }
}

/// `crucible serve --max-body` bounds what a push may send: a body over it
/// is answered 413 before it is read to the end.
#[tokio::test]
async fn a_push_over_max_body_is_refused() {
    use std::io::BufRead;
    let at = scratch("max_body");
    let mut daemon = std::process::Command::new(env!("CARGO_BIN_EXE_crucible"))
        .args(["serve", "--listen", "127.0.0.1:0", "--sandbox", "box"])
        .args(["--max-body", "1", "--root"])
        .arg(at.join("sandboxes"))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    if let Some(err) = daemon.stderr.take() {
        let _ = std::io::BufReader::new(err).read_line(&mut line);
    }
    let addr = line
        .strip_prefix("listening on ")
        .and_then(|r| r.split_whitespace().next())
        .map(str::to_string);
    let (result, small) = match &addr {
        Some(addr) => {
            let c = Client::new(addr, None);
            let big = vec![7u8; 2 << 20];
            let big = c
                .push("box", "/", archive(&[("big.bin", Regular, "", &big)]))
                .await;
            let small = c
                .push("box", "/", archive(&[("small.bin", Regular, "", b"ok")]))
                .await;
            (Some(big), Some(small))
        }
        None => (None, None),
    };
    let _ = daemon.kill();
    let _ = daemon.wait();
    let (Some(result), Some(small)) = (result, small) else {
        panic!("the daemon did not say where it listens: {line}");
    };
    match result {
        Err(ClientError::Http { status: 413, .. }) => {}
        other => panic!("{other:?}"),
    }
    assert_eq!(small.unwrap().files, 1);
}
