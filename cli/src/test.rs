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
    #[arg(long, value_name = "NAME", conflicts_with = "image")]
    pub object: Option<String>,

    /// Test this image of the file from outside, through its exports,
    /// instead of its objects one by one: each case is a fresh run of it
    #[arg(long, value_name = "NAME")]
    pub image: Option<String>,

    /// With --image: send unsafe verbs (write, create, remove) through its
    /// exports too; they change what it keeps (its files, say), so they
    /// are left out unless asked for
    #[arg(long, requires = "image")]
    pub writes: bool,

    /// With --image: a value file of `slot = Value` lines for the image's
    /// slots, as `othc run` takes it (repeatable; later files win)
    #[arg(long = "values", value_name = "FILE", requires = "image")]
    pub values: Vec<PathBuf>,

    /// With --image: set one slot, as `othc run --set` does (repeatable;
    /// wins over value files and defaults)
    #[arg(long = "set", value_name = "SLOT=VALUE", requires = "image")]
    pub set: Vec<String>,

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
    let inputs = othc::ValueInputs {
        files: args.values.clone(),
        sets: args.set.clone(),
    };
    let mut compiled =
        match compile_and_report(std::slice::from_ref(&args.file), &inputs, &args.report) {
            Ok(c) => c,
            Err(status) => return usage(status),
        };
    if args.image.is_some() {
        return run_image(args, compiled);
    }
    let objects = match objects_to_test(&args, &compiled) {
        Ok(o) => o,
        Err(status) => return status,
    };
    let built = match build(&args, &mut compiled) {
        Ok((built, _)) => built,
        Err(status) => return status,
    };
    let seed = args.seed.unwrap_or_else(fresh_seed);
    let opts = options(&args, seed);
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
        let Some(module) = load(name, &b.path) else {
            return EXIT_USAGE;
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
    finish(&args, seed, &reports)
}

/// The objects `args` asks to test (every object the file declares, or
/// the one `--object` names), or the usage error that says why none.
fn objects_to_test(
    args: &TestArgs,
    compiled: &othc::Compilation,
) -> Result<Vec<othc::model::ObjectId>, u8> {
    let model = &compiled.checked.model;
    let mut objects = compiled.root_objects();
    let names: Vec<String> = objects
        .iter()
        .map(|&o| model.object(o).name.clone())
        .collect();
    if let Some(want) = &args.object {
        objects.retain(|&o| model.object(o).name == *want);
        if objects.is_empty() {
            declares_no(args, "object", want, &names);
            return Err(EXIT_USAGE);
        }
    }
    if objects.is_empty() {
        let images: Vec<String> = compiled
            .root_images()
            .into_iter()
            .map(|i| compiled.checked.model.image(i).name.clone())
            .collect();
        let hint = match images.first() {
            Some(i) => format!("; to test its image through its exports: --image {i}"),
            None => String::new(),
        };
        eprintln!(
            "error: `{}` declares no object to test (`othc test` tests the objects a file declares){hint}",
            args.file.display()
        );
        return Err(EXIT_USAGE);
    }
    Ok(objects)
}

/// Object `name`'s module at `path`, compiled; `None` (said why) when it
/// cannot be.
fn load(name: &str, path: &std::path::Path) -> Option<othismo_runtime::probe::Module> {
    let module = std::fs::read(path)
        .map_err(|e| e.to_string())
        .and_then(|bytes| {
            othismo_runtime::probe::Module::new(&bytes, othismo_runtime::Limits::default())
                .map_err(|e| e.to_string())
        });
    match module {
        Ok(m) => Some(m),
        Err(e) => {
            eprintln!(
                "error: `{name}`'s module `{}` cannot be loaded: {e}",
                path.display()
            );
            None
        }
    }
}

/// `othc test FILE --image NAME`: the image built, its modules' code
/// compiled once, then tested through its exports.
fn run_image(args: TestArgs, mut compiled: othc::Compilation) -> u8 {
    let want = args.image.clone().unwrap_or_default();
    let Some(id) = image_named(&args, &compiled, &want) else {
        return EXIT_USAGE;
    };
    let entries = othc_contracts::image::exported(&compiled.checked, id, args.writes);
    if let Some(why) = nothing_to_send(&compiled.checked, id, &entries, args.writes) {
        eprintln!("error: image `{want}` {why}");
        return EXIT_USAGE;
    }
    let (built, opts) = match build(&args, &mut compiled) {
        Ok(b) => b,
        Err(status) => return status,
    };
    let bundle = othc_driver::build::build_images(&compiled, &built, &opts)
        .map_err(|e| e.to_string())
        .and_then(|paths| {
            let path = paths
                .into_iter()
                .find(|p| p.file_stem().is_some_and(|s| s == want.as_str()))
                .ok_or_else(|| format!("image `{want}` was not bundled"))?;
            std::fs::read(&path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))
        });
    let code = opts.out.join(".test-code");
    let bundle =
        match bundle.and_then(|b| othc_contracts::image::compile_code(&b, &code).map(|()| b)) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("error: {e}");
                return EXIT_USAGE;
            }
        };
    let seed = args.seed.unwrap_or_else(fresh_seed);
    let subject = othc_contracts::image::Subject {
        checked: &compiled.checked,
        image: id,
        bundle: &bundle,
        code: &code,
        entries,
    };
    eprintln!(
        "testing image `{want}` through its exports ({} exported {}{}; {} cases; seed {seed}: `--seed {seed}` makes the same requests again)",
        subject.entries.len(),
        if subject.entries.len() == 1 {
            "entry"
        } else {
            "entries"
        },
        if args.writes {
            ""
        } else {
            " of safe verbs, --writes for the others"
        },
        args.cases
    );
    let began = Instant::now();
    let r = othc_contracts::image::test_image(&subject, &options(&args, seed));
    show(
        &compiled.front.sources,
        &args,
        seed,
        &r,
        began.elapsed().as_secs_f64(),
    );
    finish(&args, seed, &[r])
}

/// The image of the file named `want`; `None` (said, with the file's
/// images) when it declares none of that name.
fn image_named(
    args: &TestArgs,
    compiled: &othc::Compilation,
    want: &str,
) -> Option<othc::model::ImageId> {
    let model = &compiled.checked.model;
    let images: Vec<(othc::model::ImageId, String)> = (compiled.root_images().into_iter())
        .map(|i| (i, model.image(i).name.clone()))
        .collect();
    if let Some(&(id, _)) = images.iter().find(|(_, n)| n == want) {
        return Some(id);
    }
    let names: Vec<&str> = images.iter().map(|(_, n)| n.as_str()).collect();
    declares_no(args, "image", want, &names);
    None
}

/// Says that the file declares no `kind` named `want` to test, and what it
/// declares.
fn declares_no(args: &TestArgs, kind: &str, want: &str, names: &[impl AsRef<str>]) {
    let declared = if names.is_empty() {
        "none".to_string()
    } else {
        othc::diagnostics::wording::quote_list(names)
    };
    let file = args.file.display();
    eprintln!("error: `{file}` declares no {kind} `{want}` to test (its {kind}s: {declared})");
}

/// Why image `id`, whose exported entries are `entries` (`writes`: unsafe
/// verbs too), gives a test nothing to send, if it does: a test that
/// checks no request is no test.
fn nothing_to_send(
    checked: &othc::check::Checked,
    id: othc::model::ImageId,
    entries: &[othc_contracts::image::Exported],
    writes: bool,
) -> Option<String> {
    if !entries.is_empty() {
        return None;
    }
    if checked.model.image(id).exports.is_empty() {
        return Some(
            "exports nothing, so a test has nothing to send it: export what callers use \
             (`export /PATH /INSTANCE/PATH` in the image), or test its objects \
             (`othc test FILE --object NAME`)"
                .into(),
        );
    }
    Some(if writes {
        "exports no path any instance serves: check where its `export` lines lead (`othc ns`)"
            .into()
    } else {
        "exports only unsafe verbs (write, create, remove): add --writes to send them".into()
    })
}

/// How the cases run.
fn options(args: &TestArgs, seed: u64) -> Options {
    Options {
        cases: args.cases,
        seed,
        round_trip: args.round_trip,
        shrink_budget: 3000,
        show: args.show,
    }
}

/// The file's objects built as `args` asks (unoptimized unless
/// `--release`), and how; the usage status when one does not build.
fn build(
    args: &TestArgs,
    compiled: &mut othc::Compilation,
) -> Result<(Vec<othc::bundle::Built>, BuildOptions), u8> {
    let profile = if args.release {
        Profile::Release
    } else {
        Profile::Debug
    };
    let opts = BuildOptions {
        compilers: crate::build::command_line_compilers(),
        ..BuildOptions::new(out_dir(args), profile)
    };
    let mut diags = othc::Diagnostics::new();
    let built = build_objects(compiled, &opts, &mut diags);
    print_diagnostics(&compiled.front.sources, &diags, &args.report);
    if diags.has_errors() {
        return Err(EXIT_USAGE);
    }
    Ok((built, opts))
}

/// Where modules are built: `--out`, or `build/` beside the file.
fn out_dir(args: &TestArgs) -> PathBuf {
    args.out.clone().unwrap_or_else(|| {
        args.file
            .parent()
            .map(|p| p.join("build"))
            .unwrap_or_else(|| PathBuf::from("build"))
    })
}

/// The JUnit file, if asked for, and the exit status.
fn finish(args: &TestArgs, seed: u64, reports: &[Report]) -> u8 {
    if let Some(path) = &args.junit {
        let xml = report::junit(&args.file.display().to_string(), seed, reports);
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

/// `w` as one word of a POSIX shell's command line: as it is when it has
/// nothing the shell reads, else in single quotes.
fn shell_word(w: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-=:,+@%".contains(c);
    if !w.is_empty() && w.chars().all(plain) {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', r"'\''"))
    }
}

/// A finding for people: its diagnostic, how to replay it, what happened.
fn human(sources: &othc::source::SourceMap, args: &TestArgs, seed: u64, f: &Failure) {
    let mut diags = othc::Diagnostics::new();
    diags.push(f.finding.to_diagnostic());
    print_diagnostics(sources, &diags, &args.report);
    let mut err = std::io::stderr().lock();
    let which = match &args.image {
        Some(i) => {
            let mut which = format!("--image {i}{}", if args.writes { " --writes" } else { "" });
            // The image's slots as they were given: a replay runs the same image.
            for v in &args.values {
                which.push_str(&format!(
                    " --values {}",
                    shell_word(&v.display().to_string())
                ));
            }
            for set in &args.set {
                which.push_str(&format!(" --set {}", shell_word(set)));
            }
            which
        }
        None => format!("--object {}", f.finding.object),
    };
    let _ = writeln!(
        err,
        "  replay: othc test {} {which} --seed {seed}{}{}",
        args.file.display(),
        if args.round_trip { " --round-trip" } else { "" },
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
