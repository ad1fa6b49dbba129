//! The canonical printer: one formatting of every construct. `othc fmt`
//! prints files with it (keeping comments), and `othc build` prints the
//! header sections of modules with it, so the two always agree.
//!
//! The format: two-space indents; items separated by one blank line (runs of
//! imports by none); entry types aligned in a column after the longest path
//! of their block; an instance with one wire on one line, with more in a
//! block with the sources aligned; values on one line when they fit in 80
//! columns. Content types are kept as written. Comments stay before the
//! construct they precede, or at the end of the line they end; a blank line
//! between entries or image parts is kept (one at most).

use oth_syntax::Span;
use oth_syntax::ast::bson;
use oth_syntax::ast::{self, *};
use oth_syntax::{SyntaxError, Trivia, TriviaKind};

mod pieces;

/// Whether `between` (source text between two constructs) has a blank
/// line: two line ends with only spaces between them. Two line ends with a
/// `}` between are not one (a block closed on its own line).
fn has_blank_line(between: &str) -> bool {
    let mut ends = between.match_indices('\n').map(|(i, _)| i);
    let Some(mut prev) = ends.next() else {
        return false;
    };
    for i in ends {
        if between[prev + 1..i].trim().is_empty() {
            return true;
        }
        prev = i;
    }
    false
}
use pieces::*;
pub use pieces::{bson_type, string, type_ref, value};

/// An import of `names` from `from`, as it prints on its own line.
pub fn import_line(names: &[String], from: &str) -> String {
    format!("import {{ {} }} from {}", names.join(", "), string(from))
}

/// One entry as it prints on its own line (no alignment, no doc).
pub fn entry_line(e: &Entry) -> String {
    pieces::entry(e, 0).trim_end().to_string()
}

/// Plain comments of a file (not docs: those are in the trees), in order.
struct Comments<'a> {
    list: Vec<(Span, String)>,
    next: usize,
    src: &'a str,
    offset: usize,
}

impl<'a> Comments<'a> {
    fn new(src: &'a str, offset: usize, trivia: &[Trivia]) -> Comments<'a> {
        Comments {
            list: trivia
                .iter()
                .filter(|t| t.kind == TriviaKind::Comment)
                // A comment ends before the line end, CR LF's `\r` too.
                .map(|t| (t.span, t.text.trim_end_matches('\r').to_string()))
                .collect(),
            next: 0,
            src,
            offset,
        }
    }

    fn none() -> Comments<'static> {
        Comments {
            list: Vec::new(),
            next: 0,
            src: "",
            offset: 0,
        }
    }

    fn text(&self, from: usize, to: usize) -> &str {
        let (a, b) = (
            from.saturating_sub(self.offset),
            to.saturating_sub(self.offset),
        );
        self.src.get(a.min(b)..b).unwrap_or("")
    }
}

pub struct Printer<'a> {
    out: String,
    indent: usize,
    comments: Comments<'a>,
    /// Where the last printed construct ended in the source.
    last_end: Option<usize>,
    /// Where the output was when the last block opened.
    opened_at: Option<usize>,
}

/// Why a file could not be formatted: it does not parse.
pub struct Unformattable {
    pub errors: Vec<SyntaxError>,
}

/// Formats a whole `.oth` file, keeping its comments and its kind of line
/// end (LF, or CR LF if its first line ends so).
pub fn format_file(src: &str) -> Result<String, Unformattable> {
    let parsed = oth_syntax::parse_file(src);
    // Docs attached to nothing (W0003) are in no tree: they are kept as the
    // comments they then are, where they were, never dropped.
    let mut dangling: Vec<Span> = Vec::new();
    let mut errors: Vec<SyntaxError> = Vec::new();
    let split = |all: &[SyntaxError], dangling: &mut Vec<Span>, errors: &mut Vec<SyntaxError>| {
        for e in all {
            match e {
                SyntaxError::DanglingDoc { span } => dangling.push(*span),
                e if !e.is_warning() => errors.push(e.clone()),
                _ => {}
            }
        }
    };
    split(&parsed.errors, &mut dangling, &mut errors);
    // Schema bodies are parsed here too: their comments are theirs.
    let mut blocks = Vec::new();
    for item in &parsed.tree.items {
        if let Item::Schemas(s) = item {
            let b = oth_syntax::parse_bson(&src[s.body.range()], s.body.start());
            split(&b.errors, &mut dangling, &mut errors);
            blocks.push(b);
        }
    }
    if !errors.is_empty() {
        return Err(Unformattable { errors });
    }
    let mut trivia = parsed.trivia;
    for b in &blocks {
        trivia.extend(b.trivia.iter().cloned());
    }
    for t in &mut trivia {
        let inside = dangling
            .iter()
            .any(|d| d.start() <= t.span.start() && t.span.end() <= d.end());
        if t.kind == TriviaKind::Doc && inside {
            t.kind = TriviaKind::Comment;
            // A comment's text follows its `#`: this one's is `# ` and the doc.
            t.text = if t.text.is_empty() {
                "#".to_string()
            } else {
                format!("# {}", t.text)
            };
        }
    }
    trivia.sort_by_key(|t| t.span.start());
    let mut p = Printer {
        out: String::new(),
        indent: 0,
        comments: Comments::new(src, 0, &trivia),
        last_end: None,
        opened_at: None,
    };
    let mut bodies = blocks.iter().map(|b| &b.tree);
    p.file(&parsed.tree, &mut || bodies.next().cloned());
    p.flush_comments(usize::MAX);
    let out = p.finish();
    // A file whose lines end in CR LF keeps them, as rustfmt's
    // `newline_style = "Auto"` does: the layout changes, not the line ends.
    if src.split('\n').next().is_some_and(|l| l.ends_with('\r')) {
        return Ok(out.replace('\n', "\r\n"));
    }
    Ok(out)
}

impl Printer<'static> {
    /// A printer for text that has no source (a module's header sections).
    pub fn plain() -> Printer<'static> {
        Printer {
            out: String::new(),
            indent: 0,
            comments: Comments::none(),
            last_end: None,
            opened_at: None,
        }
    }
}

impl Printer<'_> {
    pub fn finish(mut self) -> String {
        while self.out.ends_with("\n\n") {
            self.out.pop();
        }
        if !self.out.is_empty() && !self.out.ends_with('\n') {
            self.out.push('\n');
        }
        self.out
    }

    /// `head {`: what follows is inside the block.
    fn open(&mut self, head: &str) {
        self.line(&format!("{head} {{"));
        self.indent += 1;
        self.opened_at = Some(self.out.len());
    }

    /// The end of a block `open` began: the comments left before `upto`,
    /// then `}`.
    fn close(&mut self, upto: usize) {
        self.flush_comments(upto);
        self.indent -= 1;
        self.line("}");
    }

    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    /// A blank line, unless one is there or a block has just opened. The
    /// printer remembers where it opened a block: a comment or doc whose
    /// text ends with `{` is not one (read off the text, it made the blank
    /// line after a dangling `## a {` go, attaching it to the next item).
    fn blank(&mut self) {
        let just_opened = self.opened_at == Some(self.out.len());
        if !self.out.is_empty() && !self.out.ends_with("\n\n") && !just_opened {
            self.out.push('\n');
        }
    }

    /// Comments that start before `pos`, each on its own line; one on the
    /// line where the last construct ended stays at the end of that line.
    fn flush_comments(&mut self, pos: usize) {
        while let Some((span, text)) = self.comments.list.get(self.comments.next).cloned() {
            if span.start() >= pos {
                break;
            }
            self.comments.next += 1;
            let trailing = self.last_end.is_some_and(|end| {
                end <= span.start() && !self.comments.text(end, span.start()).contains('\n')
            });
            if trailing && self.out.ends_with('\n') {
                // After a blank line the next item asked for, the comment
                // still goes at the end of the construct's line.
                let blank = self.out.ends_with("\n\n");
                if blank {
                    self.out.pop();
                }
                self.out.pop();
                self.out.push_str(&format!("  #{text}\n"));
                if blank {
                    self.out.push('\n');
                }
            } else {
                self.line(&format!("#{text}"));
            }
            self.last_end = Some(span.end());
            // A blank line after a comment, where the source had one.
            let next = self
                .comments
                .list
                .get(self.comments.next)
                .map_or(pos, |(s, _)| s.start().min(pos));
            if next != usize::MAX && has_blank_line(self.comments.text(span.end(), next)) {
                self.blank();
            }
        }
    }

    /// Starts a construct at `span` (its doc, if any, first): comments
    /// before it, and a blank line if the source had one (`keep_blank`).
    fn start(&mut self, span: Span, doc: &Option<Doc>, keep_blank: bool) {
        let at = doc
            .as_ref()
            .map_or(span.start(), |d| d.span.start().min(span.start()));
        if keep_blank
            && let Some(end) = self.last_end
            && has_blank_line(self.comments.text(end, at))
        {
            self.blank();
        }
        self.flush_comments(at);
    }

    /// Whether a comment not yet printed starts before `end`: inside the
    /// block ending there, which then cannot be printed `{}` (the comment
    /// would move out of it, and a doc comment onto what follows).
    fn comments_before(&self, end: usize) -> bool {
        self.comments
            .list
            .get(self.comments.next)
            .is_some_and(|(span, _)| span.start() < end)
    }

    fn end(&mut self, span: Span) {
        if span.end() > 0 {
            self.last_end = Some(span.end());
        }
    }

    fn doc(&mut self, doc: &Option<Doc>) {
        if let Some(d) = doc {
            // An empty doc (`##` alone) is still a doc: dropped, it would let
            // a dangling doc above it attach to the item instead.
            if d.text.is_empty() {
                self.line("##");
            }
            for l in d.text.lines() {
                if l.is_empty() {
                    self.line("##");
                } else {
                    self.line(&format!("## {l}"));
                }
            }
        }
    }

    fn file(&mut self, f: &ast::File, bodies: &mut dyn FnMut() -> Option<bson::Block>) {
        let mut prev_import = false;
        for (i, item) in f.items.iter().enumerate() {
            let is_import = matches!(item, Item::Import(_));
            if i > 0 && !(is_import && prev_import) {
                self.blank();
            }
            prev_import = is_import;
            match item {
                Item::Import(imp) => self.import(imp),
                Item::Schemas(s) => {
                    let body = bodies().unwrap_or(bson::Block { decls: Vec::new() });
                    self.schemas(s, &body);
                }
                Item::Object(o) => self.object(o),
                Item::Image(img) => self.image(img),
                Item::Error(_) => {}
            }
        }
    }

    pub fn import(&mut self, imp: &Import) {
        self.start(imp.span, &None, false);
        let names: Vec<String> = imp
            .names
            .iter()
            .map(|n| match &n.alias {
                Some(a) => format!("{} as {}", n.name.name, a.name),
                None => n.name.name.clone(),
            })
            .collect();
        self.line(&import_line(&names, &imp.from.value));
        self.end(imp.span);
    }

    pub fn schemas(&mut self, s: &SchemasBlock, body: &bson::Block) {
        self.start(s.span, &s.doc, false);
        self.doc(&s.doc);
        let export = if s.export.is_some() { "export " } else { "" };
        self.open(&format!("{export}schemas {}", s.content_type.ct.text));
        self.last_end = Some(s.body.start());
        self.bson_block(body);
        self.close(s.body.end());
        self.end(s.span);
    }

    pub fn bson_block(&mut self, b: &bson::Block) {
        for (i, d) in b.decls.iter().enumerate() {
            if i > 0 {
                self.blank();
            }
            match d {
                bson::Decl::Message(m) => self.message(m),
                bson::Decl::Enum(e) => self.enumeration(e),
                bson::Decl::Error(_) => {}
            }
        }
    }

    fn message(&mut self, m: &bson::Message) {
        self.start(m.span, &m.doc, false);
        self.doc(&m.doc);
        let fields: Vec<&bson::Field> = m
            .fields
            .iter()
            .filter_map(|f| match f {
                bson::FieldItem::Field(f) => Some(f),
                bson::FieldItem::Error(_) => None,
            })
            .collect();
        if fields.is_empty() && !self.comments_before(m.span.end()) {
            self.line(&format!("message {} {{}}", m.name.name));
        } else {
            self.open(&format!("message {}", m.name.name));
            for f in fields {
                let doc = f.doc.as_deref().cloned();
                self.start(f.span, &doc, true);
                self.doc(&doc);
                let opt = if f.optional.is_some() { "?" } else { "" };
                self.line(&format!("{}{opt}: {}", f.name.name, bson_type(&f.ty)));
                self.end(f.span);
            }
            self.close(m.span.end().saturating_sub(1));
        }
        self.end(m.span);
    }

    fn enumeration(&mut self, e: &bson::Enum) {
        self.start(e.span, &e.doc, false);
        self.doc(&e.doc);
        if e.values.is_empty() && !self.comments_before(e.span.end()) {
            self.line(&format!("enum {} {{}}", e.name.name));
        } else {
            self.open(&format!("enum {}", e.name.name));
            for v in &e.values {
                self.start(v.span, &v.doc, true);
                self.doc(&v.doc);
                self.line(&v.name.name);
                self.end(v.span);
            }
            self.close(e.span.end().saturating_sub(1));
        }
        self.end(e.span);
    }

    pub fn object(&mut self, o: &Object) {
        self.start(o.span, &o.doc, false);
        self.doc(&o.doc);
        let export = if o.export.is_some() { "export " } else { "" };
        let native = if o.native.is_some() { "native " } else { "" };
        let members: Vec<&ObjectMember> = o
            .members
            .iter()
            .filter(|m| !matches!(m, ObjectMember::Error(_)))
            .collect();
        if members.is_empty() && !self.comments_before(o.span.end()) {
            self.line(&format!("{export}{native}object {} {{}}", o.name.name));
            self.end(o.span);
            return;
        }
        self.open(&format!("{export}{native}object {}", o.name.name));
        for m in members {
            match m {
                ObjectMember::Serves(s) => {
                    self.start(s.span, &None, true);
                    self.entries_block("serves", &s.entries, s.span);
                }
                ObjectMember::Needs(n) => self.needs(n),
                ObjectMember::Error(_) => {}
            }
        }
        self.close(o.span.end().saturating_sub(1));
        self.end(o.span);
    }

    fn needs(&mut self, n: &Needs) {
        self.start(n.span, &n.doc, true);
        self.doc(&n.doc);
        self.entries_block(&format!("needs {}", n.mount.path), &n.entries, n.span);
    }

    fn entries_block(&mut self, head: &str, entries: &[EntryItem], span: Span) {
        let entries: Vec<&Entry> = entries
            .iter()
            .filter_map(|e| match e {
                EntryItem::Entry(e) => Some(e),
                EntryItem::Error(_) => None,
            })
            .collect();
        if entries.is_empty() && !self.comments_before(span.end()) {
            self.line(&format!("{head} {{}}"));
            self.end(span);
            return;
        }
        self.open(head);
        let width = entries
            .iter()
            .map(|e| e.path.path.to_string().chars().count())
            .max()
            .unwrap_or(0);
        for e in entries {
            self.start(e.span, &e.doc, true);
            self.doc(&e.doc);
            self.line(&entry(e, width));
            self.end(e.span);
        }
        self.close(span.end().saturating_sub(1));
        self.end(span);
    }

    pub fn image(&mut self, img: &Image) {
        self.start(img.span, &img.doc, false);
        self.doc(&img.doc);
        let export = if img.export.is_some() { "export " } else { "" };
        let parts: Vec<&ImagePart> = img
            .parts
            .iter()
            .filter(|p| !matches!(p, ImagePart::Error(_)))
            .collect();
        if parts.is_empty() && !self.comments_before(img.span.end()) {
            self.line(&format!("{export}image {} {{}}", img.name.name));
            self.end(img.span);
            return;
        }
        self.open(&format!("{export}image {}", img.name.name));
        for part in parts {
            match part {
                ImagePart::Slot(s) => {
                    self.start(s.span, &s.doc, true);
                    self.doc(&s.doc);
                    let mut text = format!("require {} : {}", s.name.name, type_ref(&s.ty));
                    if let Some(v) = &s.default {
                        text.push_str(" = ");
                        text.push_str(&value(v, self.indent, text.len()));
                    }
                    self.line(&text);
                    self.end(s.span);
                }
                ImagePart::Instance(i) => self.instance(i),
                ImagePart::Export(e) => {
                    self.start(e.link.span, &None, true);
                    self.line(&format!("export {}", link(&e.link, 0)));
                    self.end(e.link.span);
                }
                ImagePart::Startup(s) => {
                    self.start(s.span, &None, true);
                    let mut text = format!("{} {}", s.verb.verb.as_str(), s.path.path);
                    if let Some(p) = &s.payload {
                        text.push(' ');
                        let at = text.len();
                        text.push_str(&match p {
                            Payload::Message(v) => value(v, self.indent, at),
                            Payload::Slot(i) => i.name.clone(),
                            Payload::Text(t) => string(&t.value),
                            Payload::Typed(c, t) => format!("{} {}", c.ct.text, string(&t.value)),
                        });
                    }
                    self.line(&text);
                    self.end(s.span);
                }
                ImagePart::Needs(n) => self.needs(n),
                ImagePart::Error(_) => {}
            }
        }
        self.close(img.span.end().saturating_sub(1));
        self.end(img.span);
    }

    fn instance(&mut self, i: &Instance) {
        self.start(i.span, &i.doc, true);
        self.doc(&i.doc);
        let wires: Vec<(&str, &Link)> = i
            .wiring
            .iter()
            .filter_map(|w| match w {
                Wire::Mount(l) => Some(("mount", l)),
                Wire::Bind(l) => Some(("bind", l)),
                Wire::Error(_) => None,
            })
            .collect();
        let head = format!("instance {} = {}", i.name.name, i.object.name);
        match wires.as_slice() {
            [] => self.line(&head),
            [(kind, l)] => self.line(&format!("{head} {{ {kind} {} }}", link(l, 0))),
            _ => {
                self.open(&head);
                let width = wires
                    .iter()
                    .map(|(_, l)| l.to.path.to_string().chars().count())
                    .max()
                    .unwrap_or(0);
                for (kind, l) in wires {
                    self.start(l.span, &None, true);
                    // `bind` padded to the width of `mount`: one column of paths.
                    self.line(&format!("{kind:<5} {}", link(l, width)));
                    self.end(l.span);
                }
                self.close(i.span.end().saturating_sub(1));
            }
        }
        self.end(i.span);
    }
}
