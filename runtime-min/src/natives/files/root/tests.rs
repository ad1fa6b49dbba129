//! A read's one-call open (`open_plain`) must find exactly what the
//! lookup's way (`find_below`, then `open_found`) finds, and give way to
//! it wherever a link is on the path.

use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::atomic::Ordering;

use super::Root;
use crate::natives::files::meta::{Kind, Meta};

/// What opening `below` to read came to: the kind and length opened, or
/// the error's kind; `None` when the path was left to the lookup's way.
fn plain(root: &Root, below: &str) -> Option<Result<(Kind, u64), std::io::ErrorKind>> {
    root.open_plain(Path::new(below)).map(|r| {
        r.map(|(_, s)| (Meta::from(&s).kind, Meta::from(&s).len))
            .map_err(|e| e.kind())
    })
}

/// The same, the lookup's way.
fn looked_up(root: &Root, below: &str) -> Result<(Kind, u64), String> {
    let found = root
        .find_below(Path::new(below), below)
        .map_err(|e| format!("{e:?}"))?;
    if found.meta.kind != Kind::File {
        return Ok((found.meta.kind, 0));
    }
    let f = root.open_found(&found, false).map_err(|e| e.to_string())?;
    let m = f.metadata().map_err(|e| e.to_string())?;
    Ok((found.meta.kind, m.len()))
}

fn tree(name: &str) -> std::path::PathBuf {
    let at = std::env::temp_dir().join(format!("othismo-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&at);
    let dir = at.join("dir");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("a.txt"), "alpha").unwrap();
    std::fs::write(dir.join("sub/b.txt"), "beta").unwrap();
    std::fs::write(at.join("secret.txt"), "secret").unwrap();
    symlink("a.txt", dir.join("in")).unwrap();
    symlink("sub", dir.join("insub")).unwrap();
    symlink("../secret.txt", dir.join("out")).unwrap();
    let fifo = rustix::fs::mknodat(
        rustix::fs::CWD,
        dir.join("pipe"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    );
    fifo.unwrap();
    dir
}

#[test]
fn plain_paths_open_as_the_lookup_finds_them() {
    let dir = tree("open_plain_same");
    let root = Root::open(dir.to_str().unwrap()).unwrap_or_else(|_| panic!("root"));
    for (below, len) in [("a.txt", 5), ("sub/b.txt", 4)] {
        assert_eq!(plain(&root, below), Some(Ok((Kind::File, len))), "{below}");
        assert_eq!(looked_up(&root, below), Ok((Kind::File, len)), "{below}");
    }
    // Opened, then refused by its kind, as the lookup's way refuses it.
    assert!(matches!(
        plain(&root, "sub"),
        Some(Ok((Kind::Directory, _)))
    ));
    assert!(matches!(looked_up(&root, "sub"), Ok((Kind::Directory, _))));
    assert!(matches!(plain(&root, "pipe"), Some(Ok((Kind::Other, _)))));
    assert!(matches!(looked_up(&root, "pipe"), Ok((Kind::Other, _))));
    // Errors of the same kind as the lookup's.
    use std::io::ErrorKind::{NotADirectory, NotFound};
    assert_eq!(plain(&root, "missing"), Some(Err(NotFound)));
    assert_eq!(plain(&root, "missing/x"), Some(Err(NotFound)));
    assert_eq!(plain(&root, "a.txt/x"), Some(Err(NotADirectory)));
    for below in ["missing", "missing/x", "a.txt/x"] {
        assert!(looked_up(&root, below).is_err(), "{below}");
    }
    clean(&dir);
}

#[test]
fn a_link_anywhere_on_the_path_is_left_to_the_lookup() {
    let dir = tree("open_plain_links");
    let root = Root::open(dir.to_str().unwrap()).unwrap_or_else(|_| panic!("root"));
    // At the end, in the middle, and one leading out: never opened here.
    for below in ["in", "insub/b.txt", "out"] {
        assert_eq!(plain(&root, below), None, "{below}");
    }
    assert_eq!(looked_up(&root, "in"), Ok((Kind::File, 5)));
    assert_eq!(looked_up(&root, "insub/b.txt"), Ok((Kind::File, 4)));
    assert!(looked_up(&root, "out").is_err(), "a link out is refused");
    // The root itself is the lookup's too.
    assert_eq!(plain(&root, ""), None);
    clean(&dir);
}

#[test]
fn without_openat2_every_read_takes_the_lookup() {
    let dir = tree("open_plain_none");
    let root = Root::open(dir.to_str().unwrap()).unwrap_or_else(|_| panic!("root"));
    root.no_openat2.store(true, Ordering::Relaxed);
    assert_eq!(plain(&root, "a.txt"), None);
    clean(&dir);
}

fn clean(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
}
