//! Lowering images: slots, instances and their wiring, exports, startup
//! requests and image-level needs, with the names of the image tree.

use std::collections::HashMap;

use oth_syntax::Span;
use oth_syntax::ast::{self, ImagePart, Wire};

use crate::check::scope::Sym;
use crate::model::*;
use crate::name_errors::{NameError, Sought};
use crate::source::{FileId, FileSpan};

use super::{Lowerer, doc, fs};

impl Lowerer<'_> {
    pub(super) fn image(&mut self, mi: usize, file: FileId, id: usize, i: &ast::Image) {
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
                    let (name, ty) = (fs(file, s.name.span), fs(file, s.ty.span()));
                    slot_spans.push(SlotSpans { name, ty });
                }
                ImagePart::Instance(inst) => {
                    if let Some(first) = inst_names.get(&inst.name.name) {
                        self.twice(file, "instance", &inst.name, *first);
                        continue;
                    }
                    inst_names.insert(inst.name.name.clone(), inst.name.span);
                    let (def, spans) = self.instance(mi, file, inst);
                    instances.push(def);
                    inst_spans.push(spans);
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
                    startup_spans.push(startup_spans_of(file, s));
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

    /// An instance and its wiring (a line that did not parse is left out).
    fn instance(
        &mut self,
        mi: usize,
        file: FileId,
        inst: &ast::Instance,
    ) -> (InstanceDef, InstanceSpans) {
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
        let def = InstanceDef {
            name: inst.name.name.clone(),
            of,
            doc: doc(&inst.doc),
            wiring,
        };
        let spans = InstanceSpans {
            name: fs(file, inst.name.span),
            object: fs(file, inst.object.span),
            wiring: wiring_spans,
        };
        (def, spans)
    }

    /// The image tree holds `/INSTANCE` for each instance and each `needs`
    /// mount point: two of them at one name is E0204.
    pub(super) fn tree_names_unique(
        &mut self,
        file: FileId,
        needs: &[NeedBlock],
        spans: &[FileSpan],
        instances: &HashMap<String, Span>,
    ) {
        let mut seen: HashMap<String, FileSpan> = HashMap::new();
        for (n, at) in needs.iter().zip(spans) {
            let Some(Seg::Literal(first)) = n.mount.segs.first() else {
                continue;
            };
            let clash = instances
                .get(first)
                .map(|s| (fs(file, *s), "an instance"))
                .or_else(|| seen.get(&n.mount.to_string()).map(|s| (*s, "another need")));
            if let Some((other_at, other)) = clash {
                self.diags.report(NameError::TreeClash {
                    first_segment: first.clone(),
                    at: *at,
                    other_at,
                    other,
                });
            }
            seen.entry(n.mount.to_string()).or_insert(*at);
        }
    }

    pub(super) fn twice(
        &mut self,
        file: FileId,
        what: &'static str,
        name: &ast::Ident,
        first: Span,
    ) {
        self.diags.report(NameError::DeclaredTwice {
            what,
            name: name.name.clone(),
            at: fs(file, name.span),
            first: fs(file, first),
        });
    }

    pub(super) fn shape(&mut self, mi: usize, file: FileId, name: &ast::Ident) -> Option<Shape> {
        match self.out.scopes[mi].get(&name.name, fs(file, name.span)) {
            Some(Sym::Object(o)) => Some(Shape::Object(o)),
            Some(Sym::Image(i)) => Some(Shape::Image(i)),
            Some(sym) => {
                self.diags.report(NameError::WrongKind {
                    sought: Sought::Object,
                    name: name.name.clone(),
                    kind: sym.kind(),
                    at: fs(file, name.span),
                });
                None
            }
            None => {
                let candidates: Vec<String> = self.out.scopes[mi]
                    .names_of(|s| matches!(s, Sym::Object(_) | Sym::Image(_)))
                    .into_iter()
                    .map(str::to_string)
                    .collect();
                self.diags.report(NameError::Unknown {
                    sought: Sought::Object,
                    name: name.name.clone(),
                    at: fs(file, name.span),
                    candidates: candidates.into(),
                });
                None
            }
        }
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

/// Where a startup request and its parts are written.
fn startup_spans_of(file: FileId, s: &ast::Startup) -> StartupSpans {
    StartupSpans {
        whole: fs(file, s.span),
        verb: fs(file, s.verb.span),
        path: fs(file, s.path.span),
        payload: s.payload.as_ref().map(|p| fs(file, payload_span(p))),
    }
}
