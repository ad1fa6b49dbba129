//! An instance's view and its exposures: links from a path it names to a
//! path in another instance's served tree. The image builds them (mounts,
//! binds); the instance rearranges its own with `bind`, `unmount` and
//! `expose` (book: reference/wire.md), only ever with what it can
//! already see. Links resolve by the namespace's one rule
//! (`othc::namespace::view::longest`), as the checker's do.

use othc::model::Seg;
use othc::namespace::path::parse_request;
use othc::namespace::view::longest;

use crate::abi::{READONLY, errno};

/// `at` (in the instance's view, or its served tree for an exposure) leads
/// to `path` in the served tree of instance `target`.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    pub at: Vec<Seg>,
    pub target: usize,
    pub path: Vec<Seg>,
    pub readonly: bool,
}

/// Where a path leads: (target, path there, read-only on the way).
pub type Resolved = (usize, Vec<Seg>, bool);

/// Where a request's path leads, worked out when the request is made (a
/// later `unmount` in the same call does not change it).
#[derive(Clone, Debug, PartialEq)]
pub struct Aim {
    /// The path as the instance wrote it.
    pub path: String,
    /// Its segments; `None` when it is malformed.
    pub segs: Option<Vec<Seg>>,
    /// Where it led in the view then; `None` when nothing is mounted there.
    pub dest: Option<Resolved>,
}

impl Aim {
    pub fn new(links: &[Link], path: String) -> Aim {
        let segs = parse_request(&path);
        let dest = segs.as_ref().and_then(|s| resolve(links, s));
        Aim { path, segs, dest }
    }
}

/// The longest link whose `at` is a prefix of `segs`, and where it leads.
pub fn resolve(links: &[Link], segs: &[Seg]) -> Option<Resolved> {
    longest(links.iter().map(|l| (l.at.as_slice(), l)), segs).map(|(l, rest)| {
        let mut path = Vec::with_capacity(l.path.len() + rest.len());
        path.extend_from_slice(&l.path);
        path.extend_from_slice(rest);
        (l.target, path, l.readonly)
    })
}

/// Adds a link, replacing one at the same place.
fn put(links: &mut Vec<Link>, link: Link) {
    links.retain(|l| l.at != link.at);
    links.push(link);
}

/// A link at `at` to where `from` leads in `view`, read-only if the way
/// there is or `flags` says so; or the errno of why not.
fn link_to(view: &[Link], at: &str, from: &str, flags: i32) -> Result<Link, i32> {
    let (Some(at), Some(from)) = (parse_request(at), parse_request(from)) else {
        return Err(errno::INVALID);
    };
    if flags & !READONLY != 0 {
        return Err(errno::INVALID);
    }
    let (target, path, ro) = resolve(view, &from).ok_or(errno::NOT_FOUND)?;
    Ok(Link {
        at,
        target,
        path,
        readonly: ro || flags & READONLY != 0,
    })
}

/// `bind(new, old, flags)`: what `old` leads to, seen at `new` too. The
/// result is an errno.
pub fn bind(view: &mut Vec<Link>, new: &str, old: &str, flags: i32) -> i32 {
    match link_to(view, new, old, flags) {
        Ok(l) => {
            put(view, l);
            errno::OK
        }
        Err(e) => e,
    }
}

/// `unmount(path)`: the links at exactly `path` go.
pub fn unmount(view: &mut Vec<Link>, path: &str) -> i32 {
    let Some(at) = parse_request(path) else {
        return errno::INVALID;
    };
    let before = view.len();
    view.retain(|l| l.at != at);
    if view.len() == before {
        errno::NOT_FOUND
    } else {
        errno::OK
    }
}

/// `expose(at, view_path, flags)`: requests for `at` in the instance's
/// served tree go where `view_path` leads in its view.
pub fn expose(view: &[Link], exposed: &mut Vec<Link>, at: &str, from: &str, flags: i32) -> i32 {
    match link_to(view, at, from, flags) {
        Ok(l) => {
            put(exposed, l);
            errno::OK
        }
        Err(e) => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segs(p: &str) -> Vec<Seg> {
        parse_request(p).unwrap()
    }

    fn link(at: &str, target: usize, path: &str, readonly: bool) -> Link {
        Link {
            at: segs(at),
            target,
            path: segs(path),
            readonly,
        }
    }

    #[test]
    fn the_longest_prefix_wins() {
        let v = vec![link("/a", 1, "/x", false), link("/a/b", 2, "/", true)];
        assert_eq!(resolve(&v, &segs("/a/c")), Some((1, segs("/x/c"), false)));
        assert_eq!(resolve(&v, &segs("/a/b/c")), Some((2, segs("/c"), true)));
        assert_eq!(resolve(&v, &segs("/b")), None);
    }

    #[test]
    fn bind_sees_only_what_is_there_and_read_only_accumulates() {
        let mut v = vec![link("/a", 1, "/x", true)];
        assert_eq!(bind(&mut v, "/c", "/nothing", 0), errno::NOT_FOUND);
        assert_eq!(bind(&mut v, "c", "/a", 0), errno::INVALID);
        assert_eq!(bind(&mut v, "/c", "/a", 4), errno::INVALID);
        assert_eq!(bind(&mut v, "/c", "/a/y", 0), errno::OK);
        // Read-only along the chain: the bind does not lift it.
        assert_eq!(resolve(&v, &segs("/c")), Some((1, segs("/x/y"), true)));
        assert_eq!(unmount(&mut v, "/c"), errno::OK);
        assert_eq!(unmount(&mut v, "/c"), errno::NOT_FOUND);
        assert_eq!(resolve(&v, &segs("/c")), None);
        let mut e = Vec::new();
        assert_eq!(expose(&v, &mut e, "/pub", "/a", READONLY), errno::OK);
        assert_eq!(resolve(&e, &segs("/pub/z")), Some((1, segs("/x/z"), true)));
    }
}
