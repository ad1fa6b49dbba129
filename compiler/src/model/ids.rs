//! The model's typed ids (an index into one of its arenas each), the
//! per-image table indexed by one, and what a top-level name declares.

use serde::{Deserialize, Serialize};

use super::{ImageDef, Model};

macro_rules! ids {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub struct $name(pub u32);
        impl $name {
            pub fn index(self) -> usize { self.0 as usize }
        }
    )*};
}

ids! {
    /// A file of the program (a `.oth` file, `othismo:env`, or a module's header).
    FileIx;
    /// A message type or an enum.
    TypeId;
    ObjectId;
    ImageId;
    /// A serves or needs entry of an object or an image.
    EntryId;
}

/// A table with one value per image of a model, indexed by [`ImageId`]
/// (what the checker finds out per image: where its wires lead, what its
/// exports and startup requests reach).
#[derive(Clone, Debug, PartialEq)]
pub struct PerImage<T>(Vec<T>);

impl<T> PerImage<T> {
    /// A value for each image of `model`, made by `make`.
    pub fn new(model: &Model, mut make: impl FnMut(ImageId, &ImageDef) -> T) -> PerImage<T> {
        PerImage(
            model
                .images
                .iter()
                .enumerate()
                .map(|(i, img)| make(ImageId(i as u32), img))
                .collect(),
        )
    }

    pub fn get(&self, id: ImageId) -> Option<&T> {
        self.0.get(id.index())
    }

    pub fn get_mut(&mut self, id: ImageId) -> Option<&mut T> {
        self.0.get_mut(id.index())
    }
}

impl<T> Default for PerImage<T> {
    fn default() -> PerImage<T> {
        PerImage(Vec::new())
    }
}

impl<T> std::ops::Index<ImageId> for PerImage<T> {
    type Output = T;
    fn index(&self, id: ImageId) -> &T {
        &self.0[id.index()]
    }
}

impl<T> std::ops::IndexMut<ImageId> for PerImage<T> {
    fn index_mut(&mut self, id: ImageId) -> &mut T {
        &mut self.0[id.index()]
    }
}

/// What a top-level name declares: what the resolver records, what the
/// formats say a schema block's types are (a message or an enum), and
/// what a name-of-the-wrong-kind error names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeclKind {
    Object,
    Image,
    Message,
    Enum,
}

impl DeclKind {
    pub fn describe(self) -> &'static str {
        match self {
            DeclKind::Object => "object",
            DeclKind::Image => "image",
            DeclKind::Message => "message type",
            DeclKind::Enum => "enum",
        }
    }
}
