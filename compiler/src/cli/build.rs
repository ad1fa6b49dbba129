//! `othc build FILE.oth [--out DIR] [--release|--debug]`.

use std::path::PathBuf;

use clap::Args;

use super::check::{ReportArgs, compile_and_report, print_diagnostics};
use super::{EXIT_ERRORS, EXIT_OK};
use othc::build::{Options, build_images, build_objects};
use othc::toolchain::Profile;

#[derive(Args)]
pub struct BuildArgs {
    /// The .oth files to build: their objects, and the objects their images use
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Where to write the modules (default: `build/` beside the first file)
    #[arg(long = "out", value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// A value file for the images' slots (repeatable; later files win)
    #[arg(long = "values", value_name = "FILE")]
    pub values: Vec<PathBuf>,

    /// Set one slot, `--set 'greeting=Greeting { prefix: "Yo ", excited: true }'`
    /// (repeatable; wins over value files and defaults)
    #[arg(long = "set", value_name = "SLOT=VALUE")]
    pub set: Vec<String>,

    /// Optimize (the default)
    #[arg(long, conflicts_with = "debug")]
    pub release: bool,

    /// Compile without optimizing, with debug information
    #[arg(long)]
    pub debug: bool,

    #[command(flatten)]
    pub report: ReportArgs,
}

pub fn run(args: BuildArgs) -> u8 {
    let inputs = othc::ValueInputs {
        files: args.values.clone(),
        sets: args.set.clone(),
    };
    let compiled = match compile_and_report(&args.files, &inputs, &args.report) {
        Ok(c) => c,
        Err(status) => return status,
    };
    let out = args.out.clone().unwrap_or_else(|| {
        args.files[0]
            .parent()
            .map(|p| p.join("build"))
            .unwrap_or_else(|| PathBuf::from("build"))
    });
    let opts = Options::new(
        out,
        if args.debug {
            Profile::Debug
        } else {
            Profile::Release
        },
    );
    eprintln!("building into {}", opts.out.display());
    let mut diags = othc::Diagnostics::new();
    let built = build_objects(&compiled, &opts, &mut diags);
    print_diagnostics(&compiled.front.sources, &diags, &args.report);
    if diags.has_errors() {
        return EXIT_ERRORS;
    }
    let bundles = match build_images(&compiled, &built, &opts) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_ERRORS;
        }
    };
    let fresh = built.iter().filter(|b| !b.cached).count();
    eprintln!(
        "built {} module(s) ({} compiled, {} unchanged) and {} image bundle(s)",
        built.len(),
        fresh,
        built.len() - fresh,
        bundles.len()
    );
    EXIT_OK
}
