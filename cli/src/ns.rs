//! `othc ns IMAGE.oth`: what each instance of an image sees, and through
//! what; as tables, JSON, or a Graphviz picture.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use clap::{Args, ValueEnum};

use super::check::{ReportArgs, print_diagnostics};
use super::{EXIT_ERRORS, EXIT_OK, EXIT_USAGE, MessageFormat};
use othc::wiring::{self, ImageWiring};

#[derive(Args)]
pub struct NsArgs {
    /// The image: a .oth file declaring it, or a bundle (.othimg) built by
    /// `othc build`
    #[arg(value_name = "IMAGE")]
    pub file: PathBuf,

    /// Which image of the file (needed when it declares more than one)
    #[arg(long, value_name = "NAME")]
    pub image: Option<String>,

    /// Only this instance's view
    #[arg(long, value_name = "NAME")]
    pub instance: Option<String>,

    /// What to print: tables, a Graphviz DOT graph, or an SVG picture
    /// rendered by Graphviz's `dot`
    #[arg(long, value_enum, default_value_t, value_name = "FORMAT")]
    pub format: NsFormat,

    /// `--set SLOT=VALUE` as for `othc check`
    #[arg(long = "set", value_name = "SLOT=VALUE")]
    pub set: Vec<String>,

    /// A placement of the image on a cluster's nodes: checked as by `othc
    /// check --placement`, and each instance shows the nodes that run it.
    /// The placement's `image` line picks the image
    #[arg(long, value_name = "FILE")]
    pub placement: Option<PathBuf>,

    #[command(flatten)]
    pub report: ReportArgs,
}

#[derive(Clone, Copy, ValueEnum, Default, PartialEq)]
pub enum NsFormat {
    /// Each instance's view as a table, then what the image serves
    #[default]
    Table,
    /// A Graphviz graph (instances, mounts, exports, startup requests)
    Dot,
    /// The graph drawn as SVG by Graphviz's `dot`
    Svg,
}

pub fn run(args: NsArgs) -> u8 {
    let (w, status) = match wiring_of(&args) {
        Ok(x) => x,
        Err(code) => return code,
    };
    if let Some(name) = &args.instance
        && !w.instances.iter().any(|i| &i.name == name)
    {
        let names: Vec<&str> = w.instances.iter().map(|i| i.name.as_str()).collect();
        eprintln!(
            "error: image `{}` has no instance `{name}`; its instances: {}",
            w.image,
            names.join(", ")
        );
        return EXIT_USAGE;
    }
    let only = args.instance.as_deref();
    let out = match (args.format, args.report.message_format) {
        (NsFormat::Table, MessageFormat::Json) => {
            let mut w = w;
            if let Some(n) = only {
                w.instances.retain(|i| i.name == n);
            }
            wiring::json(&w) + "\n"
        }
        (NsFormat::Table, MessageFormat::Human) => wiring::text::render(&w, only),
        (NsFormat::Dot, _) => wiring::dot::render(&w),
        (NsFormat::Svg, _) => match svg(&wiring::dot::render(&w)) {
            Ok(s) => s,
            Err(why) => {
                eprintln!("error: {why}");
                return EXIT_USAGE;
            }
        },
    };
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
    {
        eprintln!("error: writing the report: {e}");
        return EXIT_ERRORS;
    }
    status
}

/// The wiring of the image asked for, and the status to end with (1 when
/// the image or the placement has errors: the report shows what resolved).
fn wiring_of(args: &NsArgs) -> Result<(ImageWiring, u8), u8> {
    if args.file.extension().is_some_and(|e| e == "othimg") {
        return wiring_of_bundle(args);
    }
    let inputs = othc::ValueInputs {
        files: Vec::new(),
        sets: args.set.clone(),
    };
    let mut c = super::check::compile(std::slice::from_ref(&args.file), &inputs)?;
    let placed = match &args.placement {
        Some(path) => Some(super::check::check_placement(&mut c, path)?),
        None => None,
    };
    print_diagnostics(&c.front.sources, &c.front.diags, &args.report);
    let status = if c.front.diags.has_errors() {
        EXIT_ERRORS
    } else {
        EXIT_OK
    };
    let model = &c.checked.model;
    let declared = c.root_images();
    let image = match &placed {
        // The placement names the image (its errors said so if it did not).
        Some((_, Some(id))) if args.image.is_none() => *id,
        Some((_, None)) if args.image.is_none() => return Err(status),
        _ => {
            let names: Vec<&str> = declared
                .iter()
                .map(|&i| model.image(i).name.as_str())
                .collect();
            let why = ": `othc ns` shows an image's wiring";
            let pick = super::pick::one(&args.file, "image", &names, args.image.as_deref(), why)
                .map_err(|e| {
                    eprintln!("error: {e}");
                    // A file with errors and no image: its errors said why.
                    if declared.is_empty() && args.image.is_none() && status != EXIT_OK {
                        status
                    } else {
                        EXIT_USAGE
                    }
                })?;
            declared[pick]
        }
    };
    let mut w = wiring::of_image(&c, image);
    if let Some((p, _)) = &placed {
        wiring::place(&mut w, p);
    }
    Ok((w, status))
}

/// The wiring a bundle holds, placed as `--placement` says.
fn wiring_of_bundle(args: &NsArgs) -> Result<(ImageWiring, u8), u8> {
    let bytes = std::fs::read(&args.file).map_err(|e| {
        eprintln!("error: cannot read `{}`: {e}", args.file.display());
        EXIT_USAGE
    })?;
    let read = othc::bundle::read(&bytes)
        .map_err(String::from)
        .and_then(|(json, _)| wiring::bundle::of_bundle(&bytes).map(|w| (json, w)));
    let (json, mut w) = read.map_err(|e| {
        eprintln!("error: `{}`: {e}", args.file.display());
        EXIT_ERRORS
    })?;
    let Some(path) = &args.placement else {
        return Ok((w, EXIT_OK));
    };
    let text = super::check::read_placement(path)?;
    let mut sources = othc::source::SourceMap::new();
    let mut diags = othc::Diagnostics::new();
    let image = othc::placement::PlacedImage::of_bundle(&json);
    let p = othc::placement::check_text(
        &mut sources,
        &mut diags,
        path.display().to_string(),
        text,
        &image,
    );
    print_diagnostics(&sources, &diags, &args.report);
    wiring::place(&mut w, &p);
    Ok((
        w,
        if diags.has_errors() {
            EXIT_ERRORS
        } else {
            EXIT_OK
        },
    ))
}

/// SVG drawn by Graphviz's `dot` from DOT text.
fn svg(dot: &str) -> Result<String, String> {
    let missing = "Graphviz's `dot` is not installed, and `--format svg` needs it: install \
         Graphviz (Debian/Ubuntu: `apt-get install graphviz`; macOS: `brew install graphviz`), \
         or print `--format dot` and render it elsewhere";
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => missing.to_string(),
            _ => format!("cannot run Graphviz's `dot`: {e}"),
        })?;
    // Written from a thread: `dot` may fill its output pipe before it has
    // read all its input.
    let mut stdin = child.stdin.take().ok_or("no pipe to `dot`")?;
    let text = dot.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
    let out = child
        .wait_with_output()
        .map_err(|e| format!("running Graphviz's `dot`: {e}"))?;
    let _ = writer.join();
    if !out.status.success() {
        return Err(format!(
            "Graphviz's `dot` failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    String::from_utf8(out.stdout)
        .map_err(|_| "Graphviz's `dot` wrote something that is not text".into())
}
