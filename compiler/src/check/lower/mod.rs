//! From syntax trees to the model: every declaration gets an id, every name
//! is resolved through its file's scope.
//!
//! Codes: E0203 (unknown name), E0204 (via [`Scope::bind`]), E0206 (a name of
//! the wrong kind), E0208 (a content type with a format written bare), and
//! the format's own block rules (via [`SchemaBlock::lower`]).

mod entries;
mod images;

use oth_syntax::Span;
use oth_syntax::ast::{self, ImagePart, Item, ObjectMember};

use super::scope::{MemberUse, Scope, Sym};
use crate::diagnostics::Diagnostics;
use crate::formats::{Formats, TypeLookup, TypeNames};
use crate::model::*;
use crate::resolve::{Declares, DeclaringItem, FrontEnd};
use crate::source::{FileId, FileSpan};

/// What a startup request sends: `Some(None)` no payload, `Some(Some(t))` a
/// payload of type `t`, `None` a payload that did not check (reported).
pub type Sent = Option<Option<PayloadType>>;

/// The model, and what the later checks need to get back to the source.
pub struct Lowered {
    pub model: Model,
    pub spans: Spans,
    /// Per file (indexed like `model.files`).
    pub scopes: Vec<Scope>,
    /// Per image: the module and item index it came from.
    pub image_src: Vec<(FileIx, usize)>,
    /// Per image, per startup request: the type of what it sends
    /// (`Some(None)`: no payload; `None`: a payload that did not check),
    /// filled in by `check::payloads`.
    pub startup_types: Vec<Vec<Sent>>,
}

/// Lowers what `front` loaded. The schema blocks' members are moved into
/// the model (see [`crate::formats::SchemaBlock::lower`]), so a front end is
/// lowered once; everything else in it is only read.
pub fn lower(front: &mut FrontEnd, formats: &Formats, diags: &mut Diagnostics) -> Lowered {
    let mut l = Lowerer {
        front,
        formats,
        out: Lowered {
            model: Model::default(),
            spans: Spans::default(),
            scopes: Vec::new(),
            image_src: Vec::new(),
            startup_types: Vec::new(),
        },
        diags,
    };
    l.declare();
    l.import();
    let Lowerer { mut out, .. } = l;
    lower_types(front, &mut out, diags);
    let mut l = Lowerer {
        front,
        formats,
        out,
        diags,
    };
    l.lower_objects_and_images();
    l.out
}

/// Fills in the types `declare` made room for, block by block, moving each
/// block's members into the model.
fn lower_types(front: &mut FrontEnd, out: &mut Lowered, diags: &mut Diagnostics) {
    let mut next = 0usize;
    for (mi, m) in front.program.modules.iter_mut().enumerate() {
        for p in &mut m.schemas {
            let Some(parsed) = &mut p.parsed else {
                continue;
            };
            let names = ScopeNames {
                scope: &out.scopes[mi],
            };
            let lowered = parsed.block.lower(m.file, &names, diags);
            for t in lowered {
                let id = next;
                next += 1;
                let Some(def) = out.model.types.get_mut(id) else {
                    break;
                };
                def.kind = t.kind;
                def.doc = t.doc;
                out.spans.types[id].members = t.members;
            }
        }
    }
}

struct Lowerer<'a> {
    front: &'a FrontEnd,
    formats: &'a Formats,
    out: Lowered,
    diags: &'a mut Diagnostics,
}

fn fs(file: FileId, span: Span) -> FileSpan {
    FileSpan::new(file, span)
}

fn doc(d: &Option<ast::Doc>) -> Option<String> {
    d.as_ref().map(|d| d.text.clone())
}

impl Lowerer<'_> {
    /// Gives every declaration an id and binds it in its file's scope.
    fn declare(&mut self) {
        for (mi, m) in self.front.program.modules.iter().enumerate() {
            let file = m.file;
            self.out.model.files.push(FileDef {
                name: self.front.sources.get(file).name.clone(),
                origin: m.origin,
            });
            let fix = FileIx(mi as u32);
            let mut scope = Scope::default();
            for DeclaringItem {
                item: ii,
                exported,
                declares,
            } in m.declares()
            {
                match declares {
                    Declares::Types {
                        format,
                        types: declared,
                    } => {
                        // A large block declares tens of thousands of types:
                        // no doubling (and copying) of the arenas on the way.
                        self.out.model.types.reserve(declared.len());
                        self.out.spans.types.reserve(declared.len());
                        scope.reserve(declared.len());
                        for t in declared {
                            let id = TypeId(self.out.model.types.len() as u32);
                            let is_enum = t.kind == crate::model::DeclKind::Enum;
                            self.out.model.types.push(TypeDef {
                                name: t.name.to_string(),
                                file: fix,
                                format: format.into(),
                                exported,
                                doc: None,
                                kind: if is_enum {
                                    TypeKind::Enum { values: Vec::new() }
                                } else {
                                    TypeKind::Message { fields: Vec::new() }
                                },
                            });
                            self.out.spans.types.push(TypeSpans {
                                name: fs(file, t.span),
                                members: Vec::new(),
                            });
                            let sym = Sym::Type(id, is_enum);
                            scope.bind(t.name, sym, fs(file, t.span), false, self.diags);
                        }
                    }
                    Declares::Object(o) => {
                        let sym = Sym::Object(self.declare_object(fix, file, exported, o));
                        scope.bind(&o.name.name, sym, fs(file, o.name.span), false, self.diags);
                    }
                    Declares::Image(i) => {
                        let sym = Sym::Image(self.declare_image(fix, file, exported, i));
                        self.out.image_src.push((fix, ii));
                        scope.bind(&i.name.name, sym, fs(file, i.name.span), false, self.diags);
                    }
                }
            }
            self.out.scopes.push(scope);
        }
    }

    /// Object `o` of file `fix` (`file`), declared: its id, its parts to
    /// come.
    fn declare_object(
        &mut self,
        fix: FileIx,
        file: FileId,
        exported: bool,
        o: &ast::Object,
    ) -> ObjectId {
        let id = ObjectId(self.out.model.objects.len() as u32);
        self.out.model.objects.push(ObjectDef {
            name: o.name.name.clone(),
            file: fix,
            exported,
            native: o.native.is_some(),
            doc: doc(&o.doc),
            serves: Vec::new(),
            needs: Vec::new(),
        });
        self.out.spans.objects.push(ObjectSpans {
            name: fs(file, o.name.span),
            native: o.native.map(|n| fs(file, n)),
            needs: Vec::new(),
        });
        id
    }

    /// Image `i` of file `fix` (`file`), declared: its id, its parts to
    /// come.
    fn declare_image(
        &mut self,
        fix: FileIx,
        file: FileId,
        exported: bool,
        i: &ast::Image,
    ) -> ImageId {
        let id = ImageId(self.out.model.images.len() as u32);
        self.out.model.images.push(ImageDef {
            name: i.name.name.clone(),
            file: fix,
            exported,
            doc: doc(&i.doc),
            slots: Vec::new(),
            instances: Vec::new(),
            exports: Vec::new(),
            startup: Vec::new(),
            needs: Vec::new(),
        });
        self.out.spans.images.push(ImageSpans {
            name: fs(file, i.name.span),
            slots: Vec::new(),
            instances: Vec::new(),
            exports: Vec::new(),
            startup: Vec::new(),
            needs: Vec::new(),
        });
        id
    }

    /// Binds imported names. Names the target does not export were reported
    /// by the resolver (E0202) and are left out here.
    fn import(&mut self) {
        for (mi, m) in self.front.program.modules.iter().enumerate() {
            for (imp, target) in m.ast.imports().zip(&m.imports) {
                let Some(target) = target else { continue };
                let exported = |sym: Sym, model: &Model| match sym {
                    Sym::Type(t, _) => model.ty(t).exported,
                    Sym::Object(o) => model.object(o).exported,
                    Sym::Image(i) => model.image(i).exported,
                };
                for n in &imp.names {
                    // Imports are bound after every file's declarations:
                    // what the target declares is what an import of it can
                    // name (not what it imports itself).
                    let Some(sym) = self.out.scopes[target.0 as usize].declared(&n.name.name)
                    else {
                        continue;
                    };
                    if !exported(sym, &self.out.model) {
                        continue;
                    }
                    let local = n.local();
                    self.out.scopes[mi].record(fs(m.file, n.name.span), sym);
                    self.out.scopes[mi].bind(
                        &local.name,
                        sym,
                        fs(m.file, local.span),
                        true,
                        self.diags,
                    );
                }
            }
        }
    }

    fn lower_objects_and_images(&mut self) {
        // Large headers have tens of thousands of entries: size the arenas once.
        let entries: usize = self
            .front
            .program
            .modules
            .iter()
            .flat_map(|m| &m.ast.items)
            .map(|item| {
                let count = |n: &ast::Needs| n.entries.len();
                match item {
                    Item::Object(o) => o
                        .members
                        .iter()
                        .map(|mem| match mem {
                            ObjectMember::Serves(s) => s.entries.len(),
                            ObjectMember::Needs(n) => count(n),
                            ObjectMember::Error(_) => 0,
                        })
                        .sum(),
                    Item::Image(i) => i
                        .parts
                        .iter()
                        .map(|p| match p {
                            ImagePart::Needs(n) => count(n),
                            _ => 0,
                        })
                        .sum(),
                    _ => 0,
                }
            })
            .sum();
        self.out.model.entries.reserve(entries);
        self.out.spans.entries.reserve(entries);
        let (mut next_obj, mut next_img) = (0usize, 0usize);
        for (mi, m) in self.front.program.modules.iter().enumerate() {
            for item in &m.ast.items {
                match item {
                    Item::Object(o) => {
                        let id = next_obj;
                        next_obj += 1;
                        let mut serves = Vec::new();
                        let mut needs = Vec::new();
                        let mut need_spans = Vec::new();
                        for member in &o.members {
                            match member {
                                ObjectMember::Serves(s) => {
                                    for e in &s.entries {
                                        if let ast::EntryItem::Entry(e) = e {
                                            serves.push(self.entry(mi, m.file, e));
                                        }
                                    }
                                }
                                ObjectMember::Needs(n) => {
                                    needs.push(self.need(mi, m.file, n));
                                    need_spans.push(fs(m.file, n.mount.span));
                                }
                                ObjectMember::Error(_) => {}
                            }
                        }
                        let def = &mut self.out.model.objects[id];
                        def.serves = serves;
                        def.needs = needs;
                        self.out.spans.objects[id].needs = need_spans;
                    }
                    Item::Image(i) => {
                        let id = next_img;
                        next_img += 1;
                        self.image(mi, m.file, id, i);
                    }
                    _ => {}
                }
            }
        }
    }
}

/// A file's scope as a schema block or a literal sees it.
pub struct ScopeNames<'a> {
    pub scope: &'a Scope,
}

impl TypeNames for ScopeNames<'_> {
    fn lookup(&self, name: &str, at: FileSpan) -> TypeLookup {
        match self.scope.get(name, at) {
            Some(Sym::Type(id, false)) => TypeLookup::Message(id),
            Some(Sym::Type(id, true)) => TypeLookup::Enum(id),
            Some(s) => TypeLookup::NotAType(s.kind()),
            None => TypeLookup::Missing,
        }
    }

    fn candidates(&self) -> crate::diagnostics::suggest::Candidates {
        self.scope.type_names()
    }

    fn member_used(&self, at: FileSpan, ty: TypeId, member: usize) {
        self.scope.record_member(MemberUse { at, ty, member });
    }
}
