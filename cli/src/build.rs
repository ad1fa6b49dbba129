//! `othc build FILE.oth... [--out DIR] [--release|--debug]`.

use std::path::{Path, PathBuf};

use clap::Args;

use super::check::{ReportArgs, compile_and_report, print_diagnostics};
use super::{EXIT_ERRORS, EXIT_OK, EXIT_USAGE};
use othc_driver::build::{Options, build_images, build_objects};
use othc_driver::resident::{Compilers, SOCKET_ENV, Tier};
use othc_driver::toolchain::Profile;

#[derive(Args)]
pub struct BuildArgs {
    /// The .oth files to build: their objects, and the objects their images use
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,

    #[command(flatten)]
    pub options: BuildOptions,
}

/// What `othc build` and `othc run` share.
#[derive(Args)]
pub struct BuildOptions {
    /// Where to write the modules and bundles (default: `build/` beside the
    /// first file)
    #[arg(long = "out", value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// A value file for the images' slots (repeatable; later files win)
    #[arg(long = "values", value_name = "FILE")]
    pub values: Vec<PathBuf>,

    /// Set one slot, `--set 'greeting=Greeting { prefix: "Yo ", excited: true }'`
    /// (repeatable; wins over value files and defaults)
    #[arg(long = "set", value_name = "SLOT=VALUE")]
    pub set: Vec<String>,

    /// Optimize: binaryen -O3, no assertions (the default of `othc build`)
    #[arg(long, conflicts_with = "debug")]
    pub release: bool,

    /// Compile without optimizing, with debug information: about twice as
    /// fast to build (the default of `othc run`)
    #[arg(long)]
    pub debug: bool,

    /// Do it again whenever an input changes (the .oth files and what they
    /// import, the implementations beside them, the value files); `othc run`
    /// stops the running image first. Ctrl-C stops watching
    #[arg(long)]
    pub watch: bool,

    #[command(flatten)]
    pub report: ReportArgs,
}

/// Builds the objects and image bundles of `files`; the bundles written, or
/// the exit status to stop with.
/// The compilers of a command-line build: it compiles a few modules and
/// ends, so they stay at the baseline tier; under `othc --watch` (which runs
/// the command in a new program each time) they are the watcher's shared
/// process, whose socket it passes in `SOCKET_ENV`.
pub fn command_line_compilers() -> std::sync::Arc<Compilers> {
    let shared = std::env::var_os(SOCKET_ENV).map(PathBuf::from);
    std::sync::Arc::new(Compilers::new(Tier::Baseline, shared))
}

pub fn build(
    files: &[PathBuf],
    o: &BuildOptions,
    to_run: Option<Option<&str>>,
) -> Result<Vec<PathBuf>, u8> {
    let inputs = othc::ValueInputs {
        files: o.values.clone(),
        sets: o.set.clone(),
    };
    let mut compiled = compile_and_report(files, &inputs, &o.report)?;
    if let Some(image) = to_run {
        runnable(&compiled, &files[0], image)?;
    }
    let out = o.out.clone().unwrap_or_else(|| {
        files[0]
            .parent()
            .map(|p| p.join("build"))
            .unwrap_or_else(|| PathBuf::from("build"))
    });
    // `othc run` is the edit-and-try loop: it builds fast unless asked to
    // optimize. `othc build` makes what ships: optimized unless asked not to.
    let profile = if o.release {
        Profile::Release
    } else if o.debug || to_run.is_some() {
        Profile::Debug
    } else {
        Profile::Release
    };
    let opts = Options {
        compilers: command_line_compilers(),
        ..Options::new(out, profile)
    };
    eprintln!(
        "building into {} ({})",
        opts.out.display(),
        match (profile, to_run.is_some()) {
            (Profile::Debug, true) => "debug; --release to optimize",
            (Profile::Debug, false) => "debug",
            (Profile::Release, _) => "release",
        }
    );
    let mut diags = othc::Diagnostics::new();
    let built = build_objects(&mut compiled, &opts, &mut diags);
    print_diagnostics(&compiled.front.sources, &diags, &o.report);
    if diags.has_errors() {
        return Err(EXIT_ERRORS);
    }
    let bundles = build_images(&compiled, &built, &opts).map_err(|e| {
        eprintln!("error: {e}");
        EXIT_ERRORS
    })?;
    let fresh = built.iter().filter(|b| !b.cached).count();
    eprintln!(
        "built {} module(s) ({} compiled, {} unchanged) and {} image bundle(s)",
        built.len(),
        fresh,
        built.len() - fresh,
        bundles.len()
    );
    Ok(bundles)
}

pub fn run(args: BuildArgs) -> u8 {
    if args.options.watch {
        return super::watch::watch(&args.files, &args.options.values);
    }
    match build(&args.files, &args.options, None) {
        Ok(_) => EXIT_OK,
        Err(status) => status,
    }
}

/// The bundle of image `name` among `bundles` (`NAME.othimg`).
/// Before building anything for `othc run`: the file has the image asked
/// for (`Some(name)`), or any image (`None`); else a usage error saying so.
fn runnable(c: &othc::Compilation, file: &Path, image: Option<&str>) -> Result<(), u8> {
    let model = &c.checked.model;
    let images: Vec<&str> = c
        .root_images()
        .into_iter()
        .map(|i| model.image(i).name.as_str())
        .collect();
    match image {
        Some(name) if !images.contains(&name) => {
            let has = if images.is_empty() {
                "it declares none".to_string()
            } else {
                format!("it has {}", othc::diagnostics::wording::quote_list(&images))
            };
            eprintln!(
                "error: `{}` has no image `{name}` to run ({has})",
                file.display()
            );
            Err(EXIT_USAGE)
        }
        None if images.is_empty() => {
            eprintln!(
                "error: `{}` declares no image to run (an image block instantiates objects and wires them)",
                file.display()
            );
            Err(EXIT_USAGE)
        }
        _ => Ok(()),
    }
}

pub fn bundle_named<'b>(bundles: &'b [PathBuf], name: &str) -> Option<&'b Path> {
    bundles
        .iter()
        .find(|b| b.file_stem().is_some_and(|s| s == name))
        .map(PathBuf::as_path)
}
