//! What hovering a name shows: its declaration, its doc, and for a mount or
//! bind line what the instance sees through it.

use super::{Analysis, Target};
use crate::check::Sym;
use crate::formats::describe_field_type as describe;
use crate::model::{FieldType, ImageId, TypeKind};
use crate::namespace::tree;
use crate::namespace::view::ReadonlyBy;

impl Analysis {
    /// Markdown describing `target`: a code block with its declaration,
    /// then its doc and what else is worth knowing.
    pub fn hover(&self, target: Target) -> String {
        let Some((code, doc, more)) = self.hover_parts(target) else {
            return String::new();
        };
        let mut out = format!("```oth\n{code}\n```");
        if let Some(d) = doc.filter(|d| !d.trim().is_empty()) {
            out.push_str("\n\n");
            out.push_str(d.trim());
        }
        if let Some(m) = more {
            out.push_str("\n\n");
            out.push_str(&m);
        }
        out
    }

    /// What a hover on `target` shows: its declaration, its doc, and what
    /// else is worth knowing.
    fn hover_parts(&self, target: Target) -> Option<(String, Option<String>, Option<String>)> {
        let model = &self.compiled.checked.model;
        Some(match target {
            Target::Sym(Sym::Type(t, _)) => (self.type_text(t), model.ty(t).doc.clone(), None),
            Target::Member(t, k) => {
                let (code, doc) = self.member_text(t, k)?;
                (code, doc, None)
            }
            Target::Sym(Sym::Object(o)) => (self.object_text(o), model.object(o).doc.clone(), None),
            Target::Sym(Sym::Image(i)) => (self.image_text(i), model.image(i).doc.clone(), None),
            Target::Instance(i, ii) => {
                let inst = &model.image(i).instances[ii];
                (
                    format!("instance {} = {}", inst.name, model.shape_name(inst.of)),
                    inst.doc.clone(),
                    None,
                )
            }
            Target::Slot(i, si) => {
                let slot = &model.image(i).slots[si];
                let spans = &self.compiled.checked.spans.images[i.index()].slots[si];
                let ty = &self.text(spans.ty.file)[spans.ty.span.range()];
                (
                    format!("require {}: {ty}", slot.name),
                    slot.doc.clone(),
                    None,
                )
            }
            Target::Entry(e) => (self.entry_text(e), model.entry(e).doc.clone(), None),
            Target::Wire(i, ii, w) => {
                let spans = &self.compiled.checked.spans.images[i.index()].instances[ii].wiring[w];
                let line = self.text(spans.whole.file)[spans.whole.span.range()].to_string();
                (line, None, Some(self.wire_text(i, ii, w)))
            }
            Target::Export(..) | Target::Startup(..) => {
                let whole = self.definition(target)?;
                let line = self.text(whole.file)[whole.span.range()].to_string();
                (line, None, Some(self.answered_by(target)))
            }
        })
    }

    /// A field (`Greeting.prefix: string`) or an enum value, and its doc.
    fn member_text(&self, t: crate::model::TypeId, k: usize) -> Option<(String, Option<String>)> {
        let model = &self.compiled.checked.model;
        let def = model.ty(t);
        match &def.kind {
            TypeKind::Message { fields } => {
                let f = fields.get(k)?;
                let opt = if f.optional { "?" } else { "" };
                let code = format!("{}.{}{opt}: {}", def.name, f.name, describe(model, &f.ty));
                Some((code, f.doc.clone()))
            }
            TypeKind::Enum { values } => {
                let v = values.get(k)?;
                Some((format!("{}.{}", def.name, v.name), v.doc.clone()))
            }
        }
    }

    /// An object: what it serves and what it needs.
    fn object_text(&self, o: crate::model::ObjectId) -> String {
        let def = self.compiled.checked.model.object(o);
        let native = if def.native { "native " } else { "" };
        let mut lines = vec![format!("{native}object {}", def.name)];
        for &e in &def.serves {
            lines.push(format!("  serves {}", self.entry_text(e)));
        }
        for n in &def.needs {
            lines.push(format!("  needs {} ({} entries)", n.mount, n.entries.len()));
        }
        lines.join("\n")
    }

    /// An image: its slots and instances.
    fn image_text(&self, i: ImageId) -> String {
        let model = &self.compiled.checked.model;
        let def = model.image(i);
        let mut lines = vec![format!("image {}", def.name)];
        for s in &def.slots {
            lines.push(format!("  require {}", s.name));
        }
        for inst in &def.instances {
            lines.push(format!(
                "  instance {} = {}",
                inst.name,
                model.shape_name(inst.of)
            ));
        }
        lines.join("\n")
    }

    fn type_text(&self, t: crate::model::TypeId) -> String {
        let model = &self.compiled.checked.model;
        let def = model.ty(t);
        match &def.kind {
            TypeKind::Message { fields } => {
                let mut s = format!("message {} {{", def.name);
                for f in fields {
                    let opt = if f.optional { "?" } else { "" };
                    s.push_str(&format!("\n  {}{opt}: {}", f.name, describe(model, &f.ty)));
                }
                s.push_str(if fields.is_empty() { "}" } else { "\n}" });
                s
            }
            TypeKind::Enum { values } => {
                let names: Vec<&str> = values.iter().map(|v| v.name.as_str()).collect();
                format!("enum {} {{ {} }}", def.name, names.join(", "))
            }
        }
    }

    /// An entry as written in its file.
    fn entry_text(&self, e: crate::model::EntryId) -> String {
        let at = self.compiled.checked.spans.entries[e.index()].whole;
        let text = &self.text(at.file)[at.span.range()];
        // A doc written before it is part of nothing here.
        text.lines()
            .filter(|l| !l.trim_start().starts_with("##"))
            .flat_map(str::split_whitespace)
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The serve entries an export's source or a startup request's path
    /// reaches, each with the object that serves it.
    fn answered_by(&self, target: Target) -> String {
        let model = &self.compiled.checked.model;
        let entries = self.entries_reached(target);
        if entries.is_empty() {
            return "Reaches no serve entry: see the diagnostics on this line.".into();
        }
        let mut out = String::from(match target {
            Target::Startup(..) => "Answered by:",
            _ => "Exports:",
        });
        for e in entries {
            let owner = model
                .server_of(e)
                .map_or(String::new(), |o| format!(" of `{}`", o.name));
            out.push_str(&format!("\n- `{}`{owner}", self.entry_text(e)));
        }
        out
    }

    /// What instance `ii` sees through wire `w`.
    fn wire_text(&self, img: ImageId, ii: usize, w: usize) -> String {
        let model = &self.compiled.checked.model;
        let ns = &self.compiled.checked.namespace;
        let Some(reached) = ns.wire(img, ii, w) else {
            return "Not resolved (the file has errors that stop the image check).".into();
        };
        let reached = match reached {
            Ok(r) => r,
            Err(_) => return "Leads nowhere: see the diagnostics on this line.".into(),
        };
        let mut out = match reached.target {
            tree::Target::Instance(ti, tii) => {
                let inst = &model.image(ti).instances[tii];
                format!(
                    "Reaches instance `{}` ({}) at `{}`",
                    inst.name,
                    model.shape_name(inst.of),
                    crate::namespace::path::text(&reached.path)
                )
            }
            tree::Target::Need(ti, n) => format!(
                "Reaches what image `{}` is given at `{}`",
                model.image(ti).name,
                model.image(ti).needs[n].mount
            ),
        };
        match reached.readonly.first() {
            None => out.push_str(", writable."),
            Some(ReadonlyBy::Wire(..)) | Some(ReadonlyBy::Export(..)) => {
                out.push_str(", read-only.")
            }
        }
        let entries = self.reached_through(img, ii, w);
        if !entries.is_empty() {
            out.push_str("\n\nNeeds met through it:");
            for (need, serve) in entries {
                out.push_str(&format!(
                    "\n- `{}` → `{}`",
                    self.entry_text(need),
                    self.entry_text(serve)
                ));
            }
        }
        out
    }
}

/// How a field type reads (re-exported for completion details).
pub(super) fn field_type(model: &crate::model::Model, t: &FieldType) -> String {
    describe(model, t)
}
