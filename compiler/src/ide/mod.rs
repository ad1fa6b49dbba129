//! What an editor asks of a checked program, answered in the compiler's own
//! terms (files, byte offsets, model ids), never in a protocol's: the
//! language server (`othc-lsp`) converts. Nothing here resolves a name or a
//! path again: names come from [`crate::check::NameIndex`], which the
//! lowering filled as it resolved them, and wires from the checker's
//! [`crate::namespace::Namespace`].

mod complete;
mod fixes;
mod format;
mod highlight;
mod hover;
mod literals;
mod outline;
mod rename;
mod signature;

use crate::check::{Compilation, NameIndex, Sym};
use crate::model::{EntryId, FileIx, ImageId, Seg, TypeId};
use crate::resolve::Origin;
use crate::source::{FileId, FileSpan};
use oth_syntax::Span;

pub use complete::{Completion, CompletionKind, completion_start, completions, import_path_prefix};
pub use fixes::program_fixes;
pub use format::{NotFormatted, changed_lines, format};
pub use highlight::{Highlight, highlights};
pub use outline::{Fold, Symbol, SymbolKind, folds, symbols};
pub use rename::{Edit, renamable, rename};
pub use signature::{Signature, signature};

/// A thing that has a declaration an editor can go to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// A message type, enum, object or image.
    Sym(Sym),
    /// Instance `.1` of image `.0`.
    Instance(ImageId, usize),
    /// Slot `.1` of image `.0`.
    Slot(ImageId, usize),
    /// A serves or needs entry.
    Entry(EntryId),
    /// Field (or enum value) `.1` of a type.
    Member(TypeId, usize),
    /// Wire `.2` of instance `.1` of image `.0` (a mount or bind line).
    Wire(ImageId, usize, usize),
    /// The source path of export `.1` of image `.0`.
    Export(ImageId, usize),
    /// The path of startup request `.1` of image `.0`.
    Startup(ImageId, usize),
}

/// A checked program, asked about places in its files.
pub struct Analysis {
    pub compiled: Compilation,
    /// The checker's names, sorted for finding by place.
    pub names: NameIndex,
}

impl Analysis {
    pub fn new(mut compiled: Compilation) -> Analysis {
        let names = NameIndex::new(std::mem::take(&mut compiled.checked.names));
        Analysis { compiled, names }
    }

    /// The file loaded under `name` (the path it was loaded by).
    pub fn file(&self, name: &str) -> Option<FileId> {
        self.compiled
            .front
            .sources
            .files()
            .find(|(_, f)| f.name == name)
            .map(|(id, _)| id)
    }

    pub fn text(&self, file: FileId) -> &str {
        &self.compiled.front.sources.get(file).text
    }

    /// The loaded module of a file (its syntax tree and schema blocks).
    pub fn module(&self, file: FileId) -> Option<&crate::resolve::Module> {
        self.compiled
            .front
            .program
            .modules
            .iter()
            .find(|m| m.file == file)
    }

    /// The model's index of a source file (modules and model files are
    /// numbered alike).
    pub(crate) fn model_file(&self, file: FileId) -> Option<FileIx> {
        self.compiled
            .front
            .program
            .modules
            .iter()
            .position(|m| m.file == file)
            .map(|i| FileIx(i as u32))
    }

    /// Whether a file is `.oth` source someone can edit.
    pub fn is_source(&self, file: FileId) -> bool {
        self.module(file)
            .is_some_and(|m| m.origin == Origin::Source)
    }

    /// What is at byte `offset` of `file`, and the span of the word there.
    pub fn at(&self, file: FileId, offset: usize) -> Option<(Target, FileSpan)> {
        let inside =
            |s: &FileSpan| s.file == file && s.span.start() <= offset && offset <= s.span.end();
        // Uses first: they are the smallest spans. They are sorted by file,
        // start and end, and names do not overlap: those that could hold
        // the place start where the last one starting at or before it
        // does (the shortest first, as a scan from the start finds).
        let uses = &self.names.uses;
        let after = uses.partition_point(|u| (u.at.file, u.at.span.start()) <= (file, offset));
        if let Some(last) = after.checked_sub(1).map(|i| &uses[i])
            && last.at.file == file
        {
            let first = uses[..after]
                .partition_point(|u| (u.at.file, u.at.span.start()) < (file, last.at.span.start()));
            if let Some(u) = uses[first..after].iter().find(|u| inside(&u.at)) {
                return Some((Target::Sym(u.sym), u.at));
            }
        }
        self.occurrences()
            .into_iter()
            .filter(|(_, at)| inside(at))
            .min_by_key(|(_, at)| at.span.len())
    }

    /// Where `target` is declared.
    pub fn definition(&self, target: Target) -> Option<FileSpan> {
        let spans = &self.compiled.checked.spans;
        Some(match target {
            Target::Sym(Sym::Type(t, _)) => spans.types.get(t.index())?.name,
            Target::Sym(Sym::Object(o)) => spans.objects.get(o.index())?.name,
            Target::Sym(Sym::Image(i)) => spans.images.get(i.index())?.name,
            Target::Instance(i, ii) => spans.images.get(i.index())?.instances.get(ii)?.name,
            Target::Slot(i, si) => spans.images.get(i.index())?.slots.get(si)?.name,
            Target::Entry(e) => spans.entries.get(e.index())?.path,
            Target::Member(t, k) => spans.types.get(t.index())?.member(k)?.0,
            Target::Wire(i, ii, w) => {
                spans
                    .images
                    .get(i.index())?
                    .instances
                    .get(ii)?
                    .wiring
                    .get(w)?
                    .whole
            }
            Target::Export(i, x) => spans.images.get(i.index())?.exports.get(x)?.whole,
            Target::Startup(i, k) => spans.images.get(i.index())?.startup.get(k)?.whole,
        })
    }

    /// Where a go-to-definition on `target` leads: its declaration, except
    /// for a path into an image's tree, which leads to the serve entries
    /// it reaches: a mount or bind line to those its instance's needs reach
    /// through it, an export's source to those it exports, a startup
    /// request's path to the one that answers it.
    pub fn goes_to(&self, target: Target) -> Vec<FileSpan> {
        let entries = self.entries_reached(target);
        if !entries.is_empty() {
            return entries
                .into_iter()
                .filter_map(|e| self.definition(Target::Entry(e)))
                .collect();
        }
        self.definition(target).into_iter().collect()
    }

    /// The serve entries a path into an image's tree reaches, as the
    /// checker recorded them (empty for anything else).
    pub fn entries_reached(&self, target: Target) -> Vec<EntryId> {
        let ns = &self.compiled.checked.namespace;
        match target {
            Target::Wire(img, ii, w) => self
                .reached_through(img, ii, w)
                .into_iter()
                .map(|(_, e)| e)
                .collect(),
            Target::Export(img, x) => ns
                .exports
                .get(img)
                .and_then(|e| e.get(x))
                .cloned()
                .unwrap_or_default(),
            Target::Startup(img, k) => ns
                .startup
                .get(img)
                .and_then(|s| s.get(k).copied().flatten())
                .into_iter()
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Every place that names `target`, its declaration first.
    pub fn references(&self, target: Target) -> Vec<FileSpan> {
        let mut out: Vec<FileSpan> = self.definition(target).into_iter().collect();
        match target {
            Target::Sym(sym) => out.extend(
                self.names
                    .uses
                    .iter()
                    .filter(|u| u.sym == sym)
                    .map(|u| u.at),
            ),
            _ => {
                let decl = out.first().copied();
                out.extend(
                    self.occurrences()
                        .into_iter()
                        .filter(|(t, at)| *t == target && Some(*at) != decl)
                        .map(|(_, at)| at),
                )
            }
        }
        out
    }

    /// Every declaration, and every place naming an instance, a slot or a
    /// field (in a literal): with the name uses, what each name is.
    pub fn occurrences(&self) -> Vec<(Target, FileSpan)> {
        let c = &self.compiled.checked;
        let mut out = Vec::new();
        for (i, s) in c.spans.types.iter().enumerate() {
            let t = TypeId(i as u32);
            let is_enum = matches!(c.model.ty(t).kind, crate::model::TypeKind::Enum { .. });
            out.push((Target::Sym(Sym::Type(t, is_enum)), s.name));
            for (k, &(name, _)) in s.members.iter().enumerate() {
                out.push((Target::Member(t, k), FileSpan::new(s.name.file, name)));
            }
        }
        for (i, s) in c.spans.objects.iter().enumerate() {
            out.push((
                Target::Sym(Sym::Object(crate::model::ObjectId(i as u32))),
                s.name,
            ));
        }
        for (i, s) in c.spans.entries.iter().enumerate() {
            out.push((Target::Entry(EntryId(i as u32)), s.path));
        }
        // Which instance a path's first segment names is the namespace's
        // to say (an image's tree).
        let tree = crate::namespace::tree::Tree::new(&c.model, vec![false; c.model.images.len()]);
        for (i, s) in c.spans.images.iter().enumerate() {
            let img = ImageId(i as u32);
            let def = c.model.image(img);
            out.push((Target::Sym(Sym::Image(img)), s.name));
            for (si, slot) in s.slots.iter().enumerate() {
                out.push((Target::Slot(img, si), slot.name));
            }
            for (ii, inst) in s.instances.iter().enumerate() {
                out.push((Target::Instance(img, ii), inst.name));
                for (w, link) in inst.wiring.iter().enumerate() {
                    out.push((Target::Wire(img, ii, w), link.whole));
                    if let Some(wire) = def.instances.get(ii).and_then(|x| x.wiring.get(w))
                        && wire.kind == crate::model::WireKind::Mount
                    {
                        self.instance_in_path(
                            &tree,
                            img,
                            &wire.link.from.segs,
                            link.from,
                            &mut out,
                        );
                    }
                }
            }
            for (x, link) in s.exports.iter().enumerate() {
                out.push((Target::Export(img, x), link.from));
                if let Some(e) = def.exports.get(x) {
                    self.instance_in_path(&tree, img, &e.from.segs, link.from, &mut out);
                }
            }
            for (k, st) in s.startup.iter().enumerate() {
                let Some(def) = def.startup.get(k) else {
                    continue;
                };
                out.push((Target::Startup(img, k), st.path));
                self.instance_in_path(&tree, img, &def.path.segs, st.path, &mut out);
                if let (Some(crate::model::StartupPayload::Slot(si)), Some(at)) =
                    (&def.payload, st.payload)
                {
                    out.push((Target::Slot(img, *si), at));
                }
            }
        }
        self.literal_fields(&mut out);
        out
    }

    /// A path in image `img`'s tree starts with an instance's name: that
    /// segment is a place naming the instance.
    fn instance_in_path(
        &self,
        tree: &crate::namespace::tree::Tree,
        img: ImageId,
        segs: &[Seg],
        at: FileSpan,
        out: &mut Vec<(Target, FileSpan)>,
    ) {
        use crate::namespace::tree::Target as Leads;
        let (Some(Seg::Literal(first)), Ok((Leads::Instance(_, ii), _))) =
            (segs.first(), tree.resolve(img, segs))
        else {
            return;
        };
        // The path is written `/first/...`: the name starts after the slash.
        let text = self.text(at.file);
        let start = at.span.start() + 1;
        if text.get(start..start + first.len()) == Some(first.as_str()) {
            out.push((
                Target::Instance(img, ii),
                FileSpan::new(at.file, Span::new(start, start + first.len())),
            ));
        }
    }

    /// The need entries of instance `ii` that reach a serve entry through
    /// wire `w`, each with the serve entry it reaches.
    pub fn reached_through(&self, img: ImageId, ii: usize, w: usize) -> Vec<(EntryId, EntryId)> {
        use crate::namespace::NeedOutcome;
        let ns = &self.compiled.checked.namespace;
        let Some(Ok(reached)) = ns.wire(img, ii, w) else {
            return Vec::new();
        };
        let crate::namespace::tree::Target::Instance(timg, tii) = reached.target else {
            return Vec::new();
        };
        let model = &self.compiled.checked.model;
        let served: Vec<EntryId> = match model.image(timg).instances.get(tii).and_then(|x| x.of) {
            Some(crate::model::Shape::Object(o)) => model.object(o).serves.clone(),
            _ => Vec::new(),
        };
        let def = model.image(img);
        let mount_at = &def.instances[ii].wiring[w].link.at.segs;
        // Need entries are written relative to their block's mount point.
        let needs: Vec<crate::model::NeedBlock> = match def.instances[ii].of {
            Some(crate::model::Shape::Object(o)) => model.object(o).needs.clone(),
            Some(crate::model::Shape::Image(i)) => model.image(i).needs.clone(),
            None => Vec::new(),
        };
        let full_path = |need: EntryId| {
            let block = needs.iter().find(|b| b.entries.contains(&need))?;
            Some(block.mount.join(&model.entry(need).path.segs).segs)
        };
        ns.needs
            .iter()
            .filter(|n| n.image == img && n.instance == ii)
            .filter_map(|n| match n.outcome {
                NeedOutcome::Reached { serve, .. } if served.contains(&serve) => full_path(n.need)?
                    .starts_with(mount_at)
                    .then_some((n.need, serve)),
                _ => None,
            })
            .collect()
    }
}

/// The byte offset where the identifier-like word around `offset` starts
/// and ends in `text`.
pub fn word_at(text: &str, offset: usize) -> Span {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let offset = offset.min(text.len());
    let start = text[..offset]
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_word(*c))
        .last()
        .map_or(offset, |(i, _)| i);
    let end = text[offset..]
        .char_indices()
        .find(|(_, c)| !is_word(*c))
        .map_or(text.len(), |(i, _)| offset + i);
    Span::new(start, end)
}
