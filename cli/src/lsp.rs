//! `othc lsp`: the language server, over stdin and stdout.

use std::time::Duration;

use clap::Args;

#[derive(Args)]
pub struct LspArgs {
    /// Accepted for editors that pass it (VS Code's client does): the
    /// server only speaks over stdin and stdout
    #[arg(long)]
    pub stdio: bool,

    /// How long after the last edit a check starts, in milliseconds
    #[arg(long, default_value_t = 10, value_name = "MS")]
    pub debounce: u64,
}

pub fn run(args: LspArgs) -> u8 {
    let config = othc_lsp::Config {
        debounce: Duration::from_millis(args.debounce),
        ..Default::default()
    };
    othc_lsp::run_stdio(config)
}
