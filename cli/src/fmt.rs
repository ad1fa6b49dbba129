//! `othc fmt [--check] [FILE...]`: the canonical layout, comments kept.

use std::path::{Path, PathBuf};

use clap::Args;

use super::{EXIT_ERRORS, EXIT_OK, EXIT_USAGE};
use othc::diagnostics::{Diagnostics, render};
use othc::printer;
use othc::source::SourceMap;
use write_whole::write_whole;

#[derive(Args)]
pub struct FmtArgs {
    /// The .oth files to format in place; a folder stands for every .oth
    /// file under it, its hidden folders, `build`, `node_modules` and
    /// `target` left out (default: the current directory)
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Change nothing: print the changes formatting would make, as a unified
    /// diff on stdout, and exit 1 if there are any
    #[arg(long)]
    pub check: bool,
}

pub fn run(args: FmtArgs) -> u8 {
    let mut status = EXIT_OK;
    let files = match files_named(&args.files) {
        Ok(files) => files,
        Err(status) => return status,
    };
    for path in &files {
        let text = match std::fs::File::open(path)
            .and_then(othc::loader::read_bounded)
            .map_err(|e| e.to_string())
            .and_then(othc::loader::decode_source)
        {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: cannot read `{}`: {e}", path.display());
                return EXIT_USAGE;
            }
        };
        let formatted = match printer::format_file(&text) {
            Ok(f) => f,
            Err(bad) => {
                // Never rewrite what does not parse: say why, and leave it.
                let mut map = SourceMap::new();
                let file = map.add(path.display().to_string(), text);
                let mut diags = Diagnostics::new();
                for e in &bad.errors {
                    diags.syntax(file, e);
                }
                eprint!("{}", render::human(&map, &diags, false));
                eprintln!(
                    "error: `{}` does not parse, so it was left as it is",
                    path.display()
                );
                status = EXIT_ERRORS;
                continue;
            }
        };
        if formatted == text {
            continue;
        }
        if args.check {
            let name = path.display().to_string();
            print!(
                "{}",
                similar::TextDiff::from_lines(&text, &formatted)
                    .unified_diff()
                    .context_radius(2)
                    .header(&name, &name)
            );
            eprintln!("would reformat {}", path.display());
            status = EXIT_ERRORS;
        } else if let Err(e) = write_whole(path, &formatted) {
            eprintln!(
                "error: cannot write `{}`: {e}; it was left as it was",
                path.display()
            );
            return EXIT_USAGE;
        } else {
            eprintln!("formatted {}", path.display());
        }
    }
    status
}

/// The files `named` (the current directory when none is), each folder
/// as the `.oth` files under it; a folder with none is a usage error.
fn files_named(named: &[PathBuf]) -> Result<Vec<PathBuf>, u8> {
    let here = [PathBuf::from(".")];
    let named = if named.is_empty() { &here[..] } else { named };
    let mut files = Vec::new();
    for path in named {
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let mut found = Vec::new();
        oth_files_under(path, &mut found);
        if found.is_empty() {
            let shown = if path == Path::new(".") {
                "the current directory".to_string()
            } else {
                format!("`{}`", path.display())
            };
            eprintln!("error: no .oth files under {shown}; name the files to format");
            return Err(EXIT_USAGE);
        }
        found.sort();
        files.extend(found);
    }
    Ok(files)
}

/// The `.oth` files under `dir`, skipping what is not the user's sources.
fn oth_files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let name = e.file_name();
        let name = name.to_string_lossy();
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_dir() {
            if !name.starts_with('.') && !matches!(&*name, "build" | "node_modules" | "target") {
                oth_files_under(&path, out);
            }
        } else if kind.is_file() && name.ends_with(".oth") {
            out.push(
                path.strip_prefix("./")
                    .map(Path::to_path_buf)
                    .unwrap_or(path),
            );
        }
    }
}
