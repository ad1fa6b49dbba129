//! `othismo-run NAME.othimg`: runs an image bundle built by `othc build`.
//! (`othc run IMAGE.oth` builds and runs in one step.)

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use othismo_runtime::Limits;

// The allocator of `othc`, which runs images in process too (`othc run`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "othismo-run",
    version,
    about = "Runs an Othismo image bundle",
    long_about = "Runs an Othismo image bundle (NAME.othimg, written by `othc build`).\n\n\
Console input comes from stdin, a line at a time, whenever the image is idle; console \
output goes to stdout; reports go to stderr. `othc run IMAGE.oth` builds and runs in one \
step. An image with an `Http` listener runs until SIGINT (Ctrl-C) or SIGTERM, which \
stop accepting connections and let the requests in flight finish for at most 5 s.\n\n\
An instance stopped by a trap or a limit is replaced by a fresh one of its module, its \
startup requests sent again (at most --max-restarts times within --restart-period; past that \
the run ends). A startup request that fails ends the run at once, listeners closed. SIGUSR1 \
to a listening image prints what the runtime holds on stderr.\n\n\
With --cluster and --instances (or --placement and --node), this process is one node of a \
cluster joined over NATS: it runs the instances named, and sends requests to the others over NATS, where the node that \
takes each checks it again. A node that runs the console ends when its input has ended and \
the whole cluster is quiet; any other node serves until SIGINT or SIGTERM.\n\n\
Exit status: 0 the image went idle and its input ended, or a listening image was stopped \
by a signal; 1 an instance was stopped \
(a trap or a limit; restarted or not) or a startup request failed; 2 the bundle could not be loaded."
)]
struct Args {
    /// The bundle to run
    #[arg(value_name = "NAME.othimg")]
    bundle: PathBuf,

    /// Print a line per delivery on stderr: each request, answer, error and
    /// cancel, in the order the runtime delivers them
    #[arg(long)]
    trace: bool,

    #[command(flatten)]
    limits: Limits,

    #[command(flatten)]
    cluster: othismo_runtime::cluster::args::ClusterArgs,

    /// A directory of precompiled code for the bundle's modules (what
    /// `othc run --on` ships): code there that this runtime can use is
    /// loaded instead of compiling the module; anything else is compiled,
    /// with a warning saying why
    #[arg(long, value_name = "DIR")]
    code: Option<PathBuf>,
}

fn main() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(a) => a,
        Err(e) => {
            let usage = e.use_stderr();
            let _ = e.print();
            return ExitCode::from(if usage { 2 } else { 0 });
        }
    };
    let bytes = match std::fs::read(&args.bundle) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: cannot read `{}`: {e}", args.bundle.display());
            return ExitCode::from(2);
        }
    };
    let cluster = match args.cluster.config() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    match othismo_runtime::run_on_stdio_placed(
        &bytes,
        args.limits,
        args.trace,
        args.code.as_deref(),
        cluster.as_ref(),
    ) {
        Ok(status) => ExitCode::from(status as u8),
        Err(e) => {
            eprintln!("error: cannot load `{}`: {e}", args.bundle.display());
            if args.bundle.extension().is_some_and(|x| x == "oth") {
                eprintln!(
                    "help: `{0}` is an image's source: `othc run {0}` builds and runs it; \
                     othismo-run takes the bundle `othc build {0}` writes (build/NAME.othimg)",
                    args.bundle.display()
                );
            }
            ExitCode::from(2)
        }
    }
}
