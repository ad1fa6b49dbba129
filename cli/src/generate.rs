//! `othc gen [--lang as|rust|jsonschema] FILE... [-o DIR]`: bindings for the
//! objects and types of each file (a `.oth` file, or a module built by
//! `othc build`), or the JSON Schema of its JSON message types.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use super::check::{ReportArgs, compile_and_report};
use super::{EXIT_OK, EXIT_USAGE};
use othc::backends::assemblyscript;
use othc::model::FileIx;
use write_whole::write_whole;

#[derive(Clone, Copy, ValueEnum)]
pub enum Lang {
    /// AssemblyScript, against the `othismo` SDK (`Greeter.oth.ts`)
    As,
    /// Rust, against the `othismo` crate (`Greeter.oth.rs`)
    Rust,
    /// JSON Schema (draft 2020-12) of the JSON message types
    /// (`Notes.oth.schema.json`)
    Jsonschema,
}

#[derive(Args)]
pub struct GenArgs {
    /// The language to generate
    #[arg(long, value_enum, value_name = "LANG", default_value = "as")]
    pub lang: Lang,

    /// The .oth files (or built .wasm modules) to generate bindings for
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Where to write the bindings (default: beside each file)
    #[arg(short = 'o', long = "out", value_name = "DIR")]
    pub out: Option<PathBuf>,

    #[command(flatten)]
    pub report: ReportArgs,
}

pub fn run(args: GenArgs) -> u8 {
    let compiled = match compile_and_report(&args.files, &Default::default(), &args.report) {
        Ok(c) => c,
        Err(status) => return status,
    };
    let status = write_bindings(&compiled, &args);
    // The process ends soon: freeing every tree one by one would only cost
    // time (as `othc check` does).
    std::mem::forget(compiled);
    status
}

/// Writes the bindings of each root file of `compiled`; the exit status.
fn write_bindings(compiled: &othc::Compilation, args: &GenArgs) -> u8 {
    for (root, path) in compiled.front.program.roots.iter().zip(&args.files) {
        let module = compiled.front.program.module(*root);
        let text = &compiled.front.sources.get(module.file).text;
        let model = &compiled.checked.model;
        let types = &compiled.checked.spans.types;
        let language = match args.lang {
            Lang::As => Some(othc::check::Language::AssemblyScript),
            Lang::Rust => Some(othc::check::Language::Rust),
            Lang::Jsonschema => None,
        };
        let file = FileIx(root.0);
        if let Some(e) =
            language.and_then(|l| othc::backends::formats::not_generated(model, types, file, l))
        {
            let mut diags = othc::Diagnostics::new();
            diags.report(e);
            super::check::print_diagnostics(&compiled.front.sources, &diags, &args.report);
            return super::EXIT_ERRORS;
        }
        let generated = match args.lang {
            Lang::As => assemblyscript::generate(model, file, text),
            Lang::Rust => othc::backends::rust::generate(model, file, text),
            Lang::Jsonschema => othc::backends::json_schema::generate(model, file),
        };
        let dir = match &args.out {
            Some(d) => d.clone(),
            None => path.parent().map(Path::to_path_buf).unwrap_or_default(),
        };
        if let Err(e) = std::fs::create_dir_all(if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            &dir
        }) {
            eprintln!("error: cannot create `{}`: {e}", dir.display());
            return EXIT_USAGE;
        }
        let target = dir.join(&generated.file_name);
        if let Err(e) = write_whole(&target, generated.text) {
            eprintln!(
                "error: cannot write `{}`: {e}; nothing there was changed",
                target.display()
            );
            return EXIT_USAGE;
        }
        eprintln!("wrote {}", target.display());
    }
    EXIT_OK
}
