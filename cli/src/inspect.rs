//! `othc inspect M.wasm`: what a built module says about itself.

use std::path::PathBuf;

use clap::Args;

use super::{EXIT_ERRORS, EXIT_OK, EXIT_USAGE};
use othc::bundle::tree_path;
use othc::wasm;

#[derive(Args)]
pub struct InspectArgs {
    /// A module (`.wasm`) or an image bundle (`.othimg`) built by `othc build`
    #[arg(value_name = "FILE")]
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
        return bundle(&args, &bytes);
    }
    if !bytes.starts_with(b"\0asm") {
        // Source text, most likely: not what inspect reads.
        let hint = if args.file.extension().is_some_and(|e| e == "oth") {
            "; for a .oth file, `othc check` checks it and `othc fmt` prints it canonically"
        } else {
            ""
        };
        eprintln!(
            "error: `{}` is not a WebAssembly module: `othc inspect` reads a module (.wasm) or an image bundle (.othimg) that `othc build` wrote{hint}",
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
    let text = match wasm::header_for_reading(&bytes) {
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

fn bundle(args: &InspectArgs, bytes: &[u8]) -> u8 {
    let (json, modules) = match othc::bundle::read(bytes) {
        Ok(b) => b,
        Err(e) => {
            eprintln!(
                "error: `{}` is not a valid image bundle: {e}",
                args.file.display()
            );
            return EXIT_ERRORS;
        }
    };
    println!(
        "# {}: image `{}` ({})",
        args.file.display(),
        json.image,
        json.format
    );
    println!("# modules:");
    for (name, data) in &modules {
        println!("#   {name} ({} bytes)", data.len());
    }
    println!("\ninstances:");
    for i in &json.instances {
        match (&i.module, &i.native) {
            (Some(m), _) => println!(
                "  {} = {m} (sha256 {})",
                i.name,
                i.sha256.as_deref().unwrap_or("?")
            ),
            (None, Some(n)) => println!("  {} = native {n}", i.name),
            _ => println!("  {}", i.name),
        }
        for v in &i.view {
            let ro = if v.readonly { " readonly" } else { "" };
            println!("    {} -> {}{ro}", v.at, tree_path(&v.target, &v.path));
        }
    }
    if !json.exports.is_empty() {
        println!("\nexports:");
        for e in &json.exports {
            let ro = if e.readonly { " readonly" } else { "" };
            println!("  {} -> {}{ro}", e.at, tree_path(&e.target, &e.path));
        }
    }
    if !json.startup.is_empty() {
        println!("\nstartup:");
        for s in &json.startup {
            let payload = s
                .payload
                .as_ref()
                .map(|p| format!(" ({}, {} bytes)", p.content_type, p.bytes().len()))
                .unwrap_or_default();
            println!(
                "  {} {}{payload}",
                s.verb.as_str(),
                tree_path(&s.target, &s.path)
            );
        }
    }
    EXIT_OK
}
