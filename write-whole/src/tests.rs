use std::os::unix::fs::{FileTypeExt, PermissionsExt};

use super::*;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("othc-write-whole-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

/// The names in `d`, sorted.
fn names(d: &Path) -> Vec<String> {
    let mut n: Vec<String> = fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    n.sort();
    n
}

#[test]
fn makes_a_file_that_is_not_there() {
    let d = dir("new");
    write_whole(d.join("a.txt"), "new").unwrap();
    assert_eq!(fs::read_to_string(d.join("a.txt")).unwrap(), "new");
    assert_eq!(names(&d), ["a.txt"]);
}

#[test]
fn replaces_a_file_keeping_its_permissions_and_leaving_nothing_beside_it() {
    let d = dir("replace");
    let p = d.join("a.txt");
    fs::write(&p, "old and longer").unwrap();
    fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
    write_whole(&p, "new").unwrap();
    assert_eq!(fs::read_to_string(&p).unwrap(), "new");
    assert_eq!(
        fs::metadata(&p).unwrap().permissions().mode() & 0o7777,
        0o640
    );
    assert_eq!(names(&d), ["a.txt"]);
}

#[test]
fn a_reader_of_the_old_file_reads_it_whole() {
    use std::io::Read;
    let d = dir("reader");
    let p = d.join("a.txt");
    fs::write(&p, "old").unwrap();
    let mut reading = fs::File::open(&p).unwrap();
    write_whole(&p, "new").unwrap();
    let mut got = String::new();
    reading.read_to_string(&mut got).unwrap();
    assert_eq!(got, "old");
}

#[test]
fn writes_through_a_link_which_stays_a_link() {
    let d = dir("link");
    fs::write(d.join("real.txt"), "old").unwrap();
    std::os::unix::fs::symlink("real.txt", d.join("link.txt")).unwrap();
    write_whole(d.join("link.txt"), "new").unwrap();
    assert!(
        fs::symlink_metadata(d.join("link.txt"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_to_string(d.join("real.txt")).unwrap(), "new");
    assert_eq!(names(&d), ["link.txt", "real.txt"]);
}

#[test]
fn a_failed_rename_leaves_the_old_and_nothing_beside_it() {
    // A directory in the file's place: the new file is written, and cannot
    // be renamed over it.
    let d = dir("failed");
    fs::create_dir(d.join("a.txt")).unwrap();
    fs::write(d.join("a.txt/inside"), "kept").unwrap();
    let e = replace(&d.join("a.txt"), None, b"new").unwrap_err();
    assert!(matches!(e, Failed::Writing(_)), "{e:?}");
    assert_eq!(names(&d), ["a.txt"]);
    assert_eq!(fs::read_to_string(d.join("a.txt/inside")).unwrap(), "kept");
}

#[test]
fn a_directory_that_is_not_there_is_said_to_be_where_it_failed() {
    let d = dir("nodir");
    let e = write_whole(d.join("missing/a.txt"), "new").unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::NotFound);
    assert!(
        e.to_string().contains("cannot make a new file beside it"),
        "{e}"
    );
}

#[test]
fn what_is_not_a_regular_file_is_not_replaced() {
    let d = dir("fifo");
    let p = d.join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&p)
        .status()
        .unwrap();
    assert!(made.success());
    let e = write_whole(&p, "new").unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{e}");
    assert!(fs::symlink_metadata(&p).unwrap().file_type().is_fifo());
    assert_eq!(names(&d), ["pipe"]);
}

/// The writer of the test below, in a process of its own (this test binary
/// run again with `WRITE_WHOLE_KILL_ME` naming the file): replaces the file
/// with 256 MiB, and is killed meanwhile. Without the variable, nothing.
#[test]
fn writer_to_be_killed() {
    let Some(p) = std::env::var_os("WRITE_WHOLE_KILL_ME") else {
        return;
    };
    let _ = write_whole(PathBuf::from(p), vec![7u8; 256 << 20]);
}

/// A process killed while it writes the new content leaves the old file as
/// it was and nothing beside it (a named new file used to stay, hidden).
#[test]
fn a_process_killed_while_writing_leaves_the_old_file_and_nothing_beside_it() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let d = dir("killed");
    let p = d.join("a.txt");
    fs::write(&p, "old").unwrap();
    let mut writer = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "tests::writer_to_be_killed"])
        .env("WRITE_WHOLE_KILL_ME", &p)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Killed as soon as it holds the new file open, named or not.
    let fds = PathBuf::from(format!("/proc/{}/fd", writer.id()));
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let holds = fs::read_dir(&fds)
            .into_iter()
            .flatten()
            .flatten()
            .any(|fd| fs::read_link(fd.path()).is_ok_and(|to| to.starts_with(&d)));
        if holds {
            break;
        }
        assert!(
            writer.try_wait().unwrap().is_none(),
            "the writer ended before it opened the new file"
        );
        assert!(Instant::now() < deadline, "the writer never opened it");
        std::thread::sleep(Duration::from_millis(1));
    }
    writer.kill().unwrap();
    writer.wait().unwrap();
    assert_eq!(names(&d), ["a.txt"]);
    assert_eq!(fs::read_to_string(&p).unwrap(), "old");
}
