//! From syntax trees to the model: every declaration gets an id, every name
//! is resolved through its file's scope.
//!
//! Codes: E0203 (unknown name), E0204 (via [`Scope::bind`]), E0206 (a name of
//! the wrong kind), E0208 (a content type with a format written bare), and
//! the format's own block rules (via [`SchemaBlock::lower`]).

use std::collections::HashMap;

use oth_syntax::Span;
use oth_syntax::ast::{self, ImagePart, Item, ObjectMember, TypeRef, Wire};

use super::scope::{Scope, Sym};
use crate::diagnostics::suggest::closest;
use crate::diagnostics::{Code, Diagnostic, Diagnostics, Label};
use crate::formats::{Formats, TypeLookup, TypeNames};
use crate::model::*;
use crate::resolve::{DeclKind, FrontEnd, ModuleId, Origin};
use crate::source::{FileId, FileSpan};

/// The model, and what the later checks need to get back to the source.
pub struct Lowered {
    pub model: Model,
    pub spans: Spans,
    /// Per file (indexed like `model.files`).
    pub scopes: Vec<Scope>,
    /// Per image: the module and item index it came from.
    pub image_src: Vec<(ModuleId, usize)>,
}

pub fn lower(front: &FrontEnd, formats: &Formats, diags: &mut Diagnostics) -> Lowered {
    let mut l = Lowerer {
        front,
        formats,
        out: Lowered {
            model: Model::default(),
            spans: Spans::default(),
            scopes: Vec::new(),
            image_src: Vec::new(),
        },
        locals: Vec::new(),
        diags,
    };
    l.declare();
    l.import();
    l.lower_types();
    l.lower_objects_and_images();
    l.out
}

struct Lowerer<'a> {
    front: &'a FrontEnd,
    formats: &'a Formats,
    out: Lowered,
    /// Per module: its own declarations (what an import of it can name).
    locals: Vec<HashMap<String, Sym>>,
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
                origin: match m.origin {
                    Origin::Source => FileOrigin::Source,
                    Origin::Env => FileOrigin::Env,
                    Origin::Wasm => FileOrigin::Wasm,
                },
            });
            let fix = FileIx(mi as u32);
            let all_exported = m.origin != Origin::Source;
            let mut scope = Scope::default();
            let mut locals = HashMap::new();
            let mut blocks = m.schemas.iter();
            for (ii, item) in m.ast.items.iter().enumerate() {
                match item {
                    Item::Schemas(s) => {
                        let Some(parsed) = blocks.next().and_then(|p| p.parsed.as_ref()) else {
                            continue;
                        };
                        for t in parsed.block.declared() {
                            let id = TypeId(self.out.model.types.len() as u32);
                            let is_enum = t.kind == crate::formats::TypeKind::Enum;
                            self.out.model.types.push(TypeDef {
                                name: t.name.clone(),
                                file: fix,
                                format: parsed.format.to_string(),
                                exported: all_exported || s.export.is_some(),
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
                            scope.bind(&t.name, sym, fs(file, t.span), false, self.diags);
                            locals.entry(t.name).or_insert(sym);
                        }
                    }
                    Item::Object(o) => {
                        let id = ObjectId(self.out.model.objects.len() as u32);
                        self.out.model.objects.push(ObjectDef {
                            name: o.name.name.clone(),
                            file: fix,
                            exported: all_exported || o.export.is_some(),
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
                        let sym = Sym::Object(id);
                        scope.bind(&o.name.name, sym, fs(file, o.name.span), false, self.diags);
                        locals.entry(o.name.name.clone()).or_insert(sym);
                    }
                    Item::Image(i) => {
                        let id = ImageId(self.out.model.images.len() as u32);
                        self.out.model.images.push(ImageDef {
                            name: i.name.name.clone(),
                            file: fix,
                            exported: all_exported || i.export.is_some(),
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
                        self.out.image_src.push((ModuleId(mi as u32), ii));
                        let sym = Sym::Image(id);
                        scope.bind(&i.name.name, sym, fs(file, i.name.span), false, self.diags);
                        locals.entry(i.name.name.clone()).or_insert(sym);
                    }
                    Item::Import(_) | Item::Error(_) => {}
                }
            }
            self.out.scopes.push(scope);
            self.locals.push(locals);
        }
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
                    let Some(&sym) = self.locals[target.0 as usize].get(&n.name.name) else {
                        continue;
                    };
                    if !exported(sym, &self.out.model) {
                        continue;
                    }
                    let local = n.local();
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

    fn lower_types(&mut self) {
        let mut next = 0usize;
        for (mi, m) in self.front.program.modules.iter().enumerate() {
            for p in &m.schemas {
                let Some(parsed) = &p.parsed else { continue };
                let names = ScopeNames {
                    scope: &self.out.scopes[mi],
                };
                let lowered = parsed.block.lower(m.file, &names, self.diags);
                for t in lowered {
                    let id = next;
                    next += 1;
                    let Some(def) = self.out.model.types.get_mut(id) else {
                        break;
                    };
                    def.kind = t.kind;
                    def.doc = t.doc;
                    self.out.spans.types[id].members = t
                        .members
                        .into_iter()
                        .map(|(a, b)| (fs(m.file, a), fs(m.file, b)))
                        .collect();
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

    fn need(&mut self, mi: usize, file: FileId, n: &ast::Needs) -> NeedBlock {
        let entries = n
            .entries
            .iter()
            .filter_map(|e| match e {
                ast::EntryItem::Entry(e) => Some(self.entry(mi, file, e)),
                ast::EntryItem::Error(_) => None,
            })
            .collect();
        NeedBlock {
            mount: PathPattern::from_syntax(&n.mount.path.segments),
            doc: doc(&n.doc),
            entries,
        }
    }

    fn entry(&mut self, mi: usize, file: FileId, e: &ast::Entry) -> EntryId {
        let request = e
            .request
            .iter()
            .map(|t| self.payload_type(mi, file, t))
            .collect();
        let answer = e
            .answer
            .as_ref()
            .map(|a| self.payload_type(mi, file, &a.ty));
        let stream =
            e.verb.verb.always_streams() || e.answer.as_ref().is_some_and(|a| a.stream.is_some());
        let id = EntryId(self.out.model.entries.len() as u32);
        self.out.model.entries.push(EntryDef {
            path: PathPattern::from_syntax(&e.path.path.segments),
            operator: e.operator.is_some(),
            verb: e.verb.verb,
            request,
            answer,
            stream,
            star: e.answer.as_ref().is_some_and(|a| a.stream.is_some()),
            doc: doc(&e.doc),
        });
        self.out.spans.entries.push(EntrySpans {
            whole: fs(file, e.span),
            path: fs(file, e.path.span),
            verb: fs(file, e.verb.span),
            operator: e.operator.map(|s| fs(file, s)),
            request: e.request.iter().map(|t| fs(file, t.span())).collect(),
            answer: e.answer.as_ref().map(|a| fs(file, a.ty.span())),
            stream: e
                .answer
                .as_ref()
                .and_then(|a| a.stream)
                .map(|s| fs(file, s)),
        });
        id
    }

    /// A type where a payload goes: a content type, a message type, or `Stat`.
    pub fn payload_type(&mut self, mi: usize, file: FileId, t: &TypeRef) -> PayloadType {
        match t {
            TypeRef::ContentType(c) => {
                if !c.ct.valid {
                    return PayloadType::Unknown;
                }
                if let Some(f) = self.formats.find(&c.ct) {
                    let examples = self.message_names(mi);
                    let example = examples.first().map(String::as_str).unwrap_or("Greeting");
                    self.diags.push(
                        Diagnostic::new(
                            Code::E0208,
                            format!("`{}` has a format, so it cannot be written bare", c.ct.text),
                            Label::new(file, c.span, "which message type?"),
                        )
                        .with_help(format!(
                            "name a message type of the `{}` format (such as `{example}`), or write `*/*` or `application/*` to take any payload",
                            f.content_type()
                        )),
                    );
                    return PayloadType::Unknown;
                }
                PayloadType::Content(ContentType {
                    text: c.ct.text.clone(),
                    ty: c.ct.ty.clone(),
                    subtype: c.ct.subtype.clone(),
                    params: c.ct.params.clone(),
                })
            }
            TypeRef::Name(n) => match self.out.scopes[mi].get(&n.name) {
                Some(Sym::Type(id, false)) => PayloadType::Message(id),
                Some(sym) => {
                    let what = sym.kind().describe();
                    let why = if sym.kind() == DeclKind::Enum {
                        "an enum is not a payload: it is only ever a field of a message"
                    } else {
                        "a payload type is a message type, a content type, or `Stat`"
                    };
                    self.diags.push(
                        Diagnostic::new(
                            Code::E0206,
                            format!(
                                "`{}` is {} {what}, not a payload type",
                                n.name,
                                article(what)
                            ),
                            Label::new(
                                file,
                                n.span,
                                format!("this names {} {what}", article(what)),
                            ),
                        )
                        .with_help(why),
                    );
                    PayloadType::Unknown
                }
                None if n.name == "Stat" => PayloadType::Content(ContentType {
                    text: STAT_CONTENT_TYPE.into(),
                    ty: "application".into(),
                    subtype: "x-othismo-stat".into(),
                    params: Vec::new(),
                }),
                None => {
                    let names = self.message_names(mi);
                    let refs: Vec<&str> =
                        names.iter().map(String::as_str).chain(["Stat"]).collect();
                    let mut d = Diagnostic::new(
                        Code::E0203,
                        format!("unknown type `{}`", n.name),
                        Label::new(file, n.span, "no message type of this name is in scope"),
                    );
                    d = match closest(&n.name, &refs) {
                        Some(near) => d.with_help(format!("did you mean `{near}`?")),
                        None => d.with_help(format!(
                            "declare it in a schemas block, or import it: `import {{ {} }} from \"file.oth\"`",
                            n.name
                        )),
                    };
                    self.diags.push(d);
                    PayloadType::Unknown
                }
            },
        }
    }

    fn message_names(&self, mi: usize) -> Vec<String> {
        self.out.scopes[mi]
            .names_of(|s| matches!(s, Sym::Type(_, false)))
            .into_iter()
            .map(str::to_string)
            .collect()
    }

    fn image(&mut self, mi: usize, file: FileId, id: usize, i: &ast::Image) {
        let mut def_slots = Vec::new();
        let mut slot_spans = Vec::new();
        let mut instances = Vec::new();
        let mut inst_spans = Vec::new();
        let mut exports = Vec::new();
        let mut export_spans = Vec::new();
        let mut startup = Vec::new();
        let mut startup_spans = Vec::new();
        let mut needs = Vec::new();
        let mut need_spans = Vec::new();
        let mut slot_names: HashMap<String, Span> = HashMap::new();
        let mut inst_names: HashMap<String, Span> = HashMap::new();
        for part in &i.parts {
            match part {
                ImagePart::Slot(s) => {
                    if let Some(first) = slot_names.get(&s.name.name) {
                        self.twice(file, "slot", &s.name, *first);
                        continue;
                    }
                    slot_names.insert(s.name.name.clone(), s.name.span);
                    let ty = self.payload_type(mi, file, &s.ty);
                    def_slots.push(SlotDef {
                        name: s.name.name.clone(),
                        ty,
                        doc: doc(&s.doc),
                        value: None,
                    });
                    slot_spans.push(SlotSpans {
                        name: fs(file, s.name.span),
                        ty: fs(file, s.ty.span()),
                    });
                }
                ImagePart::Instance(inst) => {
                    if let Some(first) = inst_names.get(&inst.name.name) {
                        self.twice(file, "instance", &inst.name, *first);
                        continue;
                    }
                    inst_names.insert(inst.name.name.clone(), inst.name.span);
                    let of = self.shape(mi, file, &inst.object);
                    let mut wiring = Vec::new();
                    let mut wiring_spans = Vec::new();
                    for w in &inst.wiring {
                        let (kind, link) = match w {
                            Wire::Mount(l) => (WireKind::Mount, l),
                            Wire::Bind(l) => (WireKind::Bind, l),
                            Wire::Error(_) => continue,
                        };
                        wiring.push(WireDef {
                            kind,
                            link: link_def(link),
                        });
                        wiring_spans.push(link_spans(file, link));
                    }
                    instances.push(InstanceDef {
                        name: inst.name.name.clone(),
                        of,
                        doc: doc(&inst.doc),
                        wiring,
                    });
                    inst_spans.push(InstanceSpans {
                        name: fs(file, inst.name.span),
                        object: fs(file, inst.object.span),
                        wiring: wiring_spans,
                    });
                }
                ImagePart::Export(e) => {
                    exports.push(link_def(&e.link));
                    export_spans.push(link_spans(file, &e.link));
                }
                ImagePart::Startup(s) => {
                    startup.push(StartupDef {
                        verb: s.verb.verb,
                        path: PathPattern::from_syntax(&s.path.path.segments),
                        payload: None,
                    });
                    startup_spans.push(StartupSpans {
                        whole: fs(file, s.span),
                        verb: fs(file, s.verb.span),
                        path: fs(file, s.path.span),
                        payload: s.payload.as_ref().map(|p| fs(file, payload_span(p))),
                    });
                }
                ImagePart::Needs(n) => {
                    needs.push(self.need(mi, file, n));
                    need_spans.push(fs(file, n.mount.span));
                }
                ImagePart::Error(_) => {}
            }
        }
        self.tree_names_unique(file, &needs, &need_spans, &inst_names);
        let def = &mut self.out.model.images[id];
        def.slots = def_slots;
        def.instances = instances;
        def.exports = exports;
        def.startup = startup;
        def.needs = needs;
        let sp = &mut self.out.spans.images[id];
        sp.slots = slot_spans;
        sp.instances = inst_spans;
        sp.exports = export_spans;
        sp.startup = startup_spans;
        sp.needs = need_spans;
    }

    /// The image tree holds `/INSTANCE` for each instance and each `needs`
    /// mount point: two of them at one name is E0204.
    fn tree_names_unique(
        &mut self,
        file: FileId,
        needs: &[NeedBlock],
        spans: &[FileSpan],
        instances: &HashMap<String, Span>,
    ) {
        let mut seen: HashMap<String, FileSpan> = HashMap::new();
        for (n, at) in needs.iter().zip(spans) {
            let Some(Seg::Lit(first)) = n.mount.segs.first() else {
                continue;
            };
            let clash = instances
                .get(first)
                .map(|s| (fs(file, *s), "an instance"))
                .or_else(|| seen.get(&n.mount.to_string()).map(|s| (*s, "another need")));
            if let Some((other, what)) = clash {
                self.diags.push(
                    Diagnostic::new(
                        Code::E0204,
                        format!("`/{first}` is two things in this image's tree"),
                        Label::new(
                            at.file,
                            at.span,
                            "this need is mounted in the image tree here",
                        ),
                    )
                    .with_label(Label::new(
                        other.file,
                        other.span,
                        format!("and so is {what}"),
                    ))
                    .with_help("give the need's mount point a name no instance of the image has"),
                );
            }
            seen.entry(n.mount.to_string()).or_insert(*at);
        }
    }

    fn twice(&mut self, file: FileId, what: &str, name: &ast::Ident, first: Span) {
        self.diags.push(
            Diagnostic::new(
                Code::E0204,
                format!("{what} `{}` is declared twice in this image", name.name),
                Label::new(file, name.span, "declared again here"),
            )
            .with_label(Label::new(file, first, "first declared here"))
            .with_help(format!("give each {what} its own name")),
        );
    }

    fn shape(&mut self, mi: usize, file: FileId, name: &ast::Ident) -> Option<Shape> {
        match self.out.scopes[mi].get(&name.name) {
            Some(Sym::Object(o)) => Some(Shape::Object(o)),
            Some(Sym::Image(i)) => Some(Shape::Image(i)),
            Some(sym) => {
                let what = sym.kind().describe();
                self.diags.push(
                    Diagnostic::new(
                        Code::E0206,
                        format!("`{}` is {} {what}, not an object", name.name, article(what)),
                        Label::new(
                            file,
                            name.span,
                            "an instance is made of an object or an image",
                        ),
                    )
                    .with_help("name an object or an image here"),
                );
                None
            }
            None => {
                let names =
                    self.out.scopes[mi].names_of(|s| matches!(s, Sym::Object(_) | Sym::Image(_)));
                let mut d = Diagnostic::new(
                    Code::E0203,
                    format!("unknown object `{}`", name.name),
                    Label::new(
                        file,
                        name.span,
                        "no object or image of this name is in scope",
                    ),
                );
                d = match closest(&name.name, &names) {
                    Some(near) => d.with_help(format!("did you mean `{near}`?")),
                    None => d.with_help(format!(
                        "import it: `import {{ {} }} from \"file.oth\"` (the runtime's objects come from \"othismo:env\")",
                        name.name
                    )),
                };
                self.diags.push(d);
                None
            }
        }
    }
}

fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

fn link_def(l: &ast::Link) -> LinkDef {
    LinkDef {
        at: PathPattern::from_syntax(&l.to.path.segments),
        from: PathPattern::from_syntax(&l.from.path.segments),
        readonly: l.readonly.is_some(),
    }
}

fn link_spans(file: FileId, l: &ast::Link) -> LinkSpans {
    LinkSpans {
        whole: fs(file, l.span),
        at: fs(file, l.to.span),
        from: fs(file, l.from.span),
        readonly: l.readonly.map(|r| fs(file, r)),
    }
}

pub fn payload_span(p: &ast::Payload) -> Span {
    match p {
        ast::Payload::Message(v) => v.span,
        ast::Payload::Slot(i) => i.span,
        ast::Payload::Text(s) => s.span,
        ast::Payload::Typed(c, s) => c.span.to(s.span),
    }
}

/// A file's scope as a schema block or a literal sees it.
pub struct ScopeNames<'a> {
    pub scope: &'a Scope,
}

impl TypeNames for ScopeNames<'_> {
    fn lookup(&self, name: &str) -> TypeLookup {
        match self.scope.get(name) {
            Some(Sym::Type(id, false)) => TypeLookup::Message(id),
            Some(Sym::Type(id, true)) => TypeLookup::Enum(id),
            Some(s) => TypeLookup::NotAType(s.kind()),
            None => TypeLookup::Missing,
        }
    }

    fn candidates(&self) -> Vec<String> {
        self.scope
            .names_of(|s| matches!(s, Sym::Type(..)))
            .into_iter()
            .map(str::to_string)
            .collect()
    }
}
