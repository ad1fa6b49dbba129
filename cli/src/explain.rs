//! `othc explain CODE`: the code's book page.

use clap::Args;

use super::{EXIT_OK, EXIT_USAGE};
use othc::Code;
use othc::diagnostics::codes;

#[derive(Args)]
pub struct ExplainArgs {
    /// A code such as E0503 (or 0503, or its name, like `import-cycle`)
    pub code: Option<String>,
}

pub fn run(args: ExplainArgs) -> u8 {
    match args.code {
        None => {
            for info in codes::ALL {
                println!("{}  {:<24} {}", info.id, info.slug, info.summary);
            }
            EXIT_OK
        }
        Some(c) => match Code::parse(&c) {
            Some(code) => {
                print!("{}", code.info().page);
                EXIT_OK
            }
            None => match codes::RETIRED
                .iter()
                .find(|r| r.id.eq_ignore_ascii_case(c.trim()))
            {
                Some(r) => {
                    print!("{}", r.page);
                    EXIT_OK
                }
                None => {
                    eprintln!("error: `{c}` is not an othc code; `othc explain` lists them all");
                    EXIT_USAGE
                }
            },
        },
    }
}
