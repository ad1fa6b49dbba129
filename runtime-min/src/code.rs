//! Compiled code made ahead of time. Compiling a module with Cranelift
//! inside a microVM under qemu's translator is 10–20× slower than on the
//! host, so `othc run --on` compiles each module on the host and ships the
//! code beside the bundle; `othismo-run --code DIR` loads it instead of
//! compiling.
//!
//! The code is made for any x86-64 (no CPU features beyond the baseline
//! assumed) with the runtime's own engine settings; wasmtime checks both
//! again when the code is loaded, and code that does not match this
//! runtime (another version, other settings, a damaged file) is not used:
//! the module is compiled as usual, with a warning saying why. Files are
//! named by the SHA-256 of the module they were compiled from, so code can
//! never be taken for another module's.

use std::io::Write;
use std::path::Path;

use sha2::{Digest, Sha256};

/// The engine settings every module is compiled with.
pub fn config() -> wasmtime::Config {
    let mut config = wasmtime::Config::new();
    config.epoch_interruption(true);
    // For profiling with perf: the compiled functions' names, in
    // /tmp/perf-PID.map (book: dev/performance.md).
    if std::env::var_os("OTHISMO_PERF_MAP").is_some() {
        config.profiler(wasmtime::ProfilingStrategy::PerfMap);
    }
    config
}

/// The target precompiled code is made for: what the microVM guests run.
pub const TARGET: &str = "x86_64-unknown-linux-gnu";

/// The file that holds the code of module `wasm` in a code directory.
pub fn file_name(wasm: &[u8]) -> String {
    let digest = Sha256::digest(wasm);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("{hex}.cwasm")
}

/// Compiles `wasm` for [`TARGET`], to be loaded by another runtime.
pub fn precompile(wasm: &[u8]) -> Result<Vec<u8>, String> {
    let mut config = config();
    config.target(TARGET).map_err(|e| format!("{e:#}"))?;
    let engine = wasmtime::Engine::new(&config).map_err(|e| format!("{e:#}"))?;
    engine.precompile_module(wasm).map_err(|e| format!("{e:#}"))
}

/// Module `name` (`wasm`): its precompiled code from `code` when there is
/// usable code there, else compiled here (saying why on `warn` when code
/// was expected but not usable).
pub(crate) fn module(
    engine: &wasmtime::Engine,
    wasm: &[u8],
    name: &str,
    code: Option<&Path>,
    warn: &mut dyn Write,
) -> Result<wasmtime::Module, String> {
    if let Some(dir) = code {
        let at = dir.join(file_name(wasm));
        let why = if at.is_file() {
            // SAFETY: `deserialize_file` trusts the file to be wasmtime's own
            // output. The code directory is given by whoever runs this
            // runtime, as the bundle is: in a crucible sandbox, by the user
            // who owns the sandbox, for their own run. wasmtime still checks
            // the file's format, version and settings before using it.
            match unsafe { wasmtime::Module::deserialize_file(engine, &at) } {
                Ok(m) => return Ok(m),
                Err(e) => format!("{e:#}"),
            }
        } else {
            format!("no {} there", at.display())
        };
        let _ = writeln!(
            warn,
            "othismo-run: `{name}`: the precompiled code is not used ({why}); compiling it here"
        );
    }
    wasmtime::Module::new(engine, wasm).map_err(|e| format!("{e:#}"))
}
