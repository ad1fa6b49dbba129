//! An instance's view: each mount and bind of the image is a link from its
//! `at` to a place in a served tree, resolved once; a path resolves through
//! the link with the longest `at` that is a prefix of it (of equal ones,
//! the last written), and the rest of the path follows. A bind links to
//! where its source leads in the view without the bind itself. Read-only
//! accumulates along the way: a link through a read-only one is read-only.

use super::MAX_DEPTH;
use super::path::longest;
use super::tree::{Target, Tree, TreeMiss};
use crate::model::{ImageId, Seg, WireKind};

/// Which line made a way read-only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadonlyBy {
    /// Wire `.2` of instance `.1` of image `.0`.
    Wire(ImageId, usize, usize),
    /// Export `.1` of image `.0`.
    Export(ImageId, usize),
}

/// Where a link (or a path through it) leads.
#[derive(Clone, Debug, PartialEq)]
pub struct Reached {
    pub target: Target,
    /// The path in the target's served tree.
    pub path: Vec<Seg>,
    /// The read-only lines on the way, first to last; empty: writable.
    pub readonly: Vec<ReadonlyBy>,
    /// The instance's wires followed, first to last.
    pub wires: Vec<usize>,
}

/// Why a wire leads nowhere.
#[derive(Clone, Debug, PartialEq)]
pub enum LinkError {
    /// A mount's source names nothing in the image tree.
    Tree(TreeMiss),
    /// A mount's source is in the tree, but nothing is served at or under it.
    NothingServed(Target, Vec<Seg>),
    /// A bind's source is not in the instance's view.
    NotInView,
    /// It goes through a wire that is broken (reported there).
    Broken,
    /// Binds that lead to each other: these wires, in order.
    Cycle(Vec<usize>),
    /// More than [`MAX_DEPTH`] binds deep.
    TooDeep,
}

enum State {
    New,
    InProgress,
    Done(Result<Reached, LinkError>),
}

/// Resolves every wire of instance `ii` of image `img`, in order.
pub fn resolve_wires(tree: &Tree, img: ImageId, ii: usize) -> Vec<Result<Reached, LinkError>> {
    let n = tree.model.image(img).instances[ii].wiring.len();
    let mut state: Vec<State> = (0..n).map(|_| State::New).collect();
    let mut stack = Vec::new();
    for wi in 0..n {
        let _ = wire(tree, img, ii, wi, &mut state, &mut stack);
    }
    state
        .into_iter()
        .map(|s| match s {
            State::Done(r) => r,
            _ => Err(LinkError::Broken),
        })
        .collect()
}

fn wire(
    tree: &Tree,
    img: ImageId,
    ii: usize,
    wi: usize,
    state: &mut [State],
    stack: &mut Vec<usize>,
) -> Result<Reached, LinkError> {
    match &state[wi] {
        State::Done(r) => return r.clone(),
        State::InProgress => {
            let from = stack.iter().position(|w| *w == wi).unwrap_or(0);
            return Err(LinkError::Cycle(stack[from..].to_vec()));
        }
        State::New => {}
    }
    if stack.len() >= MAX_DEPTH {
        return Err(LinkError::TooDeep);
    }
    state[wi] = State::InProgress;
    stack.push(wi);
    let inst = &tree.model.image(img).instances[ii];
    let w = &inst.wiring[wi];
    let own_readonly: Vec<ReadonlyBy> = if w.link.readonly {
        vec![ReadonlyBy::Wire(img, ii, wi)]
    } else {
        Vec::new()
    };
    let result = match w.kind {
        WireKind::Mount => match tree.resolve(img, &w.link.from.segs) {
            Err(miss) => Err(LinkError::Tree(miss)),
            Ok((target, path)) => match tree.anything_under(target, &path, 0) {
                Err(_) => Err(LinkError::TooDeep),
                Ok(false) => Err(LinkError::NothingServed(target, path)),
                Ok(true) => Ok(Reached {
                    target,
                    path,
                    readonly: own_readonly,
                    wires: vec![wi],
                }),
            },
        },
        WireKind::Bind => {
            let others = inst
                .wiring
                .iter()
                .enumerate()
                .filter(|(k, _)| *k != wi)
                .map(|(k, x)| (x.link.at.segs.as_slice(), k));
            match longest(others, &w.link.from.segs) {
                None => Err(LinkError::NotInView),
                Some((k, rest)) => match wire(tree, img, ii, k, state, stack) {
                    Ok(mut r) => {
                        r.path.extend_from_slice(rest);
                        let mut readonly = own_readonly;
                        readonly.append(&mut r.readonly);
                        r.readonly = readonly;
                        r.wires.insert(0, wi);
                        Ok(r)
                    }
                    Err(LinkError::Cycle(c)) if c.contains(&wi) => Err(LinkError::Cycle(c)),
                    Err(LinkError::TooDeep) if stack.len() == MAX_DEPTH => Err(LinkError::TooDeep),
                    Err(_) => Err(LinkError::Broken),
                },
            }
        }
    };
    stack.pop();
    state[wi] = State::Done(result.clone());
    result
}

/// What a path in an instance's view leads to, given its wires' links.
#[derive(Debug)]
pub enum ViewMiss {
    /// Nothing is mounted there.
    Nothing,
    /// The link that would take it is broken (reported on its own).
    Broken,
}

/// Resolves `path` in the view of instance `ii` of image `img`, through
/// the links its wires were resolved to (`wires`, as [`resolve_wires`]
/// made them for every image).
pub fn view(
    tree: &Tree,
    wires: &super::Wires,
    img: ImageId,
    ii: usize,
    path: &[Seg],
) -> Result<Reached, ViewMiss> {
    let ats = tree.model.image(img).instances[ii]
        .wiring
        .iter()
        .enumerate()
        .map(|(i, w)| (w.link.at.segs.as_slice(), i));
    let (wi, rest) = longest(ats, path).ok_or(ViewMiss::Nothing)?;
    match &wires[img][ii][wi] {
        Ok(r) => {
            let mut r = r.clone();
            r.path.extend_from_slice(rest);
            Ok(r)
        }
        Err(_) => Err(ViewMiss::Broken),
    }
}
