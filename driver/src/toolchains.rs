//! One interface to the toolchain of each language an object may be
//! written in, chosen by the language the checker found its implementation
//! in (`othc::check::Language`): the build asks it for the bindings, the
//! SDK it lays out, what a module's cache key takes, the compile itself
//! and the places of the compiler's errors, and never branches on the
//! language itself. `toolchain` (AssemblyScript) and `rust_toolchain`
//! (cargo for wasm32) are the two implementations.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::resident::Compilers;
use crate::toolchain::{self, CompileError, CompilerError, Profile};
use othc::backends::stamp::Generated;
use othc::check::Language;
use othc::model::{FileIx, Model};

/// What the build asks of a language's toolchain.
pub trait Toolchain: Sync {
    /// The bindings of `.oth` file `file` (`text` its source) in this
    /// language.
    fn bindings(&self, model: &Model, file: FileIx, text: &str) -> Generated;
    /// The SDK laid out for every build: (path in it, contents).
    fn sdk_files(&self) -> &'static [(&'static str, &'static str)];
    /// Feeds `h` with what of the toolchain and of the implementation at
    /// `implementation` the module is made from, beyond the bindings and
    /// the SDK: the compiler's version, its flags for `profile`, the
    /// sources.
    fn key(
        &self,
        h: &mut Sha256,
        implementation: &Path,
        profile: Profile,
    ) -> Result<(), CompileError>;
    /// Compiles the implementation in `scratch`: the module's bytes. A
    /// compiler that stays resident runs in `compilers`.
    fn compile(
        &self,
        implementation: &Path,
        scratch: &Path,
        profile: Profile,
        compilers: &Compilers,
    ) -> Result<Vec<u8>, CompileError>;
    /// The errors the compiler's `output` places in the sources.
    fn compile_errors(&self, output: &str) -> Vec<CompilerError>;
    /// How progress says the compile is made (`, with cargo`).
    fn how(&self) -> &'static str;
}

/// The toolchain of `language`.
pub fn of(language: Language) -> &'static dyn Toolchain {
    match language {
        Language::AssemblyScript => &AssemblyScript,
        Language::Rust => &Rust,
    }
}

struct AssemblyScript;

impl Toolchain for AssemblyScript {
    fn bindings(&self, model: &Model, file: FileIx, text: &str) -> Generated {
        othc::backends::assemblyscript::generate(model, file, text)
    }

    fn sdk_files(&self) -> &'static [(&'static str, &'static str)] {
        toolchain::SDK_FILES
    }

    fn key(&self, h: &mut Sha256, entry: &Path, profile: Profile) -> Result<(), CompileError> {
        let (collector, asconfig) = toolchain::collector_of(entry).map_err(CompileError::Config)?;
        h.update(toolchain::ASC_VERSION);
        flags_key(h, profile, &toolchain::flags(profile, collector));
        h.update(asconfig.unwrap_or_default());
        // By content and place relative to the entry, not by where the
        // folder is: the same sources elsewhere are the same module.
        for (path, text) in local_sources(entry).map_err(CompileError::Setup)? {
            h.update(path.to_string_lossy().as_bytes());
            h.update(text);
        }
        Ok(())
    }

    fn compile(
        &self,
        entry: &Path,
        scratch: &Path,
        profile: Profile,
        compilers: &Compilers,
    ) -> Result<Vec<u8>, CompileError> {
        toolchain::compile(entry, scratch, profile, compilers)
    }

    fn compile_errors(&self, output: &str) -> Vec<CompilerError> {
        toolchain::compile_errors(output)
    }

    fn how(&self) -> &'static str {
        ""
    }
}

/// What a module's cache key takes from how the AssemblyScript compiler
/// is run: the profile and every flag, each apart (a changed flag once
/// reused modules built without it).
pub(crate) fn flags_key(h: &mut Sha256, profile: Profile, flags: &[&str]) {
    h.update(format!("{profile:?}"));
    for flag in flags {
        h.update(flag);
        h.update([0]);
    }
}

struct Rust;

impl Toolchain for Rust {
    fn bindings(&self, model: &Model, file: FileIx, text: &str) -> Generated {
        othc::backends::rust::generate(model, file, text)
    }

    fn sdk_files(&self) -> &'static [(&'static str, &'static str)] {
        crate::rust_toolchain::SDK_FILES
    }

    fn key(&self, h: &mut Sha256, manifest: &Path, profile: Profile) -> Result<(), CompileError> {
        let cargo = crate::rust_toolchain::find().map_err(CompileError::Setup)?;
        h.update(cargo.version());
        h.update(format!("{profile:?}"));
        for (path, bytes) in
            crate::rust_toolchain::package_files(manifest).map_err(CompileError::Setup)?
        {
            h.update(path.to_string_lossy().as_bytes());
            h.update(bytes);
        }
        Ok(())
    }

    fn compile(
        &self,
        manifest: &Path,
        scratch: &Path,
        profile: Profile,
        _: &Compilers,
    ) -> Result<Vec<u8>, CompileError> {
        crate::rust_toolchain::compile(manifest, scratch, profile)
    }

    fn compile_errors(&self, output: &str) -> Vec<CompilerError> {
        crate::rust_toolchain::compile_errors(output)
    }

    fn how(&self) -> &'static str {
        ", with cargo"
    }
}

/// The files `entry` imports by relative path, transitively, with itself:
/// each named relative to the entry's folder (as its imports reach it).
fn local_sources(entry: &Path) -> Result<Vec<(PathBuf, Vec<u8>)>, String> {
    let mut out = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    let root = entry.parent().map(Path::to_path_buf).unwrap_or_default();
    let first = PathBuf::from(entry.file_name().unwrap_or_default());
    let mut todo = vec![first];
    while let Some(rel) = todo.pop() {
        if !seen.insert(rel.clone()) {
            continue;
        }
        let path = root.join(&rel);
        let text =
            std::fs::read(&path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        let dir = rel.parent().map(Path::to_path_buf).unwrap_or_default();
        for spec in relative_imports(&String::from_utf8_lossy(&text)) {
            let base = dir.join(&spec);
            // `./Greeter.oth` is `Greeter.oth.ts`; `./util`, `util.ts` or `util/index.ts`.
            let candidates = [
                PathBuf::from(format!("{}.ts", base.display())),
                base.join("index.ts"),
            ];
            if let Some(found) = candidates.into_iter().find(|c| root.join(c).is_file()) {
                todo.push(found);
            }
        }
        out.push((rel, text));
    }
    out.sort();
    Ok(out)
}

/// The module specifiers of `from "./..."` and `from "../..."` in a source.
fn relative_imports(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("from") {
        rest = &rest[i + 4..];
        let trimmed = rest.trim_start();
        let Some(quote) = trimmed.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            continue;
        };
        let body = &trimmed[1..];
        if let Some(end) = body.find(quote) {
            let spec = &body[..end];
            if spec.starts_with("./") || spec.starts_with("../") {
                out.push(spec.to_string());
            }
        }
    }
    out
}
