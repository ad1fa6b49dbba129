//! An instance's view and its exposures: links from a path it names to a
//! path in another instance's served tree. The image builds them (mounts,
//! binds); the instance rearranges its own with `bind`, `unmount` and
//! `expose` (book: reference/wire.md), only ever with what it can
//! already see. Links resolve by the namespace's one rule
//! (`othc::namespace::path::longest`), as the checker's do.

use std::collections::HashMap;
use std::sync::Arc;

use othc::model::Seg;
use othc::namespace::path::longest;
use othc::namespace::path::parse_request;

use crate::ActorId;
use crate::abi::{Errno, READONLY, errno};

/// `at` (in the instance's view, or its served tree for an exposure) leads
/// to `path` in the served tree of instance `target`.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    pub at: Vec<Seg>,
    pub target: ActorId,
    pub path: Vec<Seg>,
    pub readonly: bool,
}

/// The link a bundle's view line describes, its target by name in
/// `index`.
pub(crate) fn parse_link(
    l: &othc::bundle::LinkJson,
    index: &HashMap<&str, ActorId>,
) -> Result<Link, crate::LoadError> {
    let target = *index.get(l.target.as_str()).ok_or_else(|| {
        crate::LoadError::Image(format!("a view names `{}`, which is no instance", l.target))
    })?;
    let (Some(at), Some(path)) = (parse_request(&l.at), parse_request(&l.path)) else {
        return Err(crate::LoadError::Image(format!(
            "a view links `{}` to `{}`: not a path",
            l.at, l.path
        )));
    };
    Ok(Link {
        at,
        target,
        path,
        readonly: l.readonly,
    })
}

/// Where a path leads: (target, path there, read-only on the way). The
/// path is shared: a request's aim is kept (see `View`) and handed on
/// without copying its segments.
pub type Resolved = (ActorId, Arc<[Seg]>, bool);

/// Where a request's path leads, worked out when the request is made (a
/// later `unmount` in the same call does not change it).
#[derive(Clone, Debug, PartialEq)]
pub struct Aim {
    /// The path as the instance wrote it.
    pub path: Arc<str>,
    /// Its segments; `None` when it is malformed.
    pub segs: Option<Arc<[Seg]>>,
    /// Where it led in the view then; `None` when nothing is mounted there.
    pub dest: Option<Resolved>,
}

impl Aim {
    pub fn new(links: &[Link], path: &str) -> Aim {
        let segs = parse_request(path).map(Arc::<[Seg]>::from);
        let dest = segs.as_ref().and_then(|s| resolve(links, s));
        Aim {
            path: path.into(),
            segs,
            dest,
        }
    }
}

/// How many aims a view keeps. An instance names the same few paths over
/// and over; one naming ever new ones only empties the store now and then.
const AIMS_KEPT: usize = 64;

/// The longest path whose aim is kept: what a view holds for its instance
/// stays small (64 aims of at most 256 bytes) whatever paths it sends;
/// a longer path is aimed on each request, as every path once was.
const KEPT_PATH_BYTES: usize = 256;

/// An instance's view: its links, and the aims of the paths it has sent
/// requests to since the links last changed. A request's path is parsed
/// and resolved once, not on every request: each change of the links (the
/// only way to them is through `View`'s methods) forgets the aims.
#[derive(Debug, Default)]
pub struct View {
    links: Vec<Link>,
    /// By the path's bytes: a kept path was UTF-8 when it was aimed, so a
    /// path found here needs no checking again.
    aims: HashMap<Box<[u8]>, Aim, foldhash::fast::RandomState>,
}

impl View {
    pub fn new(links: Vec<Link>) -> View {
        View {
            links,
            aims: HashMap::default(),
        }
    }

    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// Where `path` leads now.
    pub fn aim(&mut self, path: &str) -> Aim {
        match self.aims.get(path.as_bytes()) {
            Some(aim) => aim.clone(),
            None => self.aim_anew(path),
        }
    }

    /// Where the path written as `bytes` leads now; `None` when they are
    /// not UTF-8. A path sent before is found by its bytes.
    pub fn aim_bytes(&mut self, bytes: &[u8]) -> Option<Aim> {
        match self.aims.get(bytes) {
            Some(aim) => Some(aim.clone()),
            None => std::str::from_utf8(bytes)
                .ok()
                .map(|path| self.aim_anew(path)),
        }
    }

    /// `path` aimed (it is not kept yet), and kept if it is short enough.
    fn aim_anew(&mut self, path: &str) -> Aim {
        let aim = Aim::new(&self.links, path);
        if path.len() > KEPT_PATH_BYTES {
            return aim;
        }
        if self.aims.len() >= AIMS_KEPT {
            self.aims.clear();
        }
        self.aims.insert(path.as_bytes().into(), aim.clone());
        aim
    }

    /// `bind`, below; the aims kept are forgotten.
    pub fn bind(&mut self, new: &str, old: &str, flags: i32) -> Result<(), Errno> {
        self.aims.clear();
        bind(&mut self.links, new, old, flags)
    }

    /// `unmount`, below; the aims kept are forgotten.
    pub fn unmount(&mut self, path: &str) -> Result<(), Errno> {
        self.aims.clear();
        unmount(&mut self.links, path)
    }
}

/// The longest link whose `at` is a prefix of `segs`, and where it leads.
pub fn resolve(links: &[Link], segs: &[Seg]) -> Option<Resolved> {
    longest(links.iter().map(|l| (l.at.as_slice(), l)), segs).map(|(l, rest)| {
        let path: Arc<[Seg]> = l.path.iter().chain(rest).cloned().collect();
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
fn link_to(view: &[Link], at: &str, from: &str, flags: i32) -> Result<Link, Errno> {
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
        path: path.to_vec(),
        readonly: ro || flags & READONLY != 0,
    })
}

/// `bind(new, old, flags)`: what `old` leads to, seen at `new` too.
fn bind(view: &mut Vec<Link>, new: &str, old: &str, flags: i32) -> Result<(), Errno> {
    put(view, link_to(view, new, old, flags)?);
    Ok(())
}

/// `unmount(path)`: the links at exactly `path` go.
fn unmount(view: &mut Vec<Link>, path: &str) -> Result<(), Errno> {
    let at = parse_request(path).ok_or(errno::INVALID)?;
    let before = view.len();
    view.retain(|l| l.at != at);
    if view.len() == before {
        return Err(errno::NOT_FOUND);
    }
    Ok(())
}

/// `expose(at, view_path, flags)`: requests for `at` in the instance's
/// served tree go where `view_path` leads in its view.
pub fn expose(
    view: &[Link],
    exposed: &mut Vec<Link>,
    at: &str,
    from: &str,
    flags: i32,
) -> Result<(), Errno> {
    put(exposed, link_to(view, at, from, flags)?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segs(p: &str) -> Vec<Seg> {
        parse_request(p).unwrap()
    }

    fn link(at: &str, target: usize, path: &str, readonly: bool) -> Link {
        let target = ActorId::at(target);
        Link {
            at: segs(at),
            target,
            path: segs(path),
            readonly,
        }
    }

    fn led(target: usize, path: &str, readonly: bool) -> Option<Resolved> {
        Some((ActorId::at(target), segs(path).into(), readonly))
    }

    #[test]
    fn a_views_aims_follow_its_links() {
        let mut v = View::new(vec![link("/a", 1, "/x", false)]);
        let first = v.aim("/a/b");
        assert_eq!(first.dest, led(1, "/x/b", false));
        assert_eq!(v.aim("/a/b"), first, "kept, the same");
        // Each change of the links is seen by the next aim.
        assert_eq!(v.bind("/a/b", "/a/c", READONLY), Ok(()));
        assert_eq!(v.aim("/a/b").dest, led(1, "/x/c", true));
        assert_eq!(v.unmount("/a/b"), Ok(()));
        assert_eq!(v.aim("/a/b").dest, led(1, "/x/b", false));
        assert_eq!(v.unmount("/a"), Ok(()));
        assert_eq!(v.aim("/a/b").dest, None);
        // A malformed path is kept as one, with its text.
        let bad = v.aim("a//b");
        assert_eq!((bad.segs, &*bad.path), (None, "a//b"));
        // More paths than are kept: each still aimed where it leads.
        let mut v = View::new(vec![link("/", 2, "/", false)]);
        for round in 0..2 {
            for i in 0..AIMS_KEPT * 3 {
                let aim = v.aim(&format!("/p{i}"));
                assert_eq!(aim.dest, led(2, &format!("/p{i}"), false), "round {round}");
            }
        }
        assert!(v.aims.len() <= AIMS_KEPT);
        // A long path is aimed, not kept.
        v.aims.clear();
        let long = format!("/{}", "x".repeat(KEPT_PATH_BYTES));
        assert_eq!(v.aim(&long).dest, led(2, &long, false));
        assert!(v.aims.is_empty());
    }

    #[test]
    fn aims_are_found_by_their_bytes() {
        let mut v = View::new(vec![link("/a", 1, "/x", false)]);
        let by_text = v.aim("/a/b");
        assert_eq!(v.aim_bytes(b"/a/b"), Some(by_text.clone()), "the kept aim");
        assert_eq!(v.aims.len(), 1);
        // A path first sent as bytes is checked, aimed and kept.
        let c = v.aim_bytes(b"/a/c").expect("UTF-8");
        assert_eq!(c.dest, led(1, "/x/c", false));
        assert_eq!(v.aim("/a/c"), c);
        // Bytes that are not UTF-8 are no path, and nothing is kept for them.
        assert_eq!(v.aim_bytes(b"/a/\xff"), None);
        assert_eq!(v.aims.len(), 2);
        // After a change of the links, bytes find the new aim too.
        assert_eq!(v.bind("/a/b", "/a/c", 0), Ok(()));
        assert_eq!(
            v.aim_bytes(b"/a/b").map(|a| a.dest),
            Some(led(1, "/x/c", false))
        );
        assert_ne!(v.aim_bytes(b"/a/b"), Some(by_text));
    }

    #[test]
    fn the_longest_prefix_wins() {
        let v = vec![link("/a", 1, "/x", false), link("/a/b", 2, "/", true)];
        assert_eq!(resolve(&v, &segs("/a/c")), led(1, "/x/c", false));
        assert_eq!(resolve(&v, &segs("/a/b/c")), led(2, "/c", true));
        assert_eq!(resolve(&v, &segs("/b")), None);
    }

    #[test]
    fn bind_sees_only_what_is_there_and_read_only_accumulates() {
        let mut v = vec![link("/a", 1, "/x", true)];
        assert_eq!(bind(&mut v, "/c", "/nothing", 0), Err(errno::NOT_FOUND));
        assert_eq!(bind(&mut v, "c", "/a", 0), Err(errno::INVALID));
        assert_eq!(bind(&mut v, "/c", "/a", 4), Err(errno::INVALID));
        assert_eq!(bind(&mut v, "/c", "/a/y", 0), Ok(()));
        // Read-only along the chain: the bind does not lift it.
        assert_eq!(resolve(&v, &segs("/c")), led(1, "/x/y", true));
        assert_eq!(unmount(&mut v, "/c"), Ok(()));
        assert_eq!(unmount(&mut v, "/c"), Err(errno::NOT_FOUND));
        assert_eq!(resolve(&v, &segs("/c")), None);
        let mut e = Vec::new();
        assert_eq!(expose(&v, &mut e, "/pub", "/a", READONLY), Ok(()));
        assert_eq!(resolve(&e, &segs("/pub/z")), led(1, "/x/z", true));
    }
}
