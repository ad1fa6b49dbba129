//! A full disk never costs a user the file a command was rewriting. `othc
//! fmt` used to truncate the source and write the formatted text in its
//! place: on a full disk the write failed after the first page, and the
//! source was left cut off mid-line, its end lost (the error said only
//! that it could not be written). `othc gen` did the same to the bindings
//! it replaced. Each now writes a new file and renames it over the old one
//! only once it is whole (the `write-whole` crate).
//!
//! The disk is a tmpfs of 16 KiB, mounted in a mount namespace of the
//! test's own (`unshare -m`, which needs root; under `CI=true` the test fails
//! without it), holding the files and filled to its last page.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).to_path_buf()
}

/// The exit status of the mount step when it fails: nothing was tried.
const NO_DISK: i32 = 97;

/// Runs `script` (sh) in a mount namespace of its own, with `$DISK` a tmpfs
/// of 16 KiB holding `files` (name, content) and then filled to its last
/// byte by `$DISK/fill`, `$OTHC` the binary under test, and `$OUT` a
/// directory of the host: the script copies there what the test is to
/// look at, and the disk goes with the namespace. `Err` says why no such
/// disk could be had.
fn on_a_full_disk(name: &str, files: &[(&str, &[u8])], script: &str) -> Result<PathBuf, String> {
    let work = test_support::scratch(env!("CARGO_TARGET_TMPDIR"), name);
    let (disk, out, given) = (work.join("disk"), work.join("out"), work.join("given"));
    for d in [&disk, &out, &given] {
        std::fs::create_dir_all(d).unwrap();
    }
    for (name, content) in files {
        std::fs::write(given.join(name), content).unwrap();
    }
    let whole = format!(
        "mount --make-rprivate / && mount -t tmpfs -o size=16k tmpfs \"$DISK\" || exit {NO_DISK}\n\
         cp \"$GIVEN\"/* \"$DISK\"/\n\
         dd if=/dev/zero of=\"$DISK/fill\" bs=4096 2>/dev/null\n\
         {script}"
    );
    let o: Output = Command::new("unshare")
        .args(["-m", "sh", "-c", &whole])
        .env("DISK", &disk)
        .env("OUT", &out)
        .env("GIVEN", &given)
        .env("OTHC", env!("CARGO_BIN_EXE_othc"))
        .output()
        .map_err(|e| format!("cannot run unshare: {e}"))?;
    let (stdout, stderr) = test_support::texts(&o);
    match o.status.code() {
        Some(0) => Ok(out),
        Some(NO_DISK) => Err(format!("no disk of 16 KiB could be mounted: {stderr}")),
        _ => panic!("the script failed ({}): {stdout}{stderr}", o.status),
    }
}

/// The disk's results, or none when the test cannot run (it then fails
/// under CI and is skipped elsewhere, saying why).
fn ready(ran: Result<PathBuf, String>) -> Option<PathBuf> {
    match ran {
        Ok(out) => Some(out),
        Err(why) => {
            test_support::runnable(Err(why));
            None
        }
    }
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn text(p: &Path) -> String {
    String::from_utf8_lossy(&read(p)).trim().to_string()
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut n: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    n.sort();
    n
}

#[test]
fn fmt_on_a_full_disk_leaves_the_source_as_it_was() {
    let source = read(&root().join("fixtures/cli/full_disk/Big.oth"));
    let ran = on_a_full_disk(
        "full_disk_fmt",
        &[("Big.oth", &source)],
        r#"
        "$OTHC" fmt "$DISK/Big.oth" 2> "$OUT/stderr"; echo $? > "$OUT/status"
        mkdir "$OUT/full" && cp -a "$DISK"/. "$OUT/full/"
        # With room again, the same command formats it.
        rm "$DISK/fill"
        "$OTHC" fmt "$DISK/Big.oth" 2> "$OUT/stderr2"; echo $? > "$OUT/status2"
        "$OTHC" fmt --check "$DISK/Big.oth" > /dev/null; echo $? > "$OUT/check"
        "#,
    );
    let Some(out) = ready(ran) else { return };
    let stderr = text(&out.join("stderr"));
    assert_eq!(text(&out.join("status")), "2", "{stderr}");
    assert!(
        stderr.contains("cannot write") && stderr.contains("No space left on device"),
        "{stderr}"
    );
    assert!(stderr.contains("left as it was"), "{stderr}");
    assert!(
        read(&out.join("full/Big.oth")) == source,
        "the source was changed by a failed fmt: now {} bytes, was {}",
        read(&out.join("full/Big.oth")).len(),
        source.len()
    );
    assert_eq!(names(&out.join("full")), ["Big.oth", "fill"]);
    let stderr2 = text(&out.join("stderr2"));
    assert_eq!(text(&out.join("status2")), "0", "{stderr2}");
    assert_eq!(
        text(&out.join("check")),
        "0",
        "formatted, it would change again"
    );
}

#[test]
fn gen_on_a_full_disk_leaves_the_old_bindings_as_they_were() {
    let source = read(&root().join("fixtures/cli/full_disk/Big.oth"));
    let old: &[u8] = b"// the bindings of an earlier run\n";
    let ran = on_a_full_disk(
        "full_disk_gen",
        &[("Big.oth", &source), ("Big.oth.ts", old)],
        r#"
        "$OTHC" gen "$DISK/Big.oth" 2> "$OUT/stderr"; echo $? > "$OUT/status"
        mkdir "$OUT/full" && cp -a "$DISK"/. "$OUT/full/"
        "#,
    );
    let Some(out) = ready(ran) else { return };
    let stderr = text(&out.join("stderr"));
    assert_ne!(text(&out.join("status")), "0", "{stderr}");
    assert!(stderr.contains("No space left on device"), "{stderr}");
    let now = read(&out.join("full/Big.oth.ts"));
    assert!(
        now == old,
        "the old bindings were changed by a failed gen: now {} bytes, beginning {:?}",
        now.len(),
        String::from_utf8_lossy(&now[..now.len().min(80)])
    );
    assert_eq!(names(&out.join("full")), ["Big.oth", "Big.oth.ts", "fill"]);
}
