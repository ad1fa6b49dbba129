//! The AssemblyScript compiler, pinned, installed by othc itself: on first
//! use, `npm install` puts it into a cache folder (progress on stderr), so a
//! fresh machine needs no manual step. The SDK is embedded in this binary and
//! laid out next to each build, so othc works outside this repository.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::resident::Compilers;

/// The pinned compiler (book: reference/generated-names.md). The SDK reads
/// an object's class id from this compiler's runtime layout
/// (`sdk/assemblyscript/shape.ts`, `shapeOf`): moving the pin means
/// checking that read again (a test says so).
pub const ASC_VERSION: &str = "0.28.20";

/// The SDK's sources, embedded: (file name, text).
pub const SDK_FILES: &[(&str, &str)] = &[
    (
        "index.ts",
        include_str!("../../sdk/assemblyscript/index.ts"),
    ),
    ("abi.ts", include_str!("../../sdk/assemblyscript/abi.ts")),
    (
        "payload.ts",
        include_str!("../../sdk/assemblyscript/payload.ts"),
    ),
    ("box.ts", include_str!("../../sdk/assemblyscript/box.ts")),
    ("utf8.ts", include_str!("../../sdk/assemblyscript/utf8.ts")),
    (
        "collector.ts",
        include_str!("../../sdk/assemblyscript/collector.ts"),
    ),
    ("bson.ts", include_str!("../../sdk/assemblyscript/bson.ts")),
    (
        "bson_writer.ts",
        include_str!("../../sdk/assemblyscript/bson_writer.ts"),
    ),
    (
        "map_entries.ts",
        include_str!("../../sdk/assemblyscript/map_entries.ts"),
    ),
    (
        "shape.ts",
        include_str!("../../sdk/assemblyscript/shape.ts"),
    ),
    ("stat.ts", include_str!("../../sdk/assemblyscript/stat.ts")),
    (
        "callbacks.ts",
        include_str!("../../sdk/assemblyscript/callbacks.ts"),
    ),
    (
        "table.ts",
        include_str!("../../sdk/assemblyscript/table.ts"),
    ),
    (
        "request.ts",
        include_str!("../../sdk/assemblyscript/request.ts"),
    ),
    (
        "client.ts",
        include_str!("../../sdk/assemblyscript/client.ts"),
    ),
    (
        "server.ts",
        include_str!("../../sdk/assemblyscript/server.ts"),
    ),
    ("view.ts", include_str!("../../sdk/assemblyscript/view.ts")),
    ("host.ts", include_str!("../../sdk/assemblyscript/host.ts")),
    (
        "exports.ts",
        include_str!("../../sdk/assemblyscript/exports.ts"),
    ),
];

/// Where othc keeps what it installs: `$OTHC_CACHE`, else
/// `$XDG_CACHE_HOME/othc`, else `~/.cache/othc`.
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("OTHC_CACHE") {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(d).join("othc");
    }
    match std::env::var_os("HOME") {
        Some(h) => PathBuf::from(h).join(".cache").join("othc"),
        None => std::env::temp_dir().join("othc-cache"),
    }
}

/// Where the pinned compiler is installed in cache folder `cache`.
fn compiler_home(cache: &Path) -> PathBuf {
    cache.join(format!("assemblyscript-{ASC_VERSION}"))
}

/// Makes `cache` an empty cache folder (no modules) that uses the compiler
/// installed in this program's own cache, installing it first if needed:
/// for runs that must compile every module without installing again (the
/// build tests and bench, through `OTHC_CACHE`).
pub fn empty_cache_with_compiler(cache: &Path) -> Result<(), String> {
    asc()?;
    let _ = std::fs::remove_dir_all(cache);
    std::fs::create_dir_all(cache)
        .and_then(|()| {
            std::os::unix::fs::symlink(compiler_home(&cache_dir()), compiler_home(cache))
        })
        .map_err(|e| format!("cannot lay out the cache `{}`: {e}", cache.display()))
}

/// The pinned compiler's programming interface (`dist/asc.js`, whose `main`
/// takes the command line's arguments), installing it first if needed.
pub fn asc() -> Result<PathBuf, String> {
    // One install at a time in this process; other processes are handled
    // by installing into a folder of one's own and moving it into place.
    static INSTALL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
    let home = compiler_home(&cache_dir());
    let api = home.join("node_modules/assemblyscript/dist/asc.js");
    if api.is_file() {
        return Ok(api);
    }
    std::fs::create_dir_all(cache_dir()).map_err(|e| {
        format!(
            "cannot create the cache folder `{}`: {e}",
            cache_dir().display()
        )
    })?;
    // Install into a folder of our own, then move it into place: two othc
    // processes installing at once both end with a whole compiler.
    let staging = cache_dir().join(format!(
        ".assemblyscript-{ASC_VERSION}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging)
        .map_err(|e| format!("cannot create `{}`: {e}", staging.display()))?;
    eprintln!(
        "installing the AssemblyScript compiler {ASC_VERSION} with npm into {} (once)",
        home.display()
    );
    let status = Command::new("npm")
        .args([
            "install",
            "--no-audit",
            "--no-fund",
            "--loglevel",
            "error",
            "--prefix",
        ])
        .arg(&staging)
        .arg(format!("assemblyscript@{ASC_VERSION}"))
        // npm's own report ("added 3 packages") is about othc's tools, not
        // the program: stderr, so stdout stays the program's or the JSON.
        .stdout(std::io::stderr())
        .status()
        .map_err(|e| format!("cannot run npm (is Node.js installed?): {e}"))?;
    if !status.success() {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(format!(
            "`npm install assemblyscript@{ASC_VERSION}` failed ({status})"
        ));
    }
    if std::fs::rename(&staging, &home).is_err() {
        // Another process got there first; its copy is as good.
        let _ = std::fs::remove_dir_all(&staging);
    }
    if api.is_file() {
        eprintln!("installed the AssemblyScript compiler {ASC_VERSION}");
        Ok(api)
    } else {
        Err(format!("npm installed no `{}`", api.display()))
    }
}

/// Writes the embedded SDK as `<pkgs>/othismo/`, the folder `--path <pkgs>`
/// resolves `import ... from "othismo"` to. Returns `<pkgs>`.
pub fn lay_out_sdk(build: &Path) -> Result<PathBuf, String> {
    let pkgs = build.join("pkgs");
    crate::layout::lay_out(SDK_FILES, &pkgs.join("othismo"))?;
    Ok(pkgs)
}

/// How to compile: the flags of book: reference/generated-names.md.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    Release,
    Debug,
}

/// One error the AssemblyScript compiler reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompilerError {
    /// `TS2304: Cannot find name 'Request'.`
    pub message: String,
    /// Where, when it is in the user's sources (not the SDK's `~lib/`).
    pub place: Option<Place>,
}

/// A place the compiler names: `in App.ts(5,14)`, with the length of the
/// `~~~` under it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub len: usize,
}

/// The errors in the compiler's output, in order.
pub fn compile_errors(output: &str) -> Vec<CompilerError> {
    let output = without_colours(output);
    let mut out: Vec<CompilerError> = Vec::new();
    let mut len = 0;
    for line in output.lines() {
        let t = line.trim_start();
        if let Some(m) = t.strip_prefix("ERROR ") {
            out.push(CompilerError {
                message: m.trim().to_string(),
                place: None,
            });
            len = 0;
        } else if let Some(tildes) = t
            .strip_prefix("│")
            .map(str::trim)
            .filter(|s| s.starts_with('~'))
        {
            len = tildes.chars().take_while(|c| *c == '~').count();
        } else if let Some(at) = t.strip_prefix("└─ in ") {
            let Some(last) = out.last_mut() else { continue };
            if last.place.is_some() {
                continue;
            }
            let Some((file, rest)) = at.rsplit_once('(') else {
                continue;
            };
            let Some((l, c)) = rest.trim_end_matches(')').split_once(',') else {
                continue;
            };
            if file.starts_with("~lib/") {
                continue;
            }
            if let (Ok(line), Ok(column)) = (l.trim().parse(), c.trim().parse()) {
                last.place = Some(Place {
                    file: file.to_string(),
                    line,
                    column,
                    len,
                });
            }
        }
    }
    out
}

/// `text` without terminal colour codes (`ESC [ ... m`).
fn without_colours(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// A failed compilation: what the compiler said of the sources, or why it
/// could not be run on them at all (no compiler installed, the SDK's folder
/// not writable, a module it did not write), which is no fault of theirs.
#[derive(Debug)]
pub enum CompileError {
    Compiler {
        output: String,
    },
    /// The object's `asconfig.json` asks for what othc cannot build.
    Config(String),
    Setup(String),
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CompileError::Compiler { output } => f.write_str(output),
            CompileError::Config(why) | CompileError::Setup(why) => f.write_str(why),
        }
    }
}

/// How an AssemblyScript module collects its garbage (book:
/// reference/collectors.md): chosen per object by the `runtime` of an
/// `asconfig.json` beside its implementation, AssemblyScript's own place
/// for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collector {
    /// `incremental` (the default): collects as the module allocates, also
    /// during a long delivery; every function keeps its references on a
    /// shadow stack and every store of one tells the collector.
    Incremental,
    /// `minimal`: collects only between deliveries (the SDK runs it at the
    /// end of one), so the code needs neither; garbage made within one
    /// delivery stays until it ends.
    BetweenDeliveries,
}

impl Collector {
    fn runtime(self) -> &'static str {
        match self {
            Collector::Incremental => "incremental",
            Collector::BetweenDeliveries => "minimal",
        }
    }
}

/// The file beside an implementation that chooses its collector.
pub const ASCONFIG: &str = "asconfig.json";

/// The collector `entry`'s `asconfig.json` asks for (`options.runtime`),
/// and the file's text (the compiler reads the file too, so it is part of
/// the module's cache key); the default without the file or the option.
pub fn collector_of(entry: &Path) -> Result<(Collector, Option<String>), String> {
    let path = entry.parent().unwrap_or(Path::new("")).join(ASCONFIG);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok((Collector::Incremental, None));
        }
        Err(e) => return Err(format!("cannot read `{}`: {e}", path.display())),
    };
    let config: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("`{}` is not JSON: {e}", path.display()))?;
    // What othc does not read would be a runtime othc did not choose, or
    // a file the module's cache key leaves out: refused, never ignored.
    if config.get("extends").is_some() {
        return Err(format!(
            "`{}` extends another file: othc builds an object from the `asconfig.json` beside it alone (the file is part of the module's cache key); write the options there",
            path.display()
        ));
    }
    let target_runtime = config
        .get("targets")
        .and_then(|t| t.as_object())
        .and_then(|targets| targets.iter().find(|(_, t)| t.get("runtime").is_some()));
    if let Some((name, _)) = target_runtime {
        return Err(format!(
            "`{}` sets the runtime for the target `{name}`: othc reads it from `options.runtime` alone, for every profile",
            path.display()
        ));
    }
    let collector = match config.pointer("/options/runtime") {
        None => Collector::Incremental,
        Some(serde_json::Value::String(r)) if r == "incremental" => Collector::Incremental,
        Some(serde_json::Value::String(r)) if r == "minimal" => Collector::BetweenDeliveries,
        Some(other) => {
            return Err(format!(
                "`{}` asks for the runtime {other}: an object is built with `\"incremental\"` (the default: it collects during a delivery too) or `\"minimal\"` (it collects between deliveries)",
                path.display()
            ));
        }
    };
    Ok((collector, Some(text)))
}

/// The compiler's flags for `profile` and `collector`, besides the entries,
/// `--path` and `-o` (book: reference/generated-names.md).
pub fn flags(profile: Profile, collector: Collector) -> Vec<&'static str> {
    let mut flags = vec!["--runtime", collector.runtime()];
    if collector == Collector::Incremental {
        // The collector starts a cycle once its objects take twice what
        // survived the last one, plus this much, and runs a step every
        // this many bytes allocated. Its default, 1 KiB, made a module
        // with little live data (most objects: a handler's state) collect
        // about every request it served; at 64 KiB the site's modules
        // spent a tenth less time per request (book: dev/performance.md),
        // for at most 64 KiB more garbage per module.
        flags.extend(["--use", "ASC_GC_GRANULARITY=65536"]);
    }
    flags.extend([
        "--exportRuntime",
        "--exportStart",
        "_start",
        // Its output is read (for the places of errors) and shown in
        // diagnostics: no colour codes, which it adds when `CI` is set.
        "--noColors",
    ]);
    match profile {
        Profile::Release => flags.extend(["-O3", "--noAssert"]),
        Profile::Debug => flags.push("--debug"),
    }
    flags
}

/// Compiles `entry` (with the SDK's exports as a second entry) into a
/// module; `build` is a scratch folder for the SDK's layout. The compiler
/// runs in a resident process of `compilers`, warm after its first module.
pub fn compile(
    entry: &Path,
    build: &Path,
    profile: Profile,
    compilers: &Compilers,
) -> Result<Vec<u8>, CompileError> {
    let fail = CompileError::Setup;
    let (collector, _) = collector_of(entry).map_err(CompileError::Config)?;
    let asc = asc().map_err(fail)?;
    let pkgs = lay_out_sdk(build).map_err(fail)?;
    let out = build.join(format!(
        "{}.wasm",
        entry
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    ));
    // Run in the entry's folder, naming it by its file name: what the
    // compiler writes into the module (abort messages name their file)
    // then does not depend on where the folder is, so the module cache can
    // be keyed by content alone.
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let text = |p: &Path| {
        p.to_str().map(str::to_string).ok_or_else(|| {
            fail(format!(
                "cannot compile `{}`: its name is not UTF-8",
                p.display()
            ))
        })
    };
    let folder = match entry.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(folder) => absolute(folder),
        None => absolute(Path::new(".")),
    };
    let (pkgs, out) = (absolute(&pkgs), absolute(&out));
    let mut args = vec![
        text(Path::new(entry.file_name().unwrap_or(entry.as_os_str())))?,
        text(&pkgs.join("othismo").join("exports.ts"))?,
    ];
    args.extend(flags(profile, collector).iter().map(|f| f.to_string()));
    args.extend(["--path".into(), text(&pkgs)?, "-o".into(), text(&out)?]);
    let outcome = compilers.compile(&asc, &folder, &args).map_err(fail)?;
    if !outcome.ok {
        return Err(CompileError::Compiler {
            output: outcome.output,
        });
    }
    std::fs::read(&out).map_err(|e| fail(format!("the compiler wrote no `{}`: {e}", out.display())))
}

#[cfg(test)]
mod tests {
    /// The SDK reads the pinned compiler's runtime layouts: `shapeOf` a
    /// class id at a fixed place of its object header, the collector
    /// (`collector.ts`) the allocator's free lists to measure the heap. Each
    /// was checked with that compiler (the BSON conformance tests run the
    /// first, `fixtures/run/collector` the second). A new pin needs them
    /// checked again, and the version they were checked with written beside
    /// them.
    #[test]
    fn the_runtime_layouts_read_were_checked_with_the_pinned_compiler() {
        let mark = format!("Layout checked with assemblyscript {}.", super::ASC_VERSION);
        for (file, text) in [
            (
                "shape.ts",
                include_str!("../../sdk/assemblyscript/shape.ts"),
            ),
            (
                "collector.ts",
                include_str!("../../sdk/assemblyscript/collector.ts"),
            ),
        ] {
            assert!(
                text.contains(&mark),
                "sdk/assemblyscript/{file} reads a layout checked with another compiler than the pinned {}: check it, then write `{mark}` beside it",
                super::ASC_VERSION
            );
        }
    }

    use super::*;

    #[test]
    fn compiler_errors_are_read_with_their_places() {
        let output = "ERROR TS2304: Cannot find name 'Request'.\n   :\n 5 │ write(req: Request, text: string): void {\n   │            ~~~~~~~\n   └─ in App.ts(5,14)\n\nERROR AS100: Not implemented.\n   :\n 9 │ x\n   └─ in ~lib/othismo/server.ts(9,1)\n\nFAILURE 2 compile error(s)\n";
        let errors = compile_errors(output);
        assert_eq!(errors.len(), 2);
        assert_eq!(errors[0].message, "TS2304: Cannot find name 'Request'.");
        assert_eq!(
            errors[0].place,
            Some(Place {
                file: "App.ts".into(),
                line: 5,
                column: 14,
                len: 7
            })
        );
        assert_eq!(
            errors[1].place, None,
            "the SDK's own files are not the user's"
        );
        // With colour codes (asc adds them when `CI` is set), the same.
        let coloured = output.replace("ERROR", "\u{1b}[91mERROR\u{1b}[0m");
        assert_eq!(compile_errors(&coloured), errors);
    }
}
