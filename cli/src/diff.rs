//! `othc diff OLD NEW [--images IMAGE...]`: what changed between two
//! versions of an object, classified, and which images the change breaks
//! (each checked again with NEW read in OLD's place).

use std::io;
use std::path::{Path, PathBuf};

use clap::Args;

use super::check::ReportArgs;
use super::fs::FsLoader;
use super::{EXIT_ERRORS, EXIT_OK, EXIT_USAGE, MessageFormat};
use othc::diagnostics::render;
use othc::diff::{Change, Version};
use othc::loader::Loader;
use othc::model::{Model, ObjectId};

#[derive(Args)]
pub struct DiffArgs {
    /// The old version: a .oth file or a module (.wasm) built by `othc build`
    #[arg(value_name = "OLD")]
    pub old: PathBuf,

    /// The new version, of the same kind
    #[arg(value_name = "NEW")]
    pub new: PathBuf,

    /// Which object, when the files declare more than one
    #[arg(long, value_name = "NAME")]
    pub object: Option<String>,

    /// Images (.oth) to check again with NEW in OLD's place: each one the
    /// change breaks is named with the errors it would get
    #[arg(long, num_args = 1.., value_name = "IMAGE")]
    pub images: Vec<PathBuf>,

    #[command(flatten)]
    pub report: ReportArgs,
}

/// A version read from disk: the model it lives in and its object.
struct Loaded {
    model: Model,
    id: ObjectId,
}

pub fn run(args: DiffArgs) -> u8 {
    let json = matches!(args.report.message_format, MessageFormat::Json);
    let (old, new) = match (load(&args.old, &args), load(&args.new, &args)) {
        (Ok(o), Ok(n)) => (o, n),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    let changes = othc::diff::diff(
        &Version {
            model: &old.model,
            id: old.id,
        },
        &Version {
            model: &new.model,
            id: new.id,
        },
    );
    let images = match images(&args) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    let breaks = if args.images.is_empty() {
        changes.iter().any(|c| c.class.is_breaking())
    } else {
        images.iter().any(|i| i.breaks)
    };
    if json {
        let doc = serde_json::json!({
            "object": new.model.object(new.id).name,
            "changes": changes,
            "images": images.iter().map(|i| serde_json::json!({
                "image": i.path,
                "breaks": i.breaks,
                "already_broken": i.already_broken,
                "diagnostics": i.json,
            })).collect::<Vec<_>>(),
            "breaks": breaks,
        });
        println!("{doc}");
    } else {
        print!("{}", human(&old, &changes, &images));
    }
    if breaks { EXIT_ERRORS } else { EXIT_OK }
}

fn human(old: &Loaded, changes: &[Change], images: &[ImageCheck]) -> String {
    let name = &old.model.object(old.id).name;
    let mut out = String::new();
    if changes.is_empty() {
        out.push_str(&format!("object {name}: no changes\n"));
    } else {
        out.push_str(&format!("object {name}: {} change(s)\n", changes.len()));
        let width = changes
            .iter()
            .map(|c| c.class.label().len())
            .max()
            .unwrap_or(0);
        for c in changes {
            out.push_str(&format!(
                "  {:width$}  {}: {}\n",
                c.class.label(),
                c.subject,
                c.what
            ));
        }
    }
    for i in images {
        let verdict = match (i.already_broken, i.breaks) {
            (true, _) => "already has errors with the old version (not judged)",
            (false, true) => "BREAKS",
            (false, false) => "still checks",
        };
        out.push_str(&format!("\nimage {}: {verdict}\n", i.path));
        if i.breaks {
            for l in i.human.lines() {
                out.push_str(&format!("  {l}\n"));
            }
        }
    }
    out
}

fn load(path: &Path, args: &DiffArgs) -> Result<Loaded, String> {
    let shown = path.display();
    if path.extension().is_some_and(|e| e == "wasm") {
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read `{shown}`: {e}"))?;
        let h = othc::header::read(&bytes).map_err(|e| format!("`{shown}`: {e}"))?;
        let id = h
            .model
            .objects
            .iter()
            .position(|o| o.name == h.object.name && o.file == h.object.file)
            .ok_or_else(|| format!("`{shown}`: its header declares no object"))?;
        return Ok(Loaded {
            model: h.model,
            id: ObjectId(id as u32),
        });
    }
    let c = othc::compile(
        &FsLoader,
        std::slice::from_ref(&path.to_path_buf()),
        &othc::ValueInputs::default(),
    )
    .map_err(|e| e.to_string())?;
    if c.front.diags.has_errors() {
        let text = render::human(&c.front.sources, &c.front.diags, false);
        return Err(format!(
            "`{shown}` has errors; `othc diff` compares versions that check:\n{text}"
        ));
    }
    let declared = c.root_objects();
    let model = c.checked.model;
    let names: Vec<&str> = declared
        .iter()
        .map(|&o| model.object(o).name.as_str())
        .collect();
    let pick = super::pick::one(path, "object", &names, args.object.as_deref(), "")?;
    Ok(Loaded {
        model,
        id: declared[pick],
    })
}

/// One image checked again.
struct ImageCheck {
    path: String,
    /// It had errors with the old version already.
    already_broken: bool,
    /// It has errors with the new version (and had none with the old).
    breaks: bool,
    human: String,
    json: Vec<serde_json::Value>,
}

fn images(args: &DiffArgs) -> Result<Vec<ImageCheck>, String> {
    if args.images.is_empty() {
        return Ok(Vec::new());
    }
    let kind = |p: &Path| p.extension().map(|e| e.to_os_string());
    if kind(&args.old) != kind(&args.new) {
        return Err(
            "--images needs OLD and NEW of one kind (two .oth files or two .wasm modules): NEW is read in OLD's place"
                .into(),
        );
    }
    let old = std::fs::canonicalize(&args.old)
        .map_err(|e| format!("cannot read `{}`: {e}", args.old.display()))?;
    let new = std::fs::read(&args.new)
        .map_err(|e| format!("cannot read `{}`: {e}", args.new.display()))?;
    let swapped = Swapped { old, new };
    let mut out = Vec::new();
    for img in &args.images {
        let none = othc::ValueInputs::default();
        let before = othc::compile(&FsLoader, std::slice::from_ref(img), &none)
            .map_err(|e| e.to_string())?;
        let after =
            othc::compile(&swapped, std::slice::from_ref(img), &none).map_err(|e| e.to_string())?;
        let already_broken = before.front.diags.has_errors();
        let breaks = !already_broken && after.front.diags.has_errors();
        let json = render::json(&after.front.sources, &after.front.diags)
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        out.push(ImageCheck {
            path: img.display().to_string(),
            already_broken,
            breaks,
            human: render::human(&after.front.sources, &after.front.diags, false),
            json,
        });
    }
    Ok(out)
}

/// The disk, with NEW's bytes read wherever OLD's path is asked for.
struct Swapped {
    old: PathBuf,
    new: Vec<u8>,
}

impl Loader for Swapped {
    fn load(&self, path: &Path) -> io::Result<Vec<u8>> {
        if std::fs::canonicalize(path).is_ok_and(|p| p == self.old) {
            return Ok(self.new.clone());
        }
        FsLoader.load(path)
    }
}
