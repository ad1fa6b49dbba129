//! The `othc` command line: argument parsing, the disk, the terminal. The
//! compiler itself is the `othc` library; `othc run` runs images with the
//! runtime's library (`othismo-runtime`).

mod build;
mod check;
mod diff;
mod explain;
mod fmt;
mod fs;
mod generate;
mod inspect;
mod lsp;
mod ns;
mod pick;
mod remote;
mod run;
mod test;
mod watch;

use std::process::ExitCode;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc commits the memory it reserves as it is used, not a whole arena
/// at once. With transparent huge pages, an arena committed whole is backed
/// by 2 MiB pages wherever it is touched, and a check holds far fewer bytes
/// than it touches: `othc check` on 10,000 messages peaks at 28 instead of
/// 45 MiB, for a tenth more time (page faults), and the language server's
/// worst edit got faster (book: dev/performance.md). A user who sets
/// `MIMALLOC_ARENA_EAGER_COMMIT` keeps their setting.
///
/// Set before anything allocates: mimalloc reserves its first arena on the
/// first allocation, which Rust's runtime makes before `main`, so this runs
/// as an early constructor (`.init_array` with a priority below the
/// default, which runs first). The option is numbered as in mimalloc v3's
/// `mi_option_e`, the version libmimalloc-sys builds; `tests/allocator.rs`
/// fails if it is not the option meant.
#[cfg(target_os = "linux")]
extern "C" fn tune_allocator() {
    const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
    // SAFETY: getenv reads the environment with a NUL-terminated name and
    // mi_option_set stores into mimalloc's option table; both before any
    // thread exists. An option set here is not read from the environment,
    // hence the check first.
    unsafe {
        if libc::getenv(c"MIMALLOC_ARENA_EAGER_COMMIT".as_ptr()).is_null() {
            libmimalloc_sys::mi_option_set(ARENA_EAGER_COMMIT, 0);
        }
    }
}

#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array.00099")]
static TUNE_ALLOCATOR: extern "C" fn() = tune_allocator;

use clap::{Parser, Subcommand, ValueEnum};

/// Exit statuses (book: reference/checking.md).
pub const EXIT_OK: u8 = 0;
pub const EXIT_ERRORS: u8 = 1;
pub const EXIT_USAGE: u8 = 2;

#[derive(Parser)]
#[command(
    name = "othc",
    version,
    about = "The Othismo compiler",
    long_about = "The Othismo compiler.\n\nothc reads .oth files (object headers, schema blocks and images), proves that \
every need is met by what is mounted, and reports each problem with a stable code.\n\n\
Exit status: 0 no errors (warnings allowed), 1 errors found, 2 usage or I/O failure."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Parse and check .oth files and everything they import
    ///
    /// Every independent problem is reported in one run. Imports are followed
    /// relative to the importing file; `othismo:env` names the runtime's own
    /// objects.
    Check(check::CheckArgs),
    /// Generate bindings for the objects and types of .oth files
    ///
    /// `othc gen --lang as Greeter.oth` writes `Greeter.oth.ts` beside it (or
    /// into `-o DIR`): message classes, a server base class per object, a
    /// client per need. The file is checked first; errors stop it.
    Gen(generate::GenArgs),
    /// Compile the objects of .oth files into modules that carry their header
    ///
    /// For each object the files declare or their images use: generate its
    /// bindings (E0703 when stale), compile its AssemblyScript with the pinned
    /// compiler (installed into othc's cache on first use), check the result
    /// against the host ABI, and embed the header and schemas as custom
    /// sections. Unchanged modules come from the cache.
    Build(build::BuildArgs),
    /// Rewrite .oth files in the canonical layout, keeping comments
    ///
    /// With --check, change nothing and exit 1 if a file would change. A file
    /// that does not parse is never rewritten.
    Fmt(fmt::FmtArgs),
    /// Build an image and run it: `othc run Hello.oth`
    ///
    /// Builds like `othc build` (unchanged modules come from the cache), then
    /// runs the image in this process: console input from stdin, a line at a
    /// time whenever the image is idle; console output on stdout. An image
    /// with an `Http` listener runs until Ctrl-C (SIGINT) or SIGTERM, which
    /// let the requests in flight finish for at most 5 s. A bundle
    /// (`NAME.othimg`) runs as it is. Exit status: 0 the image went idle and
    /// its input ended, or a listening image was stopped by a signal; 1 errors, an instance stopped (a trap or a limit) or
    /// a startup request failed; 2 usage, or a bundle that cannot be loaded.
    Run(run::RunArgs),
    /// Show what a built module says about itself: its sections, whether it
    /// keeps the host ABI, and its header and schemas
    Inspect(inspect::InspectArgs),
    /// Explain an error or warning code, with a wrong and a fixed example
    ///
    /// Prints the code's page of the book. Without a code, lists them all.
    Explain(explain::ExplainArgs),
    /// Serve editors: the language server, over stdin and stdout
    ///
    /// Diagnostics as you type (the same codes, places and help as `othc
    /// check`), hover, go to definition, references, rename, completion,
    /// formatting, outline, folding, semantic colouring and quick fixes.
    /// Logs go to stderr. See the book's "Editors" page for each editor's
    /// set-up.
    Lsp(lsp::LspArgs),
    /// Show what each instance of an image sees, and through what
    ///
    /// For each instance, its view as a table in the order a path is
    /// resolved (the longest path first): the mount or bind that provides
    /// each path (with its line), the instance and path it reaches, whether
    /// it is read-only and which line made it so, and which of the
    /// instance's needs go through it; then what the instance serves in the
    /// image's tree, the image's exports and its startup requests. Also for
    /// a bundle (.othimg). `--format dot` prints a Graphviz graph, `--format
    /// svg` draws it with Graphviz's `dot`. Exit status 1 when the image has
    /// errors (the report shows what resolved).
    Ns(ns::NsArgs),
    /// Compare two versions of an object and say what the change breaks
    ///
    /// OLD and NEW are .oth files or built modules (.wasm). Every change to
    /// the object's schemas, serves and needs is listed and classified:
    /// breaks the wire (documents of one version rejected or misread by the
    /// other), breaks callers, breaks wiring, or compatible. With `--images
    /// A.oth B.oth ...`, each image is checked again with NEW read in OLD's
    /// place, and every one that would get errors is named with them. Exit
    /// status: 0 nothing breaks (with --images: no image breaks), 1 something
    /// does, 2 usage or unreadable input.
    Diff(diff::DiffArgs),
    /// Test the objects of a .oth file against their headers
    ///
    /// Builds each object the file declares and sends it generated requests
    /// for every serves entry (paths its patterns cover, payloads it takes
    /// and payloads it does not), its needs met by stubs that answer as
    /// they declare. Each answer is held to its entry; a trap, a limit, a
    /// request never answered or answered twice, an input it does not take
    /// answered as if taken, a request outside its needs, is a finding:
    /// shrunk to the smallest input, shown with its code, the entry it
    /// broke and the seed that replays it. Exit status: 0 every contract
    /// kept, 1 a contract broken, 2 usage or build error.
    Test(test::TestArgs),
}

#[derive(Clone, Copy, ValueEnum, Default)]
pub enum MessageFormat {
    /// Reports for people, on stderr
    #[default]
    Human,
    /// One JSON object per diagnostic per line, on stdout
    Json,
}

#[derive(Clone, Copy, ValueEnum, Default)]
pub enum ColorChoice {
    /// Colour when stderr is a terminal
    #[default]
    Auto,
    Always,
    Never,
}

/// A report read through a pipe that closes early (`othc explain | head`)
/// ends the process as it ends any Unix tool: by SIGPIPE, quietly. Rust
/// ignores the signal, which turns the next write into an error and
/// `println!` into a panic. `othc run` keeps it ignored: an image's console
/// output that cannot be written is reported as lost (exit 1), never
/// dropped silently; so does the language server, which stops with status
/// 1 saying its client is gone.
fn end_quietly_on_a_closed_pipe() {
    // SAFETY: restores the signal's default disposition, before any thread
    // exists; no handler runs Rust code.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let usage = e.use_stderr();
            let _ = e.print();
            // --help and --version are not failures.
            return ExitCode::from(if usage { EXIT_USAGE } else { EXIT_OK });
        }
    };
    if !matches!(cli.command, Command::Run(_) | Command::Lsp(_)) {
        end_quietly_on_a_closed_pipe();
    }
    let status = match cli.command {
        Command::Check(args) => check::run(args),
        Command::Gen(args) => generate::run(args),
        Command::Fmt(args) => fmt::run(args),
        Command::Build(args) => build::run(args),
        Command::Run(args) => run::run(args),
        Command::Inspect(args) => inspect::run(args),
        Command::Explain(args) => explain::run(args),
        Command::Lsp(args) => lsp::run(args),
        Command::Ns(args) => ns::run(args),
        Command::Test(args) => test::run(args),
        Command::Diff(args) => diff::run(args),
    };
    ExitCode::from(status)
}
