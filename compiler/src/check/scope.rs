//! Names in scope in each file: what it declares, and what it imports.
//!
//! Codes: E0204 (a name declared or imported twice in one file).

use foldhash::HashMap as FastMap;
use std::cell::{Cell, RefCell};

use crate::diagnostics::Diagnostics;
use crate::diagnostics::suggest::Candidates;
use crate::model::DeclKind;
use crate::model::{ImageId, ObjectId, TypeId};
use crate::name_errors::NameError;
use crate::source::FileSpan;

/// What a name stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Sym {
    /// A message type (`enum_ == false`) or an enum.
    Type(TypeId, bool),
    Object(ObjectId),
    Image(ImageId),
}

impl Sym {
    pub fn kind(self) -> DeclKind {
        match self {
            Sym::Type(_, false) => DeclKind::Message,
            Sym::Type(_, true) => DeclKind::Enum,
            Sym::Object(_) => DeclKind::Object,
            Sym::Image(_) => DeclKind::Image,
        }
    }
}

pub struct Binding {
    pub sym: Sym,
    /// Where the name is introduced: the declaration, or the import's name.
    pub at: FileSpan,
    /// The import that brought it in, if any (for W0001).
    pub imported: bool,
    pub used: Cell<bool>,
}

/// A name written where a declaration is meant, and what it resolved to.
/// Every lookup with a place records one: the language server's
/// definitions, references and renames read these, so a name resolves in
/// one place only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NameUse {
    pub at: FileSpan,
    pub sym: Sym,
}

/// What a file's scope resolved, moved out when the check ends.
pub struct FileNames {
    pub uses: Vec<NameUse>,
    pub members: Vec<MemberUse>,
    pub in_scope: Vec<(String, Sym)>,
}

/// Text that names a member of a type (a field name or an enum value in a
/// literal), as the literal's check resolved it: `member` is the field's or
/// value's position in the type. `at` is the written text, quotes included
/// when it is a string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemberUse {
    pub at: FileSpan,
    pub ty: TypeId,
    pub member: usize,
}

#[derive(Default)]
pub struct Scope {
    names: FastMap<String, Binding>,
    /// Every name this file resolved, in the order it was looked up.
    uses: RefCell<Vec<NameUse>>,
    /// Every member a literal of this file named.
    members: RefCell<Vec<MemberUse>>,
    /// The type names, sorted, once asked for (cleared by `bind`).
    type_names: std::cell::OnceCell<Candidates>,
}

impl Scope {
    /// Makes room for `n` more names at once (a large schema block binds
    /// tens of thousands: no growing, and rehashing, on the way).
    pub fn reserve(&mut self, n: usize) {
        self.names.reserve(n);
    }

    /// Adds a name; a second binding of one name is E0204 and is dropped.
    pub fn bind(
        &mut self,
        name: &str,
        sym: Sym,
        at: FileSpan,
        imported: bool,
        diags: &mut Diagnostics,
    ) {
        // One probe of the map per name (a large block binds tens of
        // thousands): the key is made before knowing it is new, which only
        // a name declared twice wastes.
        match self.names.entry(name.to_string()) {
            std::collections::hash_map::Entry::Occupied(prev) => {
                let prev = prev.get();
                diags.report(NameError::DefinedTwice {
                    name: name.to_string(),
                    at,
                    first: prev.at,
                    imported,
                    first_imported: prev.imported,
                });
            }
            std::collections::hash_map::Entry::Vacant(slot) => {
                self.type_names = Default::default();
                slot.insert(Binding {
                    sym,
                    at,
                    imported,
                    used: Cell::new(false),
                });
            }
        }
    }

    /// What the file itself declares as `name` (not an import), without
    /// marking it used: what an import of the file can name.
    pub fn declared(&self, name: &str) -> Option<Sym> {
        let b = self.names.get(name)?;
        (!b.imported).then_some(b.sym)
    }

    /// Looks up the name written at `at`, marks it used and records where.
    pub fn get(&self, name: &str, at: FileSpan) -> Option<Sym> {
        self.names.get(name).map(|b| {
            b.used.set(true);
            self.record(at, b.sym);
            b.sym
        })
    }

    /// Records a place that names `sym` without a lookup (an import's name,
    /// which the importing file's scope binds but does not look up).
    pub fn record(&self, at: FileSpan, sym: Sym) {
        self.uses.borrow_mut().push(NameUse { at, sym });
    }

    /// Records a member a literal names.
    pub fn record_member(&self, m: MemberUse) {
        self.members.borrow_mut().push(m);
    }

    /// Every name the file resolved, every member its literals named, and
    /// every name in scope with what it stands for, moved out.
    pub fn into_names(self) -> FileNames {
        FileNames {
            uses: self.uses.into_inner(),
            members: self.members.into_inner(),
            in_scope: self.names.into_iter().map(|(n, b)| (n, b.sym)).collect(),
        }
    }

    /// Names of the kinds `want` accepts, for "did you mean" help.
    pub fn names_of(&self, want: impl Fn(Sym) -> bool) -> Vec<&str> {
        let mut v: Vec<&str> = self
            .names
            .iter()
            .filter(|(_, b)| want(b.sym))
            .map(|(n, _)| n.as_str())
            .collect();
        v.sort_unstable();
        v
    }

    /// The names of message types and enums, for "did you mean" help:
    /// made once, shared by every unknown type name in the file.
    pub fn type_names(&self) -> Candidates {
        self.type_names
            .get_or_init(|| {
                self.names_of(|s| matches!(s, Sym::Type(..)))
                    .into_iter()
                    .map(str::to_string)
                    .collect()
            })
            .clone()
    }

    pub fn bindings(&self) -> impl Iterator<Item = (&String, &Binding)> {
        self.names.iter()
    }
}
