//! `othismo-run NAME.othimg` runs an image bundle; `othismo-run IMAGE.oth
//! [--set SLOT=VALUE]... [--values FILE]...` builds the image first (with
//! othc's cache, into `build/` beside it) and runs it. Standard input lines
//! go to the console's watchers; its writes go to standard output.
//!
//! Exit status: 0 when the image went idle and its input ended; 1 when an
//! instance trapped, a startup request failed, or the image does not build;
//! 2 when the bundle could not be loaded or the arguments are wrong.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "usage: othismo-run NAME.othimg
       othismo-run IMAGE.oth [--set SLOT=VALUE]... [--values FILE]...

Runs an image: a bundle built by `othc build`, or a .oth file, built first.
Console input comes from stdin, console output goes to stdout.
Exit status: 0 done; 1 an instance trapped, a startup request failed or the
image does not build; 2 the bundle could not be loaded, or bad arguments.";

struct Disk;

impl othc::loader::Loader for Disk {
    fn load(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        if path.is_dir() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::IsADirectory,
                "is a directory",
            ));
        }
        std::fs::read(path)
    }
}

/// Builds `file` and returns its first image's bundle, or the exit status.
fn build(file: &Path, inputs: &othc::ValueInputs) -> Result<Vec<u8>, u8> {
    let c = othc::compile(&Disk, &[file.to_path_buf()], inputs).map_err(|e| {
        eprintln!("error: {e}");
        2u8
    })?;
    eprint!(
        "{}",
        othc::diagnostics::render::human(&c.front.sources, &c.front.diags, false)
    );
    if c.front.diags.has_errors() {
        return Err(1);
    }
    let out = file
        .parent()
        .map(|p| p.join("build"))
        .unwrap_or_else(|| PathBuf::from("build"));
    let opts = othc::build::Options::new(out, othc::toolchain::Profile::Release);
    let mut diags = othc::Diagnostics::new();
    let built = othc::build::build_objects(&c, &opts, &mut diags);
    eprint!(
        "{}",
        othc::diagnostics::render::human(&c.front.sources, &diags, false)
    );
    if diags.has_errors() {
        return Err(1);
    }
    let bundles = othc::build::build_images(&c, &built, &opts).map_err(|e| {
        eprintln!("error: {e}");
        1u8
    })?;
    let Some(first) = bundles.first() else {
        eprintln!("error: `{}` declares no image to run", file.display());
        return Err(2);
    };
    std::fs::read(first).map_err(|e| {
        eprintln!("error: cannot read `{}`: {e}", first.display());
        2u8
    })
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let mut file: Option<PathBuf> = None;
    let mut inputs = othc::ValueInputs::default();
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--set" | "--values" => {
                let Some(v) = it.next() else {
                    eprintln!("error: `{a}` needs a value\n\n{USAGE}");
                    return ExitCode::from(2);
                };
                if a == "--set" {
                    inputs.sets.push(v);
                } else {
                    inputs.files.push(PathBuf::from(v));
                }
            }
            _ if file.is_none() => file = Some(PathBuf::from(a)),
            _ => {
                eprintln!("error: unexpected `{a}`\n\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let Some(file) = file else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let bundle = if file.extension().is_some_and(|e| e == "oth") {
        match build(&file, &inputs) {
            Ok(b) => b,
            Err(status) => return ExitCode::from(status),
        }
    } else {
        match std::fs::read(&file) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("error: cannot read `{}`: {e}", file.display());
                return ExitCode::from(2);
            }
        }
    };
    let input: Vec<String> = std::io::stdin()
        .lock()
        .lines()
        .map_while(Result::ok)
        .collect();
    let mut out = std::io::stdout().lock();
    let mut err = std::io::stderr();
    match othismo_runtime::Runtime::load(&bundle, input, &mut out, &mut err) {
        Ok(rt) => ExitCode::from(rt.run() as u8),
        Err(e) => {
            eprintln!("error: cannot load `{}`: {e}", file.display());
            ExitCode::from(2)
        }
    }
}
