//! `othc check FILE...`, and the reporting every command shares.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::Args;

use super::fs::FsLoader;
use super::{ColorChoice, EXIT_ERRORS, EXIT_OK, EXIT_USAGE, MessageFormat};
use othc::Compilation;
use othc::diagnostics::render;

/// How diagnostics are printed: every command that compiles takes these.
#[derive(Args, Clone)]
pub struct ReportArgs {
    /// How to print diagnostics
    #[arg(long, value_enum, default_value_t, value_name = "FORMAT")]
    pub message_format: MessageFormat,

    /// When to colour human-readable output
    #[arg(long, value_enum, default_value_t, value_name = "WHEN")]
    pub color: ColorChoice,
}

#[derive(Args)]
pub struct CheckArgs {
    /// The .oth files to check
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// A value file of `slot = Value` lines for the image's slots (repeatable;
    /// later files win)
    #[arg(long = "values", value_name = "FILE")]
    pub values: Vec<PathBuf>,

    /// Set one slot: `--set 'greeting=Greeting { prefix: "Yo, ", excited: true }'`
    /// (repeatable; wins over value files and defaults)
    #[arg(long = "set", value_name = "SLOT=VALUE")]
    pub set: Vec<String>,

    /// Also check a placement of an image on a cluster's nodes: a file of
    /// `image NAME` and `node NAME: INSTANCE, ...` lines (book: "Running
    /// across machines")
    #[arg(long, value_name = "FILE")]
    pub placement: Option<PathBuf>,

    #[command(flatten)]
    pub report: ReportArgs,
}

/// Compiles `files` and prints every diagnostic; `Err(status)` when the
/// command must stop (files unreadable, or errors found).
pub fn compile_and_report(
    files: &[PathBuf],
    inputs: &othc::ValueInputs,
    report: &ReportArgs,
) -> Result<Compilation, u8> {
    let compiled = compile(files, inputs)?;
    report_compiled(compiled, report)
}

/// Compiles `files`; `Err(status)` when they cannot be read at all.
pub fn compile(files: &[PathBuf], inputs: &othc::ValueInputs) -> Result<Compilation, u8> {
    othc::compile(&FsLoader, files, inputs).map_err(|e| {
        eprintln!("error: {e}");
        EXIT_USAGE
    })
}

/// Prints the diagnostics of `compiled`; `Err(status)` when it has errors.
pub fn report_compiled(compiled: Compilation, report: &ReportArgs) -> Result<Compilation, u8> {
    let front = &compiled.front;
    print_diagnostics(&front.sources, &front.diags, report);
    if front.diags.has_errors() {
        // The process ends soon: freeing every tree one by one would only cost time.
        std::mem::forget(compiled);
        return Err(EXIT_ERRORS);
    }
    Ok(compiled)
}

/// Checks the placement file `path` against the image of `compiled` it
/// names (its diagnostics join the compilation's); the placement and the
/// image. `Err(status)` when the file cannot be read.
pub fn check_placement(
    compiled: &mut Compilation,
    path: &std::path::Path,
) -> Result<(othc::placement::Placement, Option<othc::model::ImageId>), u8> {
    let text = read_placement(path)?;
    Ok(othc::placement::check_in(
        compiled,
        path.display().to_string(),
        text,
    ))
}

/// The text of placement file `path`, or the usage error that says why not.
pub fn read_placement(path: &std::path::Path) -> Result<String, u8> {
    std::fs::read_to_string(path).map_err(|e| {
        eprintln!("error: cannot read the placement `{}`: {e}", path.display());
        EXIT_USAGE
    })
}

/// Prints diagnostics as `report` asks.
pub fn print_diagnostics(
    sources: &othc::source::SourceMap,
    diags: &othc::Diagnostics,
    report: &ReportArgs,
) {
    match report.message_format {
        MessageFormat::Human => {
            let color = match report.color {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => std::io::stderr().is_terminal(),
            };
            let text = render::human(sources, diags, color);
            let _ = std::io::stderr().write_all(text.as_bytes());
        }
        MessageFormat::Json => {
            let text = render::json(sources, diags);
            let _ = std::io::stdout().write_all(text.as_bytes());
        }
    }
}

pub fn run(args: CheckArgs) -> u8 {
    let inputs = othc::ValueInputs {
        files: args.values.clone(),
        sets: args.set.clone(),
    };
    let mut compiled = match compile(&args.files, &inputs) {
        Ok(c) => c,
        Err(status) => return status,
    };
    if let Some(path) = &args.placement
        && let Err(status) = check_placement(&mut compiled, path)
    {
        return status;
    }
    match report_compiled(compiled, &args.report) {
        Ok(compiled) => {
            std::mem::forget(compiled);
            EXIT_OK
        }
        Err(status) => status,
    }
}
