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
    let compiled = match othc::compile(&FsLoader, files, inputs) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return Err(EXIT_USAGE);
        }
    };
    let front = &compiled.front;
    print_diagnostics(&front.sources, &front.diags, report);
    if front.diags.has_errors() {
        // The process ends soon: freeing every tree one by one would only cost time.
        std::mem::forget(compiled);
        return Err(EXIT_ERRORS);
    }
    Ok(compiled)
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
    match compile_and_report(&args.files, &inputs, &args.report) {
        Ok(compiled) => {
            std::mem::forget(compiled);
            EXIT_OK
        }
        Err(status) => status,
    }
}
