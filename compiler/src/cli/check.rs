//! `othc check FILE...`

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::Args;

use super::fs::FsLoader;
use super::{ColorChoice, EXIT_ERRORS, EXIT_OK, EXIT_USAGE, MessageFormat};
use othc::diagnostics::render;

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

    /// How to print diagnostics
    #[arg(long, value_enum, default_value_t, value_name = "FORMAT")]
    pub message_format: MessageFormat,

    /// When to colour human-readable output
    #[arg(long, value_enum, default_value_t, value_name = "WHEN")]
    pub color: ColorChoice,
}

pub fn run(args: CheckArgs) -> u8 {
    let inputs = othc::ValueInputs {
        files: args.values.clone(),
        sets: args.set.clone(),
    };
    let compiled = match othc::compile(&FsLoader, &args.files, &inputs) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    let front = &compiled.front;
    match args.message_format {
        MessageFormat::Human => {
            let color = match args.color {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => std::io::stderr().is_terminal(),
            };
            let text = render::human(&front.sources, &front.diags, color);
            let _ = std::io::stderr().write_all(text.as_bytes());
        }
        MessageFormat::Json => {
            let text = render::json(&front.sources, &front.diags);
            let _ = std::io::stdout().write_all(text.as_bytes());
        }
    }
    let status = if front.diags.has_errors() {
        EXIT_ERRORS
    } else {
        EXIT_OK
    };
    // The process ends here: freeing every tree one by one would only cost time.
    std::mem::forget(compiled);
    status
}
