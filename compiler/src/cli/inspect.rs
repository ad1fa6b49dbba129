//! `othc inspect M.wasm`: what a built module says about itself.

use std::path::PathBuf;

use clap::Args;

use super::{EXIT_ERRORS, EXIT_OK, EXIT_USAGE};
use othc::wasm;

#[derive(Args)]
pub struct InspectArgs {
    /// A module built by `othc build`
    #[arg(value_name = "MODULE")]
    pub file: PathBuf,
}

pub fn run(args: InspectArgs) -> u8 {
    let bytes = match std::fs::read(&args.file) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: cannot read `{}`: {e}", args.file.display());
            return EXIT_USAGE;
        }
    };
    if args.file.extension().is_some_and(|e| e == "othimg") {
        eprintln!(
            "error: `{}` is an image bundle; `othc inspect` reads modules so far (bundles come with image builds)",
            args.file.display()
        );
        return EXIT_USAGE;
    }
    let sections = match wasm::custom_sections(&bytes) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: `{}`: {e}", args.file.display());
            return EXIT_ERRORS;
        }
    };
    let text = match wasm::header_source(&bytes) {
        Ok(t) => t,
        Err(e) => {
            eprintln!(
                "error: `{}` has no Othismo header: {e}",
                args.file.display()
            );
            return EXIT_ERRORS;
        }
    };
    println!("# {}: {} bytes", args.file.display(), bytes.len());
    println!("# sections:");
    for (name, len) in &sections {
        println!("#   {name} ({len} bytes)");
    }
    let problems = othc::abi_check::problems(&bytes);
    if problems.is_empty() {
        println!("# host ABI: kept");
    } else {
        println!("# host ABI: broken: {}", problems.join("; "));
    }
    println!();
    print!("{text}");
    if !text.ends_with('\n') {
        println!();
    }
    EXIT_OK
}
