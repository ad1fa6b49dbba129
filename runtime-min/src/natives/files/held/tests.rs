//! A file kept open is read again only while its name still leads to it:
//! every change a fresh open would see (new content, a file renamed over
//! it, removal, a link or a directory in its place, a directory on the
//! way made a link that leads out) is seen the same after it was kept.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::time::Instant;

use othc::model::Seg;

use super::super::root::Root;
use super::super::{ENTRIES, Entry, Files, PART, Request};
use super::{FRESH, KEPT};
use crate::Payload;
use crate::abi::{Errno, Stat, errno};
use crate::natives::Reply;

fn tree(name: &str) -> (PathBuf, Root) {
    let at = std::env::temp_dir().join(format!("othismo-held-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&at);
    let dir = at.join("dir");
    std::fs::create_dir_all(dir.join("sub/deeper")).unwrap();
    std::fs::create_dir_all(at.join("elsewhere")).unwrap();
    std::fs::write(dir.join("a.txt"), "alpha").unwrap();
    std::fs::write(dir.join("sub/b.txt"), "beta").unwrap();
    std::fs::write(dir.join("sub/deeper/c.txt"), "gamma").unwrap();
    std::fs::write(at.join("secret.txt"), "secret").unwrap();
    std::fs::write(at.join("elsewhere/b.txt"), "not beta").unwrap();
    let root = Root::open(dir.to_str().unwrap()).unwrap_or_else(|_| panic!("root"));
    (dir, root)
}

/// What a read of `below` answers: the whole content, or the error number.
fn read(root: &mut Root, below: &str) -> Result<String, Errno> {
    read_limited(root, below, usize::MAX)
}

fn read_limited(root: &mut Root, below: &str, limit: usize) -> Result<String, Errno> {
    let replies = match Files::read(root, Path::new(below), limit, below, Instant::now()) {
        Ok(replies) => replies,
        Err(Reply::Error { errno, .. }) => return Err(errno),
        Err(_) => panic!("a read failed with an answer"),
    };
    let mut data = Vec::new();
    for reply in replies {
        match reply {
            Reply::Answer { payload, .. } => data.extend(payload.unwrap().data),
            Reply::Error { errno, .. } => return Err(errno),
            Reply::Paced(mut rest) => loop {
                match rest.next_part() {
                    Reply::Answer { done, payload } => {
                        data.extend(payload.unwrap().data);
                        if done {
                            break;
                        }
                    }
                    Reply::Error { errno, .. } => return Err(errno),
                    Reply::Paced(_) => panic!("a part is not a stream"),
                }
            },
        }
    }
    Ok(String::from_utf8(data).unwrap())
}

#[test]
fn a_file_read_again_is_the_one_kept() {
    let (_, mut root) = tree("again");
    assert_eq!(read(&mut root, "a.txt"), Ok("alpha".into()));
    assert_eq!(root.kept(), 1);
    assert_eq!(read(&mut root, "a.txt"), Ok("alpha".into()));
    assert_eq!(read(&mut root, "sub/b.txt"), Ok("beta".into()));
    assert_eq!(read(&mut root, "sub/b.txt"), Ok("beta".into()));
    assert_eq!(root.kept(), 2);
}

#[test]
fn what_changed_since_is_read_as_a_fresh_open_would() {
    let (dir, mut root) = tree("changed");
    let a = dir.join("a.txt");
    assert_eq!(read(&mut root, "a.txt"), Ok("alpha".into()));
    // Rewritten in place (the same inode), longer.
    std::fs::write(&a, "alpha, again").unwrap();
    assert_eq!(read(&mut root, "a.txt"), Ok("alpha, again".into()));
    // Rewritten in place, the same length: the content is read, not kept.
    std::fs::write(&a, "ALPHA, AGAIN").unwrap();
    assert_eq!(read(&mut root, "a.txt"), Ok("ALPHA, AGAIN".into()));
    // A new file renamed over it.
    std::fs::write(dir.join("new"), "renamed").unwrap();
    std::fs::rename(dir.join("new"), &a).unwrap();
    assert_eq!(read(&mut root, "a.txt"), Ok("renamed".into()));
    // Removed.
    std::fs::remove_file(&a).unwrap();
    assert_eq!(read(&mut root, "a.txt"), Err(errno::NOT_FOUND));
    assert_eq!(root.kept(), 0);
    // A link leading out in its place.
    std::fs::write(&a, "alpha").unwrap();
    assert_eq!(read(&mut root, "a.txt"), Ok("alpha".into()));
    std::fs::remove_file(&a).unwrap();
    symlink("../secret.txt", &a).unwrap();
    assert_eq!(read(&mut root, "a.txt"), Err(errno::FORBIDDEN));
    // A directory in its place.
    std::fs::remove_file(&a).unwrap();
    std::fs::create_dir(&a).unwrap();
    assert_eq!(read(&mut root, "a.txt"), Err(errno::INVALID));
    assert_eq!(root.kept(), 0);
}

#[test]
fn a_directory_on_the_way_made_a_link_is_followed_no_more() {
    let (dir, mut root) = tree("way");
    assert_eq!(read(&mut root, "sub/b.txt"), Ok("beta".into()));
    // The directory moved out of the root, the very file kept open with
    // it, and a link to it put in its place: the path now leads out.
    let away = dir.parent().unwrap().join("moved");
    std::fs::rename(dir.join("sub"), &away).unwrap();
    symlink(&away, dir.join("sub")).unwrap();
    assert_eq!(read(&mut root, "sub/b.txt"), Err(errno::FORBIDDEN));
    // A link inside the root is followed, as by a fresh open.
    std::fs::remove_file(dir.join("sub")).unwrap();
    std::fs::create_dir(dir.join("real")).unwrap();
    std::fs::write(dir.join("real/b.txt"), "beta, real").unwrap();
    symlink("real", dir.join("sub")).unwrap();
    assert_eq!(read(&mut root, "sub/b.txt"), Ok("beta, real".into()));
}

#[test]
fn deep_names_big_files_and_more_than_kept_are_not_held() {
    let (dir, mut root) = tree("bounds");
    assert_eq!(read(&mut root, "sub/deeper/c.txt"), Ok("gamma".into()));
    assert_eq!(root.kept(), 0, "three names deep");
    // More than one part: a stream, and not kept.
    assert_eq!(read_limited(&mut root, "a.txt", 2), Ok("alpha".into()));
    assert_eq!(root.kept(), 0, "bigger than a part");
    let big = "x".repeat(PART + 1);
    std::fs::write(dir.join("big"), &big).unwrap();
    assert_eq!(read(&mut root, "big").map(|s| s.len()), Ok(big.len()));
    assert_eq!(root.kept(), 0, "bigger than a part");
    // The one read most recently stays while others come and go.
    for i in 0..KEPT + 10 {
        std::fs::write(dir.join(format!("f{i}")), format!("file {i}")).unwrap();
        assert_eq!(read(&mut root, &format!("f{i}")), Ok(format!("file {i}")));
        assert_eq!(read(&mut root, "a.txt"), Ok("alpha".into()));
        assert!(root.kept() <= KEPT);
        assert!(root.holds(Path::new("a.txt")));
    }
    assert_eq!(root.kept(), KEPT);
}

#[test]
fn a_kept_file_grown_past_a_part_is_read_whole() {
    let (dir, mut root) = tree("grown");
    assert_eq!(read(&mut root, "a.txt"), Ok("alpha".into()));
    let big = "y".repeat(2 * PART + 7);
    std::fs::write(dir.join("a.txt"), &big).unwrap();
    assert_eq!(read(&mut root, "a.txt"), Ok(big));
}

/// What a stat of `below` at `now` finds: its length, or the error number.
fn stat_len(files: &mut Files, below: &str, now: Instant) -> Result<u64, Errno> {
    let replies = files.serve(request(entry(Entry::Stat), below, None, now));
    match replies.as_slice() {
        [
            Reply::Answer {
                payload: Some(p), ..
            },
        ] => Ok(Stat::decode(&p.data).unwrap().length),
        [Reply::Error { errno, .. }] => Err(*errno),
        _ => panic!("a stat answered otherwise"),
    }
}

/// Where `e` is among Files' serves entries.
fn entry(e: Entry) -> usize {
    ENTRIES.iter().position(|x| x.0 == e).unwrap()
}

fn request<'a>(at: usize, below: &str, payload: Option<&'a Payload>, now: Instant) -> Request<'a> {
    let path: &'static [Seg] = Box::leak(vec![Seg::Literal(below.into())].into_boxed_slice());
    Request {
        entry: at,
        path,
        payload,
        limit: usize::MAX,
        now,
    }
}

#[test]
fn a_stat_stands_for_the_reads_just_after_it_and_a_change_through_files_for_none() {
    let (dir, root) = tree("seen");
    let mut files = Files {
        root: Some(root),
        readonly: false,
        slow: false,
    };
    let read_at = |files: &mut Files, now: Instant| {
        let root = files.root.as_mut().unwrap();
        let replies = Files::read(root, Path::new("a.txt"), usize::MAX, "a.txt", now).unwrap();
        match replies.as_slice() {
            [
                Reply::Answer {
                    payload: Some(p), ..
                },
            ] => String::from_utf8(p.data.clone()).unwrap(),
            _ => panic!("a small file is one answer"),
        }
    };
    let t0 = Instant::now();
    assert_eq!(read_at(&mut files, t0), "alpha");
    // A stat finds the kept file; a new file is renamed over it after.
    assert_eq!(stat_len(&mut files, "a.txt", t0), Ok(5));
    std::fs::write(dir.join("new"), "renamed").unwrap();
    std::fs::rename(dir.join("new"), dir.join("a.txt")).unwrap();
    // Just after the stat: the file the stat found.
    assert_eq!(read_at(&mut files, t0), "alpha");
    assert_eq!(read_at(&mut files, t0 + FRESH / 2), "alpha");
    // Later: looked up again, the new file.
    assert_eq!(read_at(&mut files, t0 + FRESH), "renamed");
    // A stat, then the file rewritten in place through the same Files
    // object (same inode, another length): the read after it looks again.
    let t1 = t0 + FRESH * 3;
    assert_eq!(stat_len(&mut files, "a.txt", t1), Ok(7));
    let longer = Payload {
        content_type: "text/plain".into(),
        data: b"rewritten, longer".to_vec(),
    };
    let wrote = files.serve(request(entry(Entry::Write), "a.txt", Some(&longer), t1));
    assert!(matches!(
        wrote.as_slice(),
        [Reply::Answer { done: true, .. }]
    ));
    assert_eq!(read_at(&mut files, t1), "rewritten, longer");
    // A stat that finds another file than the kept one closes it.
    assert_eq!(read_at(&mut files, t1), "rewritten, longer");
    assert!(files.root.as_ref().unwrap().holds(Path::new("a.txt")));
    std::fs::write(dir.join("new"), "other").unwrap();
    std::fs::rename(dir.join("new"), dir.join("a.txt")).unwrap();
    let t2 = t1 + FRESH * 3;
    assert_eq!(stat_len(&mut files, "a.txt", t2), Ok(5));
    assert!(!files.root.as_ref().unwrap().holds(Path::new("a.txt")));
    assert_eq!(read_at(&mut files, t2), "other");
}
