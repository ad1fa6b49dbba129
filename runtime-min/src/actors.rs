//! The instances of a run, each named by an `ActorId`: its place in the
//! run's list, fixed from load to the end (a restarted instance keeps its
//! place). Every map, message and parameter that names an instance holds
//! an `ActorId`, never a bare number, so an instance is never mistaken for
//! a ticket, a request id or a count.

use std::ops::{Index, IndexMut};

/// An instance of the image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ActorId(usize);

impl ActorId {
    /// The instance at place `i` of the image's list (`image.json`'s
    /// order).
    pub(crate) const fn at(i: usize) -> ActorId {
        ActorId(i)
    }

    /// Its place in the image's list.
    pub(crate) fn index(self) -> usize {
        self.0
    }
}

impl std::fmt::Display for ActorId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// Every instance of a run, by `ActorId`.
pub(crate) struct Actors<A>(Vec<A>);

impl<A> Actors<A> {
    pub(crate) fn new(all: Vec<A>) -> Actors<A> {
        Actors(all)
    }

    /// The instance at place `i`, if there is one (a number read from
    /// outside: another node's message).
    pub(crate) fn id_at(&self, i: usize) -> Option<ActorId> {
        (i < self.0.len()).then_some(ActorId(i))
    }

    /// Every instance's id, in order.
    pub(crate) fn ids(&self) -> impl Iterator<Item = ActorId> + use<A> {
        (0..self.0.len()).map(ActorId)
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &A> {
        self.0.iter()
    }

    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = &mut A> {
        self.0.iter_mut()
    }

    /// Every instance with its id.
    pub(crate) fn with_ids(&self) -> impl Iterator<Item = (ActorId, &A)> {
        self.0.iter().enumerate().map(|(i, a)| (ActorId(i), a))
    }

    /// Every instance with its id, to change.
    pub(crate) fn with_ids_mut(&mut self) -> impl Iterator<Item = (ActorId, &mut A)> {
        self.0.iter_mut().enumerate().map(|(i, a)| (ActorId(i), a))
    }
}

impl<A> Index<ActorId> for Actors<A> {
    type Output = A;

    fn index(&self, a: ActorId) -> &A {
        &self.0[a.0]
    }
}

impl<A> IndexMut<ActorId> for Actors<A> {
    fn index_mut(&mut self, a: ActorId) -> &mut A {
        &mut self.0[a.0]
    }
}
