//! `othc fmt [--check] FILE...`: the canonical layout, comments kept.

use std::path::PathBuf;

use clap::Args;

use super::{EXIT_ERRORS, EXIT_OK, EXIT_USAGE};
use othc::diagnostics::{Diagnostics, render};
use othc::printer;
use othc::source::SourceMap;

#[derive(Args)]
pub struct FmtArgs {
    /// The .oth files to format in place
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Change nothing; exit 1 if any file is not formatted, naming it
    #[arg(long)]
    pub check: bool,
}

pub fn run(args: FmtArgs) -> u8 {
    let mut status = EXIT_OK;
    for path in &args.files {
        let text = match std::fs::read(path)
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
            eprintln!("would reformat {}", path.display());
            status = EXIT_ERRORS;
        } else if let Err(e) = std::fs::write(path, &formatted) {
            eprintln!("error: cannot write `{}`: {e}", path.display());
            return EXIT_USAGE;
        } else {
            eprintln!("formatted {}", path.display());
        }
    }
    status
}
