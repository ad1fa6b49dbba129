//! Loading a program: the root files, everything they import, transitively,
//! each parsed once; schema blocks handed to their formats; imported names
//! checked against what the imported file exports.
//!
//! Codes: E0201 (file cannot be read), E0202 (no such export), E0205 (import
//! cycle), E0207 (no format for a schemas block), E0209 (a .wasm without a
//! valid header).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use oth_syntax::Span;
use oth_syntax::Trivia;
use oth_syntax::ast::{self, Item};

use crate::diagnostics::{Diagnostics, Severity};
use crate::formats::{Formats, SchemaBlock};
use crate::loader::{Loader, decode_source, normalize};
pub use crate::model::DeclKind;
use crate::source::{FileId, FileSpan, SourceMap};
use crate::wasm;

mod errors;
pub use errors::LoadError;

/// The import path of the runtime's own header.
pub const ENV_IMPORT: &str = "othismo:env";
/// The runtime's native objects (book: reference/running.md), embedded so any image anywhere can use them.
pub const ENV_SOURCE: &str = include_str!("../../../sdk/env/Runtime.oth");

/// A loaded file is known by the index it keeps in the model
/// (`Program::modules[i]` is `Model::files[i]`), and by where it came from
/// as the model says it.
pub use crate::model::{FileIx, Origin};

/// One loaded file.
pub struct Module {
    pub file: FileId,
    /// The normalized path (or `othismo:env`): a file is loaded once per key.
    pub key: PathBuf,
    pub origin: Origin,
    /// The file's tree; `schemas` holds what the format parsed from each
    /// `schemas` item's body (whose text is in the source map).
    pub ast: ast::File,
    pub trivia: Vec<Trivia>,
    /// One per `schemas` item, in order.
    pub schemas: Vec<ParsedSchemas>,
    /// One per `import` item, in order: the module it names, if it loaded.
    pub imports: Vec<Option<FileIx>>,
}

pub struct ParsedSchemas {
    /// Index of the `schemas` item in `ast.items`.
    pub item: usize,
    /// `None` when no format takes the block (E0207).
    pub parsed: Option<FormatBlock>,
}

/// A block as its format read it.
pub struct FormatBlock {
    /// The format's content type, as `Format::content_type` gives it.
    pub format: &'static str,
    pub block: Box<dyn SchemaBlock>,
}

/// A name a file declares at top level.
#[derive(Clone, Debug)]
pub struct Declared {
    pub name: String,
    pub kind: DeclKind,
    pub span: Span,
    pub exported: bool,
}

/// What one item of a file declares (see [`Module::declares`]).
pub enum Declares<'a> {
    Object(&'a ast::Object),
    Image(&'a ast::Image),
    /// A schemas block's types, as its format read them.
    Types {
        format: &'static str,
        types: Vec<crate::formats::DeclaredType<'a>>,
    },
}

/// An item that declares names: its index in the file's items, whether
/// what it declares is exported, and what it declares.
pub struct DeclaringItem<'a> {
    pub item: usize,
    pub exported: bool,
    pub declares: Declares<'a>,
}

impl Module {
    /// The items that declare names, in source order: the one walk that
    /// says what a file declares and what it exports (the resolver's
    /// import checks and the lowering both read it). A schemas block no
    /// format reads declares nothing.
    pub fn declares(&self) -> impl Iterator<Item = DeclaringItem<'_>> {
        // Everything in a compiled module's header is there to be used.
        let all_exported = self.origin != Origin::Source;
        let mut blocks = self.schemas.iter();
        self.ast
            .items
            .iter()
            .enumerate()
            .filter_map(move |(item, it)| {
                let (export, declares) = match it {
                    Item::Object(o) => (o.export.is_some(), Declares::Object(o)),
                    Item::Image(i) => (i.export.is_some(), Declares::Image(i)),
                    Item::Schemas(s) => {
                        let parsed = blocks.next()?.parsed.as_ref()?;
                        let types = parsed.block.declared();
                        let format = parsed.format;
                        (s.export.is_some(), Declares::Types { format, types })
                    }
                    Item::Import(_) | Item::Error(_) => return None,
                };
                Some(DeclaringItem {
                    item,
                    exported: all_exported || export,
                    declares,
                })
            })
    }

    /// Objects, images, and the types of its schema blocks, in source order.
    pub fn declarations(&self) -> Vec<Declared> {
        let mut out = Vec::new();
        for d in self.declares() {
            let exported = d.exported;
            match d.declares {
                Declares::Object(o) => out.push(Declared {
                    name: o.name.name.clone(),
                    kind: DeclKind::Object,
                    span: o.name.span,
                    exported,
                }),
                Declares::Image(i) => out.push(Declared {
                    name: i.name.name.clone(),
                    kind: DeclKind::Image,
                    span: i.name.span,
                    exported,
                }),
                Declares::Types { types, .. } => out.extend(types.into_iter().map(|t| Declared {
                    name: t.name.to_string(),
                    kind: t.kind,
                    span: t.span,
                    exported,
                })),
            }
        }
        out
    }
}

pub struct Program {
    pub modules: Vec<Module>,
    /// The files named on the command line, in order.
    pub roots: Vec<FileIx>,
}

impl Program {
    pub fn module(&self, id: FileIx) -> &Module {
        &self.modules[id.index()]
    }
}

/// Everything the front end produced.
pub struct FrontEnd {
    pub sources: SourceMap,
    pub diags: Diagnostics,
    pub program: Program,
    /// The formats schema blocks were handed to: the checker lowers with
    /// the same ones (made once, here).
    pub formats: Formats,
}

/// Why a file could not be read.
#[derive(Debug)]
enum ReadFailure {
    NotFound,
    /// A `.wasm` module without a usable header (E0209 when imported).
    NoHeader(String),
    /// Anything else: permissions, not UTF-8, binary.
    Other(String),
}

impl ReadFailure {
    fn reason(&self) -> &str {
        match self {
            ReadFailure::NotFound => "no such file",
            ReadFailure::NoHeader(r) | ReadFailure::Other(r) => r,
        }
    }
}

/// A root file that cannot be compiled at all: a usage or I/O failure.
#[derive(Debug)]
pub struct RootError {
    pub path: PathBuf,
    pub reason: String,
}

impl std::fmt::Display for RootError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot read `{}`: {}", self.path.display(), self.reason)
    }
}

/// Loads, parses and resolves the imports of `roots`.
pub fn load(loader: &dyn Loader, roots: &[PathBuf]) -> Result<FrontEnd, RootError> {
    let mut r = Resolver {
        loader,
        formats: Formats::default(),
        sources: SourceMap::new(),
        diags: Diagnostics::new(),
        modules: Vec::new(),
        by_key: HashMap::new(),
        visiting: Vec::new(),
    };
    let mut root_ids = Vec::new();
    for root in roots {
        let key = normalize(root);
        if let Some(&id) = r.by_key.get(&key) {
            root_ids.push(id);
            continue;
        }
        let id = r.read(&key).map_err(|f| RootError {
            path: root.clone(),
            reason: f.reason().to_string(),
        })?;
        r.visit_from(id, None);
        root_ids.push(id);
    }
    r.check_imported_names();
    Ok(FrontEnd {
        sources: r.sources,
        diags: r.diags,
        program: Program {
            modules: r.modules,
            roots: root_ids,
        },
        formats: r.formats,
    })
}

struct Resolver<'a> {
    loader: &'a dyn Loader,
    formats: Formats,
    sources: SourceMap,
    diags: Diagnostics,
    modules: Vec<Module>,
    by_key: HashMap<PathBuf, FileIx>,
    /// The import chain being followed: each module and the import that led to it.
    visiting: Vec<(FileIx, Option<FileSpan>)>,
}

impl Resolver<'_> {
    /// Reads and parses one file.
    fn read(&mut self, key: &Path) -> Result<FileIx, ReadFailure> {
        let (name, text, origin) = if key == Path::new(ENV_IMPORT) {
            (ENV_IMPORT.to_string(), ENV_SOURCE.to_string(), Origin::Env)
        } else {
            let bytes = self.loader.load(key).map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => ReadFailure::NotFound,
                _ => ReadFailure::Other(io_reason(&e)),
            })?;
            let name = key.display().to_string();
            if key.extension().is_some_and(|e| e == "wasm") {
                let text = wasm::header_source(&bytes).map_err(ReadFailure::NoHeader)?;
                (
                    format!("{name}#{}", wasm::HEADER_SECTION),
                    text,
                    Origin::Wasm,
                )
            } else {
                let text = decode_source(bytes).map_err(ReadFailure::Other)?;
                (name, text, Origin::Source)
            }
        };
        let file = self.sources.add(name, text);
        let parsed = oth_syntax::parse_file(&self.sources.get(file).text);
        // The file's own syntax and its schema blocks' format errors, together.
        let mut found = Diagnostics::new();
        for e in &parsed.errors {
            found.syntax(file, e);
        }
        let mut schemas = Vec::new();
        for (i, item) in parsed.tree.items.iter().enumerate() {
            if let Item::Schemas(s) = item {
                schemas.push(self.parse_schemas(file, i, s, &mut found));
            }
        }
        if origin == Origin::Wasm {
            // Nobody wrote this text by hand: an error in it means the module's
            // header is broken, which the importer hears as E0209.
            if let Some(d) = found
                .sorted()
                .into_iter()
                .find(|d| d.severity == Severity::Error)
            {
                let at = self.sources.get(file).line_col(d.primary.at.span.start());
                return Err(ReadFailure::NoHeader(format!(
                    "its header does not parse (line {}, column {}: {})",
                    at.line, at.column, d.code
                )));
            }
        } else {
            self.diags.append(found);
        }
        let imports = parsed.tree.imports().map(|_| None).collect();
        let id = FileIx(self.modules.len() as u32);
        self.modules.push(Module {
            file,
            key: key.to_path_buf(),
            origin,
            ast: parsed.tree,
            trivia: parsed.trivia,
            schemas,
            imports,
        });
        self.by_key.insert(key.to_path_buf(), id);
        Ok(id)
    }

    fn parse_schemas(
        &self,
        file: FileId,
        item: usize,
        s: &ast::SchemasBlock,
        diags: &mut Diagnostics,
    ) -> ParsedSchemas {
        match self.formats.find(&s.content_type.ct) {
            Some(format) => ParsedSchemas {
                item,
                parsed: Some(FormatBlock {
                    format: format.content_type(),
                    block: format.parse_block(
                        file,
                        &self.sources.get(file).text[s.body.range()],
                        s.body.start(),
                        diags,
                    ),
                }),
            },
            None => {
                // A malformed content type was reported already (E0107).
                if s.content_type.ct.valid {
                    diags.report(LoadError::NoFormat {
                        at: FileSpan::new(file, s.content_type.span),
                        content_type: s.content_type.ct.text.clone(),
                        known: self.formats.names().iter().map(|n| n.to_string()).collect(),
                    });
                }
                ParsedSchemas { item, parsed: None }
            }
        }
    }

    /// Follows the imports of `id`, depth first; `site` is the import that led here.
    fn visit_from(&mut self, id: FileIx, site: Option<FileSpan>) {
        self.visiting.push((id, site));
        let m = &self.modules[id.index()];
        let file = m.file;
        let dir = m.key.parent().map(Path::to_path_buf).unwrap_or_default();
        let imports: Vec<(String, Span)> = m
            .ast
            .imports()
            .map(|imp| (imp.from.value.clone(), imp.from.span))
            .collect();
        for (n, (from, span)) in imports.into_iter().enumerate() {
            let at = FileSpan::new(file, span);
            let key = if from == ENV_IMPORT {
                PathBuf::from(ENV_IMPORT)
            } else {
                normalize(&dir.join(&from))
            };
            let target = match self.by_key.get(&key) {
                Some(&t) => {
                    if let Some(pos) = self.visiting.iter().position(|(m, _)| *m == t) {
                        self.report_cycle(pos, at);
                    }
                    Some(t)
                }
                None => match self.read(&key) {
                    Ok(t) => {
                        self.visit_from(t, Some(at));
                        Some(t)
                    }
                    Err(failure) => {
                        self.report_unreadable(at, &from, &key, failure);
                        None
                    }
                },
            };
            self.modules[id.index()].imports[n] = target;
        }
        self.visiting.pop();
    }

    fn report_unreadable(&mut self, at: FileSpan, from: &str, key: &Path, failure: ReadFailure) {
        let from = from.to_string();
        let looked = key.display().to_string();
        self.diags.report(match failure {
            ReadFailure::NoHeader(reason) => LoadError::NoHeader { at, from, reason },
            ReadFailure::NotFound => LoadError::NotFound { at, from, looked },
            ReadFailure::Other(reason) => LoadError::Unreadable {
                at,
                from,
                looked,
                reason,
            },
        });
    }

    /// `visiting[pos..]` is the chain from the imported module back to the importer.
    fn report_cycle(&mut self, pos: usize, at: FileSpan) {
        let chain = self.visiting[pos..]
            .iter()
            .map(|(m, site)| {
                let name = self.sources.get(self.modules[m.index()].file).name.clone();
                (name, *site)
            })
            .collect();
        self.diags.report(LoadError::Cycle { at, chain });
    }

    fn check_imported_names(&mut self) {
        for m in &self.modules {
            for (imp, target) in m.ast.imports().zip(&m.imports) {
                let Some(target) = target else { continue };
                let t = &self.modules[target.index()];
                let decls = t.declarations();
                // The path as the import writes it: the file's name as the
                // reader of this file knows it.
                let tname = imp.from.value.clone();
                for n in &imp.names {
                    let want = &n.name.name;
                    let found = decls.iter().find(|d| d.name == *want);
                    let at = FileSpan::new(m.file, n.name.span);
                    let name = want.clone();
                    let file = tname.clone();
                    match found {
                        Some(d) if d.exported => {}
                        Some(d) => self.diags.report(LoadError::Private {
                            at,
                            name,
                            file,
                            kind: d.kind.describe(),
                            declared: FileSpan::new(t.file, d.span),
                        }),
                        None => self.diags.report(LoadError::NotExported {
                            at,
                            name,
                            file,
                            exported: decls
                                .iter()
                                .filter(|d| d.exported)
                                .map(|d| d.name.clone())
                                .collect(),
                        }),
                    }
                }
            }
        }
    }
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        std::io::ErrorKind::IsADirectory => "it is a directory".into(),
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Code;
    use crate::loader::MemoryLoader;

    fn codes(loader: &MemoryLoader, root: &str) -> Vec<&'static str> {
        let fe = load(loader, &[PathBuf::from(root)]).unwrap();
        fe.diags.sorted().iter().map(|d| d.code.as_str()).collect()
    }

    #[test]
    fn env_is_embedded() {
        let mut l = MemoryLoader::new();
        l.add(
            "a.oth",
            r#"import { Console, Files, Clock, Http } from "othismo:env""#,
        );
        assert_eq!(codes(&l, "a.oth"), Vec::<&str>::new());
    }

    #[test]
    fn relative_imports_and_missing_files() {
        let mut l = MemoryLoader::new();
        l.add(
            "app/a.oth",
            r#"import { B } from "../lib/b.oth" import { C } from "c.oth""#,
        );
        l.add("lib/b.oth", "export object B { }");
        assert_eq!(codes(&l, "app/a.oth"), vec!["E0201"]);
    }

    #[test]
    fn cycles_are_reported_once() {
        let mut l = MemoryLoader::new();
        l.add("a.oth", r#"import { B } from "b.oth" export object A { }"#);
        l.add("b.oth", r#"import { A } from "a.oth" export object B { }"#);
        assert_eq!(codes(&l, "a.oth"), vec!["E0205"]);
    }

    #[test]
    fn unexported_and_unknown_names() {
        let mut l = MemoryLoader::new();
        l.add(
            "a.oth",
            r#"import { Hidden, Greter, Greeting } from "b.oth""#,
        );
        l.add(
            "b.oth",
            "object Hidden { } export object Greeter { } export schemas application/bson { message Greeting { } }",
        );
        let fe = load(&l, &[PathBuf::from("a.oth")]).unwrap();
        let d = fe.diags.sorted();
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].code, Code::E0202);
        assert_eq!(d[0].labels.len(), 1, "points at the private declaration");
        assert_eq!(d[1].help.as_deref(), Some("did you mean `Greeter`?"));
    }

    #[test]
    fn wasm_imports_read_the_header() {
        let mut l = MemoryLoader::new();
        let good = wasm::module_with_sections(&[(
            wasm::HEADER_SECTION,
            "# othismo header 1\nobject Store { serves { / read -> text/plain } }",
        )]);
        let bare = wasm::module_with_sections(&[("name", "x")]);
        // The header parses, but its schemas section does not: still a broken header.
        let bad_schemas = wasm::module_with_sections(&[
            (
                wasm::HEADER_SECTION,
                "# othismo header 1\nexport object Pad { }",
            ),
            (
                "othismo:schemas:application/bson",
                "export schemas application/bson { message M { x } }",
            ),
        ]);
        l.add("good.wasm", good)
            .add("bare.wasm", bare)
            .add("bad_schemas.wasm", bad_schemas);
        l.add(
            "a.oth",
            r#"import { Store } from "good.wasm" import { X } from "bare.wasm" import { Y } from "gone.wasm"
               import { Pad } from "bad_schemas.wasm""#,
        );
        assert_eq!(codes(&l, "a.oth"), vec!["E0209", "E0201", "E0209"]);
    }

    #[test]
    fn unknown_format() {
        let mut l = MemoryLoader::new();
        l.add(
            "a.oth",
            "schemas application/protobuf { message A {} } schemas application/BSON { }",
        );
        assert_eq!(codes(&l, "a.oth"), vec!["E0207"]);
    }
}
