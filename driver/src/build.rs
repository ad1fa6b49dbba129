//! `othc build`: compiled modules that describe themselves (book: reference/bundles.md).
//!
//! For each object a build compiles: its bindings are generated (or found
//! stale, E0703), its implementation compiled by the toolchain of the
//! language the checker found it in (`toolchains`: the pinned
//! AssemblyScript compiler, E0701, or cargo, E0705, with the compiler's
//! output), the result is held against the host
//! ABI (E0702), and its header and schemas are appended as custom sections.
//! A module whose inputs are unchanged is taken from the cache; the others
//! compile in resident compiler processes, side by side when
//! `Compilers::at_once` says so. Progress goes to stderr.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use sha2::{Digest, Sha256};

use crate::build_errors::BuildError;
use crate::resident::Compilers;
use crate::toolchain::{self, Profile};
use crate::toolchains;
use othc::Compilation;
use othc::backends::stamp::{self, Written};
use othc::bundle::{Built, sha256_hex};
use othc::check::{Implementation, Language, check_implementations, prebuilt_objects};
use othc::diagnostics::Diagnostics;
use othc::loader::Loader;
use othc::model::{FileIx, ObjectId};
use othc::source::FileSpan;
use write_whole::write_whole;

pub struct Options {
    /// Where modules (and bundles) are written.
    pub out: PathBuf,
    pub profile: Profile,
    /// Where compiled modules are kept by the hash of their inputs
    /// (`toolchain::cache_dir()/modules` by default).
    pub cache: PathBuf,
    /// The resident compilers modules are compiled in (the process-wide
    /// pool by default; the command line makes its own).
    pub compilers: Arc<Compilers>,
}

impl Options {
    pub fn new(out: PathBuf, profile: Profile) -> Options {
        Options {
            out,
            profile,
            cache: toolchain::cache_dir().join("modules"),
            compilers: Compilers::process_wide(),
        }
    }
}

/// The disk, for telling which implementation files are there.
struct Disk;

impl Loader for Disk {
    fn load(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        othc::loader::read_bounded(std::fs::File::open(path)?)
    }
}

/// A module's compiled bytes and whether they came from the cache, or the
/// compiler's output when it failed.
type Compiled = Result<(Vec<u8>, bool), toolchain::CompileError>;

/// The hash a generated file's first line carries.
fn bindings_hash(text: &str) -> Option<&str> {
    let line = text.lines().next()?;
    let start = line.find("(sha256 ")? + "(sha256 ".len();
    line.get(start..start + 64)
}

/// Compiles every object the root files declare or instantiate.
pub fn build_objects(c: &mut Compilation, opts: &Options, diags: &mut Diagnostics) -> Vec<Built> {
    let mut failed: Vec<(Implementation, toolchain::CompileError)> = Vec::new();
    let built = build_modules(c, opts, diags, &mut failed);
    // The compiler's errors point into the implementations: those files
    // join the source map, so each error is shown (and given as JSON) at
    // its place in the `.ts` file.
    for (imp, error) in failed {
        let o = imp.object;
        let object = c.checked.model.object(o).name.clone();
        let at = c.checked.spans.objects[o.index()].name;
        match error {
            toolchain::CompileError::Compiler { output } => {
                let located = locate_errors(&mut c.front.sources, &imp, &output);
                diags.report(BuildError::Compiler {
                    object,
                    at,
                    output,
                    located,
                    language: imp.language,
                });
            }
            toolchain::CompileError::Config(reason) => {
                diags.report(BuildError::Config { object, at, reason });
            }
            toolchain::CompileError::Setup(reason) => {
                diags.report(BuildError::Setup { object, at, reason });
            }
        }
    }
    built
}

/// The compiler's errors that name a place in the implementation (or a
/// file it imports by relative path), at that place.
fn locate_errors(
    sources: &mut othc::source::SourceMap,
    imp: &Implementation,
    output: &str,
) -> Vec<(othc::source::FileSpan, String)> {
    let dir = imp.path.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut files: Vec<(PathBuf, othc::source::FileId)> = Vec::new();
    let mut out = Vec::new();
    let errors = toolchains::of(imp.language).compile_errors(output);
    for e in errors.into_iter().take(10) {
        let Some(place) = e.place else { continue };
        let path = dir.join(&place.file);
        let file = match files.iter().find(|(p, _)| *p == path) {
            Some((_, id)) => *id,
            None => {
                let Ok(text) = std::fs::read_to_string(&path) else {
                    continue;
                };
                let id = sources.add(path.display().to_string(), text);
                files.push((path.clone(), id));
                id
            }
        };
        let text = &sources.get(file).text;
        let Some(start) = offset_of(text, place.line, place.column) else {
            continue;
        };
        let end = (start + place.len.max(1)).min(text.len());
        let end = (start..=end)
            .rev()
            .find(|i| text.is_char_boundary(*i))
            .unwrap_or(start);
        out.push((
            othc::source::FileSpan::new(file, othc::source::Span::new(start, end)),
            e.message,
        ));
    }
    out
}

/// The byte offset of 1-based `line` and `column` (in characters).
fn offset_of(text: &str, line: usize, column: usize) -> Option<usize> {
    let start = text
        .split_inclusive('\n')
        .take(line.checked_sub(1)?)
        .map(str::len)
        .sum::<usize>();
    let rest = text.get(start..)?;
    let col = rest
        .char_indices()
        .nth(column.checked_sub(1)?)
        .map_or(rest.len(), |(i, _)| i);
    Some(start + col)
}

/// What became of a `.oth` file's bindings beside it.
enum Bindings {
    /// As generated now (found so, or written): their text.
    Ready(String),
    /// Stale, and edited by hand or of unknown making: left alone (E0703).
    Edited(PathBuf),
    /// They could not be written (E0701).
    Unwritable(PathBuf, String),
    /// They would hold a type of a format without generated codecs (E0707).
    NotGenerated(othc::backends::errors::BindingsError),
    /// Refused, and said so for an object before.
    Refused,
}

/// The bindings beside `.oth` file `file`: written when missing, rewritten
/// when stale and as othc left them, left alone when edited by hand.
fn keep_bindings(c: &Compilation, file: u32, language: Language) -> Bindings {
    let module = &c.front.program.modules[file as usize];
    let text = &c.front.sources.get(module.file).text;
    let types = &c.checked.spans.types;
    let model = &c.checked.model;
    if let Some(e) = othc::backends::formats::not_generated(model, types, FileIx(file), language) {
        return Bindings::NotGenerated(e);
    }
    let generated = toolchains::of(language).bindings(&c.checked.model, FileIx(file), text);
    let dir = module
        .key
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let bindings = dir.join(&generated.file_name);
    match std::fs::read_to_string(&bindings) {
        Ok(old) if old == generated.text => Bindings::Ready(generated.text),
        // Edited by hand, or stale with no way to tell: left alone.
        Ok(old)
            if stamp::written(&old) == Written::Edited
                || (stamp::written(&old) == Written::Unknown
                    && bindings_hash(&old) != bindings_hash(&generated.text)) =>
        {
            Bindings::Edited(bindings)
        }
        found => {
            let why = match (&found, found.as_ref().ok().and_then(|o| bindings_hash(o))) {
                (Err(_), _) => "",
                (Ok(_), Some(h)) if Some(h) != bindings_hash(&generated.text) => {
                    " (its header changed)"
                }
                _ => " (another version of othc wrote it)",
            };
            eprintln!("  generating {}{why}", bindings.display());
            match write_whole(&bindings, &generated.text) {
                Ok(()) => Bindings::Ready(generated.text),
                Err(e) => Bindings::Unwritable(bindings, e.to_string()),
            }
        }
    }
}

fn build_modules(
    c: &Compilation,
    opts: &Options,
    diags: &mut Diagnostics,
    failed: &mut Vec<(Implementation, toolchain::CompileError)>,
) -> Vec<Built> {
    let model = &c.checked.model;
    let jobs = jobs(c, diags);
    // As many at once as the compiler processes allow (one after another
    // when they tier up: see `Compilers::at_once`), the results in order.
    let results: Vec<(Implementation, Compiled)> =
        crate::in_turns::in_turns(&jobs, opts.compilers.at_once(), |(imp, bindings)| {
            let name = &model.object(imp.object).name;
            (imp.clone(), compile_cached(name, imp, bindings, opts))
        });
    // What follows a build (bundling, running an image) does not compile.
    opts.compilers.release_idle();
    let mut built = Vec::new();
    for (imp, result) in results {
        match result {
            Ok(compiled) => built.extend(finish(c, opts, imp.object, compiled, diags)),
            Err(error) => failed.push((imp, error)),
        }
    }
    for o in prebuilt_objects(&c.front, &c.checked) {
        if let Some(b) = copy_prebuilt(c, o, opts, diags) {
            built.push(b);
        }
    }
    built
}

/// What there is to compile: each implementation the checker found, with
/// the bindings it is compiled against. One bindings file per .oth file
/// (and language: a file's objects may be written in both), however many
/// of its objects are built: generated, compared and written once. An
/// object whose bindings were edited by hand or cannot be written is
/// reported instead.
fn jobs(c: &Compilation, diags: &mut Diagnostics) -> Vec<(Implementation, String)> {
    let model = &c.checked.model;
    let mut jobs = Vec::new();
    let mut bindings_of: std::collections::HashMap<(u32, Language), Bindings> =
        std::collections::HashMap::new();
    for imp in check_implementations(&c.front, &c.checked, &Disk, diags) {
        let def = model.object(imp.object);
        let module = &c.front.program.modules[def.file.index()];
        let at = c.checked.spans.objects[imp.object.index()].name;
        let kept = bindings_of
            .entry((def.file.0, imp.language))
            .or_insert_with(|| keep_bindings(c, def.file.0, imp.language));
        match kept {
            Bindings::Ready(text) => jobs.push((imp, text.clone())),
            Bindings::Edited(bindings) => diags.report(BuildError::StaleBindings {
                object: def.name.clone(),
                at,
                bindings: bindings.display().to_string(),
                source: module.key.display().to_string(),
            }),
            // Said once for the file, whatever number of its objects.
            Bindings::NotGenerated(e) => {
                diags.report(e.clone());
                *kept = Bindings::Refused;
            }
            Bindings::Refused => {}
            Bindings::Unwritable(bindings, reason) => diags.report(BuildError::Io {
                at,
                verb: "write",
                path: bindings.display().to_string(),
                what: "the bindings of this object",
                reason: reason.clone(),
            }),
        }
    }
    jobs
}

/// Object `o`'s compiled module (and whether it came from the cache),
/// held to the host ABI, given its header sections and written into the
/// build; `None` when one of those fails (reported).
fn finish(
    c: &Compilation,
    opts: &Options,
    o: ObjectId,
    (wasm, cached): (Vec<u8>, bool),
    diags: &mut Diagnostics,
) -> Option<Built> {
    let model = &c.checked.model;
    let def = model.object(o);
    let at = c.checked.spans.objects[o.index()].name;
    let problems = othc::abi_check::problems(&wasm);
    if !problems.is_empty() {
        diags.report(BuildError::BreaksAbi {
            module: def.name.clone(),
            prebuilt: false,
            at,
            problems,
        });
        return None;
    }
    let with_sections = match othc::sections::append(&wasm, &othc::sections::sections_of(model, o))
    {
        Ok(b) => b,
        Err(e) => {
            diags.report(BuildError::NoSections {
                object: def.name.clone(),
                at,
                reason: e.to_string(),
            });
            return None;
        }
    };
    let path = opts.out.join(format!("{}.wasm", def.name));
    write_module(&path, &with_sections, "its compiled module", at, diags)?;
    let from_cache = if cached {
        " (unchanged, from the cache)"
    } else {
        ""
    };
    eprintln!("  wrote {}{from_cache}", path.display());
    Some(Built {
        object: o,
        name: def.name.clone(),
        sha256: sha256_hex(&with_sections),
        path,
        cached,
    })
}

/// An object imported from a `.wasm` file: its module goes into the build
/// as it is, once it keeps the host ABI.
fn copy_prebuilt(
    c: &Compilation,
    o: ObjectId,
    opts: &Options,
    diags: &mut Diagnostics,
) -> Option<Built> {
    let def = c.checked.model.object(o);
    let at = c.checked.spans.objects[o.index()].name;
    let from = &c.front.program.modules[def.file.index()].key;
    let bytes = match std::fs::read(from) {
        Ok(b) => b,
        Err(e) => {
            diags.report(BuildError::Io {
                at,
                verb: "read",
                path: from.display().to_string(),
                what: "this object's module",
                reason: e.to_string(),
            });
            return None;
        }
    };
    let problems = othc::abi_check::problems(&bytes);
    if !problems.is_empty() {
        diags.report(BuildError::BreaksAbi {
            module: from.display().to_string(),
            prebuilt: true,
            at,
            problems,
        });
        return None;
    }
    let path = opts.out.join(format!("{}.wasm", def.name));
    if path != *from {
        write_module(&path, &bytes, "its module", at, diags)?;
    }
    Some(Built {
        object: o,
        name: def.name.clone(),
        sha256: sha256_hex(&bytes),
        path,
        cached: true,
    })
}

/// Writes a module into the build folder (made if need be), or says why
/// it could not (`what` the module is, at the object's name).
fn write_module(
    path: &Path,
    module: &[u8],
    what: &'static str,
    at: FileSpan,
    diags: &mut Diagnostics,
) -> Option<()> {
    let made = path.parent().map_or(Ok(()), std::fs::create_dir_all);
    if let Err(e) = made.and_then(|_| write_whole(path, module)) {
        diags.report(BuildError::Io {
            at,
            verb: "write",
            path: path.display().to_string(),
            what,
            reason: e.to_string(),
        });
        return None;
    }
    Some(())
}

/// The compiler's output for an implementation, from the cache when every
/// input is unchanged: what its toolchain says the module is made from
/// (the compiler's version and flags, the sources), othc's version, the
/// bindings and the SDK.
fn compile_cached(name: &str, imp: &Implementation, bindings: &str, opts: &Options) -> Compiled {
    let tc = toolchains::of(imp.language);
    let mut h = Sha256::new();
    h.update(format!("{:?}", imp.language));
    h.update(env!("CARGO_PKG_VERSION"));
    tc.key(&mut h, &imp.path, opts.profile)?;
    h.update(bindings);
    for (n, text) in tc.sdk_files() {
        h.update(n);
        h.update(text);
    }
    in_cache(h, opts, || {
        eprintln!("  compiling {name} ({}{})", imp.path.display(), tc.how());
        let scratch = opts.out.join(".build").join(name);
        tc.compile(&imp.path, &scratch, opts.profile, &opts.compilers)
    })
}

/// The module cached under the hash `h` of its inputs, or else compiled by
/// `compile` and cached (written aside, then renamed: a reader never sees
/// half a module); whether it came from the cache.
fn in_cache(
    h: Sha256,
    opts: &Options,
    compile: impl FnOnce() -> Result<Vec<u8>, toolchain::CompileError>,
) -> Compiled {
    let key: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    let cached = opts.cache.join(format!("{key}.wasm"));
    if let Ok(bytes) = std::fs::read(&cached) {
        return Ok((bytes, true));
    }
    let wasm = compile()?;
    if let Some(parent) = cached.parent() {
        let _ = std::fs::create_dir_all(parent);
        // Whole or not at all (a cache entry is trusted as it is read);
        // two objects of one implementation compiled at once write under
        // one key, each its own new file, the last rename winning. A
        // cache that cannot be written costs the next build a compile.
        let _ = write_whole(&cached, &wasm);
    }
    Ok((wasm, false))
}

/// Writes `NAME.othimg` for each image of the root files, from the modules
/// `built` (book: reference/bundles.md). Returns the bundles written.
pub fn build_images(
    c: &Compilation,
    built: &[Built],
    opts: &Options,
) -> Result<Vec<PathBuf>, String> {
    let model = &c.checked.model;
    let roots: std::collections::HashSet<usize> =
        c.front.program.roots.iter().map(|m| m.0 as usize).collect();
    let mut out = Vec::new();
    for (i, img) in model.images.iter().enumerate() {
        if !roots.contains(&img.file.index()) {
            continue;
        }
        if let Some(n) = img.needs.first() {
            // It runs only inside another image, which provides what it needs.
            eprintln!(
                "  not bundling image `{}`: it needs `{}` of the image it runs in",
                img.name, n.mount
            );
            continue;
        }
        let json = othc::bundle::image_json(&c.checked, othc::model::ImageId(i as u32), built)
            .map_err(|e| format!("cannot bundle image `{}`: {e}", img.name))?;
        let mut modules = Vec::new();
        for inst in &json.instances {
            if let Some(m) = &inst.module {
                let b = built
                    .iter()
                    .find(|b| format!("modules/{}.wasm", b.name) == *m)
                    .expect("image_json names built modules");
                let bytes = std::fs::read(&b.path)
                    .map_err(|e| format!("cannot read `{}`: {e}", b.path.display()))?;
                modules.push((m.clone(), bytes));
            }
        }
        let bytes = othc::bundle::write(&json, &modules)?;
        let path = opts.out.join(format!("{}.othimg", img.name));
        // An image of natives only built no module: the folder may be new.
        std::fs::create_dir_all(&opts.out)
            .and_then(|_| write_whole(&path, bytes))
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
        eprintln!("  wrote {}", path.display());
        out.push(path);
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
