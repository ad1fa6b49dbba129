mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = match cli::Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let usage = e.use_stderr();
            let _ = e.print();
            // --help and --version are not failures.
            return ExitCode::from(if usage { cli::EXIT_USAGE } else { cli::EXIT_OK });
        }
    };
    let status = match cli.command {
        cli::Command::Check(args) => cli::check::run(args),
        cli::Command::Gen(args) => cli::generate::run(args),
        cli::Command::Fmt(args) => cli::fmt::run(args),
        cli::Command::Build(args) => cli::build::run(args),
        cli::Command::Inspect(args) => cli::inspect::run(args),
        cli::Command::Explain(args) => cli::explain::run(args),
    };
    ExitCode::from(status)
}
