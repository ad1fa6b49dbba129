//! A slow disk stalls nobody else. The site serves a FUSE file system made
//! here whose one big file answers each read after a delay (as a network
//! file system or a spinning disk would), beside a small file read at
//! once. While a client downloads the big file, a part at a time, another
//! fetches the small one again and again: with the big file's reads on
//! the runtime's workers, the small file is served all along; with them on
//! the event loop (the bug this guards against), every request waits for
//! the part being read, and only a few get through before the download
//! ends.
//!
//! Then a disk that stops answering: `stuck.txt` answers its read only
//! after 3 s, and the read that finds the disk so is waited for on the
//! loop's thread, which serves nothing meanwhile. The run says so once the
//! wait passes 2 s, and again when the disk answers (it used to say
//! nothing: a process that looked alive and served nobody).

mod web;

use std::ffi::OsStr;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use fuser::{
    FileAttr, FileType, Filesystem, MountOption, ReplyAttr, ReplyData, ReplyDirectory, ReplyEntry,
    Request,
};

/// What each read of the slow file waits before it is answered.
const DELAY: Duration = Duration::from_millis(150);
const SLOW_SIZE: u64 = 3 << 20;
const FAST_TEXT: &[u8] = b"fast and small\n";
const STUCK_TEXT: &[u8] = b"late\n";
/// What the read of `stuck.txt` waits: past the runtime's 2 s.
const STUCK_FOR: Duration = Duration::from_secs(3);

const ROOT: u64 = 1;
const FAST: u64 = 2;
const SLOW: u64 = 3;
const STUCK: u64 = 4;

/// A read-only file system of three files, `fast.txt`, `slow.bin` and
/// `stuck.txt`.
struct SlowFs {
    slow: Arc<Vec<u8>>,
}

fn attr(ino: u64) -> FileAttr {
    let (kind, size, perm) = match ino {
        ROOT => (FileType::Directory, 0, 0o555),
        FAST => (FileType::RegularFile, FAST_TEXT.len() as u64, 0o444),
        STUCK => (FileType::RegularFile, STUCK_TEXT.len() as u64, 0o444),
        _ => (FileType::RegularFile, SLOW_SIZE, 0o444),
    };
    FileAttr {
        ino,
        size,
        blocks: size.div_ceil(512),
        atime: UNIX_EPOCH,
        mtime: UNIX_EPOCH,
        ctime: UNIX_EPOCH,
        crtime: UNIX_EPOCH,
        kind,
        perm,
        nlink: 1,
        uid: 0,
        gid: 0,
        rdev: 0,
        blksize: 4096,
        flags: 0,
    }
}

/// How long the kernel may keep what it was told (the files never change).
const TTL: Duration = Duration::from_secs(60);

impl Filesystem for SlowFs {
    fn lookup(&mut self, _: &Request<'_>, parent: u64, name: &OsStr, reply: ReplyEntry) {
        match (parent, name.to_str()) {
            (ROOT, Some("fast.txt")) => reply.entry(&TTL, &attr(FAST), 0),
            (ROOT, Some("slow.bin")) => reply.entry(&TTL, &attr(SLOW), 0),
            (ROOT, Some("stuck.txt")) => reply.entry(&TTL, &attr(STUCK), 0),
            _ => reply.error(libc_enoent()),
        }
    }

    fn getattr(&mut self, _: &Request<'_>, ino: u64, _: Option<u64>, reply: ReplyAttr) {
        match ino {
            ROOT | FAST | SLOW | STUCK => reply.attr(&TTL, &attr(ino)),
            _ => reply.error(libc_enoent()),
        }
    }

    fn read(
        &mut self,
        _: &Request<'_>,
        ino: u64,
        _: u64,
        offset: i64,
        size: u32,
        _: i32,
        _: Option<u64>,
        reply: ReplyData,
    ) {
        let data: &[u8] = match ino {
            FAST => FAST_TEXT,
            SLOW => &self.slow,
            STUCK => STUCK_TEXT,
            _ => return reply.error(libc_enoent()),
        };
        let from = (offset as usize).min(data.len());
        let to = (from + size as usize).min(data.len());
        if ino == FAST {
            return reply.data(&data[from..to]);
        }
        if ino == STUCK {
            std::thread::spawn(move || {
                std::thread::sleep(STUCK_FOR);
                reply.data(&STUCK_TEXT[from..to]);
            });
            return;
        }
        // Answered later, from a thread of its own: the file system goes on
        // answering everything else meanwhile, as a disk's queue does.
        let slow = self.slow.clone();
        std::thread::spawn(move || {
            std::thread::sleep(DELAY);
            reply.data(&slow[from..to]);
        });
    }

    fn readdir(
        &mut self,
        _: &Request<'_>,
        ino: u64,
        _: u64,
        offset: i64,
        mut reply: ReplyDirectory,
    ) {
        if ino != ROOT {
            return reply.error(libc_enoent());
        }
        let entries = [
            (ROOT, FileType::Directory, "."),
            (ROOT, FileType::Directory, ".."),
            (FAST, FileType::RegularFile, "fast.txt"),
            (SLOW, FileType::RegularFile, "slow.bin"),
            (STUCK, FileType::RegularFile, "stuck.txt"),
        ];
        for (i, (ino, kind, name)) in entries.iter().enumerate().skip(offset as usize) {
            if reply.add(*ino, (i + 1) as i64, *kind, name) {
                break;
            }
        }
        reply.ok();
    }
}

fn libc_enoent() -> i32 {
    2
}

#[test]
fn a_slow_disk_stalls_nobody_else() {
    let ready = test_support::ensure_debian_tool("fusermount3", "fuse3")
        .and_then(|()| test_support::ensure_debian_tool("curl", "curl"));
    if !test_support::runnable(ready) {
        return;
    }
    let tmp = env!("CARGO_TARGET_TMPDIR");
    // A mount a run that was killed left behind goes first.
    let left = std::path::Path::new(tmp).join("slow_disk/disk");
    let _ = Command::new("fusermount3").arg("-u").arg(&left).output();
    let work = test_support::scratch(tmp, "slow_disk");
    let mnt = work.join("disk");
    std::fs::create_dir_all(&mnt).unwrap();
    let slow = Arc::new(web::pattern(SLOW_SIZE));
    let fs = SlowFs { slow: slow.clone() };
    let mount = fuser::spawn_mount2(
        fs,
        &mnt,
        &[MountOption::RO, MountOption::FSName("slowdisk".into())],
    );
    let _mount = match mount {
        Ok(m) => m,
        Err(e) => {
            let ready = Err(format!("a FUSE file system cannot be mounted here: {e}"));
            assert!(!test_support::runnable(ready));
            return;
        }
    };
    assert_eq!(std::fs::read(mnt.join("fast.txt")).unwrap(), FAST_TEXT);

    let bundle = web::build_site_serving(&mnt, "slow_disk_build", "--debug");
    // Three workers: the loop's thread and two more for disk work and calls.
    let mut run = web::start(&bundle, &["--workers", "3"]);
    let base = run.base.clone();

    let done = Arc::new(AtomicBool::new(false));
    let download = {
        let (done, url) = (done.clone(), format!("{base}/slow.bin"));
        std::thread::spawn(move || {
            let out = Command::new("curl")
                .args(["-s", "-f", "--max-time", "120", &url])
                .output()
                .expect("curl runs");
            done.store(true, Ordering::SeqCst);
            out
        })
    };
    let served = AtomicU64::new(0);
    let began = SystemTime::now();
    while !done.load(Ordering::SeqCst) {
        let got = web::curl(&["--max-time", "30"], &format!("{base}/fast.txt"));
        assert_eq!(got.status, 200, "fast.txt while slow.bin is read");
        assert_eq!(got.body, FAST_TEXT);
        served.fetch_add(1, Ordering::Relaxed);
    }
    let out = download.join().unwrap();
    assert!(out.status.success(), "the download of slow.bin failed");
    assert!(out.stdout == *slow, "slow.bin came back changed");
    let served = served.load(Ordering::Relaxed);
    let parts = SLOW_SIZE / (256 << 10);
    eprintln!(
        "fast.txt served {served} times while slow.bin ({parts} parts) was read in {:?}",
        began.elapsed().unwrap_or_default()
    );
    // A request that waits for the part being read gets through at most
    // once a part (with the reads on the event loop: 1 to 3 times in all);
    // one served beside the reads, a hundred times and more.
    assert!(
        served >= 2 * parts,
        "fast.txt was served only {served} times during the download of {parts} parts: the slow disk stalled it"
    );
    assert!(run.alive(), "the runtime stopped");

    // A fast request first: the disk is not taken for slow any more, so
    // the next read is waited for on the loop's thread.
    assert_eq!(web::curl(&[], &format!("{base}/fast.txt")).status, 200);
    let stuck = {
        let url = format!("{base}/stuck.txt");
        std::thread::spawn(move || web::curl(&["--max-time", "30"], &url))
    };
    let said = run.wait_err("warning: the runtime has waited 2 s on the disk of `public` (Files)");
    assert!(
        said.contains("which has not answered: nothing else is served until it is over"),
        "{said}"
    );
    let said = run.wait_err("the disk answered after ");
    assert!(said.contains("s: the runtime serves again"), "{said}");
    let got = stuck.join().unwrap();
    assert_eq!(got.status, 200);
    assert_eq!(got.body, STUCK_TEXT);
    assert_eq!(web::curl(&[], &format!("{base}/fast.txt")).body, FAST_TEXT);
    let (code, err) = run.interrupt();
    assert_eq!(code, 0, "{err}");
}
