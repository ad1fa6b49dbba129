//! `othc test FILE.oth [--object NAME]`: contract tests generated from the
//! headers of the objects a file declares, run on the runtime's host
//! (book: reference/testing.md). Exit status: 0 every contract kept, 1 a
//! contract broken, 2 usage or build error.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use super::check::{ReportArgs, compile_and_report, print_diagnostics};
use super::{EXIT_ERRORS, EXIT_OK, EXIT_USAGE, MessageFormat};
use othc::diagnostics::ToDiagnostic;
use othc_contracts::{Failure, Options, Report, report};
use othc_driver::build::{Options as BuildOptions, build_objects};
use othc_driver::toolchain::Profile;

#[derive(Args)]
pub struct TestArgs {
    /// The .oth file whose objects are tested
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Only this object (default: every object the file declares)
    #[arg(long, value_name = "NAME")]
    pub object: Option<String>,

    /// Cases per object, spread over its serves entries in turn; each case
    /// is a fresh instance sent one to three generated requests
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub cases: u64,

    /// The seed of the generated requests: the same seed makes the same
    /// requests and the same findings (default: a new one, printed)
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,

    /// Also hold a write then a read of the same path to reading back what
    /// was written, where the object serves both
    #[arg(long)]
    pub round_trip: bool,

    /// Print what happened in case N of each object (its requests, what
    /// the object asked of its needs and what it answered), found or not
    #[arg(long, value_name = "N")]
    pub show: Option<u64>,

    /// Write the findings as JUnit XML to FILE, for CI
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,

    /// Build the modules optimized (default: unoptimized, with assertions,
    /// which find more)
    #[arg(long)]
    pub release: bool,

    /// Where the modules are built (default: `build/` beside the file)
    #[arg(long = "out", value_name = "DIR")]
    pub out: Option<PathBuf>,

    #[command(flatten)]
    pub report: ReportArgs,
}

pub fn run(args: TestArgs) -> u8 {
    // A file with errors, or that cannot be built, is not tested: 2.
    let usage = |status: u8| {
        if status == EXIT_OK {
            EXIT_OK
        } else {
            EXIT_USAGE
        }
    };
    let inputs = othc::ValueInputs::default();
    let mut compiled =
        match compile_and_report(std::slice::from_ref(&args.file), &inputs, &args.report) {
            Ok(c) => c,
            Err(status) => return usage(status),
        };
    let model = &compiled.checked.model;
    let mut objects = compiled.root_objects();
    let names: Vec<String> = objects
        .iter()
        .map(|&o| model.object(o).name.clone())
        .collect();
    if let Some(want) = &args.object {
        objects.retain(|&o| model.object(o).name == *want);
        if objects.is_empty() {
            eprintln!(
                "error: `{}` declares no object `{want}` to test (its objects: {})",
                args.file.display(),
                if names.is_empty() {
                    "none".to_string()
                } else {
                    othc::diagnostics::wording::quote_list(&names)
                }
            );
            return EXIT_USAGE;
        }
    }
    if objects.is_empty() {
        eprintln!(
            "error: `{}` declares no object to test (`othc test` tests the objects a file declares)",
            args.file.display()
        );
        return EXIT_USAGE;
    }
    let out = args.out.clone().unwrap_or_else(|| {
        args.file
            .parent()
            .map(|p| p.join("build"))
            .unwrap_or_else(|| PathBuf::from("build"))
    });
    let profile = if args.release {
        Profile::Release
    } else {
        Profile::Debug
    };
    othc_driver::resident::expect_few_compilations();
    let mut diags = othc::Diagnostics::new();
    let built = build_objects(&mut compiled, &BuildOptions::new(out, profile), &mut diags);
    print_diagnostics(&compiled.front.sources, &diags, &args.report);
    if diags.has_errors() {
        return EXIT_USAGE;
    }
    let seed = args.seed.unwrap_or_else(fresh_seed);
    let opts = Options {
        cases: args.cases,
        seed,
        round_trip: args.round_trip,
        shrink_budget: 3000,
        show: args.show,
    };
    let tested: Vec<&str> = objects
        .iter()
        .map(|&o| compiled.checked.model.object(o).name.as_str())
        .collect();
    eprintln!(
        "testing {} ({} cases each; seed {seed}: `--seed {seed}` makes the same requests again)",
        othc::diagnostics::wording::quote_list(&tested),
        args.cases
    );
    let mut reports = Vec::new();
    for &o in &objects {
        let name = &compiled.checked.model.object(o).name;
        let Some(b) = built.iter().find(|b| b.object == o) else {
            eprintln!("error: `{name}` was not built");
            return EXIT_USAGE;
        };
        let module = std::fs::read(&b.path)
            .map_err(|e| e.to_string())
            .and_then(|bytes| {
                othismo_runtime::probe::Module::new(&bytes, othismo_runtime::Limits::default())
            });
        let module = match module {
            Ok(m) => m,
            Err(e) => {
                eprintln!(
                    "error: `{name}`'s module `{}` cannot be loaded: {e}",
                    b.path.display()
                );
                return EXIT_USAGE;
            }
        };
        let began = Instant::now();
        let r = othc_contracts::test_object(&compiled.checked, o, &module, &opts);
        show(
            &compiled.front.sources,
            &args,
            seed,
            &r,
            began.elapsed().as_secs_f64(),
        );
        reports.push(r);
    }
    if let Some(path) = &args.junit {
        let xml = report::junit(&args.file.display().to_string(), seed, &reports);
        if let Err(e) = std::fs::write(path, xml) {
            eprintln!("error: cannot write `{}`: {e}", path.display());
            return EXIT_USAGE;
        }
    }
    let found: usize = reports.iter().map(|r| r.failures.len()).sum();
    if found > 0 {
        eprintln!("{found} contract(s) broken; `othc explain CODE` says more of each");
        EXIT_ERRORS
    } else {
        EXIT_OK
    }
}

/// A seed from the clock, for a run not told one.
fn fresh_seed() -> u64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    othc_contracts::choices::case_seed(now.as_nanos() as u64, u64::from(std::process::id()))
        % 1_000_000_000
}

/// One object's findings and summary, as `--message-format` asks.
fn show(sources: &othc::source::SourceMap, args: &TestArgs, seed: u64, r: &Report, secs: f64) {
    match args.report.message_format {
        MessageFormat::Json => {
            let mut out = std::io::stdout().lock();
            for f in &r.failures {
                let _ = writeln!(out, "{}", report::finding_json(sources, seed, f));
            }
            let _ = writeln!(out, "{}", report::summary_json(r));
        }
        MessageFormat::Human => {
            if let Some(lines) = &r.shown {
                eprintln!("{}, case {}:", r.object, args.show.unwrap_or_default());
                for l in lines {
                    eprintln!("    {l}");
                }
            }
            for f in &r.failures {
                human(sources, args, seed, f);
            }
            eprintln!(
                "{}: {} case(s), {} request(s) checked in {secs:.2} s: {}",
                r.object,
                r.cases,
                r.requests,
                match r.failures.len() {
                    0 => "every contract kept".to_string(),
                    n => format!("{n} broken"),
                }
            );
        }
    }
}

/// A finding for people: its diagnostic, how to replay it, what happened.
fn human(sources: &othc::source::SourceMap, args: &TestArgs, seed: u64, f: &Failure) {
    let mut diags = othc::Diagnostics::new();
    diags.push(f.finding.to_diagnostic());
    print_diagnostics(sources, &diags, &args.report);
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "  replay: othc test {} --object {} --seed {seed}{}",
        args.file.display(),
        f.finding.object,
        if args.cases != 200 {
            format!(" --cases {}", args.cases)
        } else {
            String::new()
        }
    );
    let _ = writeln!(err, "  what happened (case {}):", f.case);
    for line in &f.trace {
        let _ = writeln!(err, "    {line}");
    }
}
