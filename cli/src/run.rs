//! `othc run IMAGE.oth [--image NAME]`: build (cached) and run in this
//! process, or on a crucible host with `--on` ([`super::remote`]);
//! `othc run NAME.othimg` runs a bundle as it is.

use std::path::PathBuf;

use clap::Args;

use super::build::{BuildOptions, build, bundle_named};
use super::{EXIT_ERRORS, EXIT_USAGE};
use othismo_runtime::Limits;

#[derive(Args)]
pub struct RunArgs {
    /// The image to run: a .oth file (built first) or a bundle (.othimg)
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Which image of the file to run, when it declares several (default: the
    /// first)
    #[arg(long, value_name = "NAME")]
    pub image: Option<String>,

    #[command(flatten)]
    pub options: BuildOptions,

    /// Print a line per delivery on stderr: each request, answer, error and
    /// cancel, in the order the runtime delivers them
    #[arg(long)]
    pub trace: bool,

    #[command(flatten)]
    pub limits: Limits,

    /// Run on a crucible host instead of in this process:
    /// crucible://HOST:PORT (a sandbox is created for the run and deleted
    /// after it) or crucible://HOST:PORT/SANDBOX (an existing one)
    #[arg(long, value_name = "URL")]
    pub on: Option<String>,

    /// The crucible host's key (with --on)
    #[arg(long, env = "CRUCIBLE_KEY", requires = "on", hide_env_values = true)]
    pub key: Option<String>,
}

pub fn run(args: RunArgs) -> u8 {
    if args.options.watch {
        return super::watch::watch(std::slice::from_ref(&args.file), &args.options.values);
    }
    // A bad host is said before anything is built.
    let host = match args.on.as_deref().map(super::remote::parse_host) {
        Some(Ok(h)) => Some(h),
        Some(Err(e)) => {
            eprintln!("error: --on {e}");
            return EXIT_USAGE;
        }
        None => None,
    };
    let path = if args.file.extension().is_some_and(|e| e == "othimg") {
        args.file.clone()
    } else {
        let to_run = Some(args.image.as_deref());
        let bundles = match build(std::slice::from_ref(&args.file), &args.options, to_run) {
            Ok(b) => b,
            Err(status) => return status,
        };
        let chosen = match &args.image {
            Some(name) => bundle_named(&bundles, name),
            None => bundles.first().map(PathBuf::as_path),
        };
        match chosen {
            Some(p) => p.to_path_buf(),
            None => {
                match &args.image {
                    Some(name) => eprintln!(
                        "error: `{}` has no image `{name}` to run",
                        args.file.display()
                    ),
                    None => eprintln!(
                        "error: `{}` declares no image to run (an image block instantiates objects and wires them)",
                        args.file.display()
                    ),
                }
                return EXIT_USAGE;
            }
        }
    };
    if let Some(host) = &host {
        eprintln!("running {} on crucible://{}", path.display(), host.addr);
        return super::remote::run_on(host, args.key.clone(), &path, &args.limits, args.trace);
    }
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: cannot read `{}`: {e}", path.display());
            return EXIT_USAGE;
        }
    };
    eprintln!("running {}", path.display());
    match othismo_runtime::run_on_stdio(&bytes, args.limits, args.trace) {
        Ok(0) => 0,
        Ok(_) => EXIT_ERRORS,
        Err(e) => {
            eprintln!("error: cannot load `{}`: {e}", path.display());
            EXIT_USAGE
        }
    }
}
