//! Running a bundle with the process's own standard streams: console
//! input from stdin a line at a time, output to stdout, reports and the
//! trace to stderr (what `othismo-run` and `othc run` do).

use crate::{Io, Limits, LoadError, Runtime, cluster, input};

/// Runs a bundle on this process's standard streams: console input from
/// stdin (read a line at a time, as the image asks), output to stdout,
/// reports to stderr. Returns the exit status (book: reference/running.md).
pub fn run_on_stdio(bundle: &[u8], limits: Limits, trace: bool) -> Result<i32, LoadError> {
    run_on_stdio_with_code(bundle, limits, trace, None)
}

/// [`run_on_stdio`], loading each module's precompiled code from `code`
/// where it is there and usable ([`code`](crate::code)).
pub fn run_on_stdio_with_code(
    bundle: &[u8],
    limits: Limits,
    trace: bool,
    code: Option<&std::path::Path>,
) -> Result<i32, LoadError> {
    run_on_stdio_placed(bundle, limits, trace, code, None)
}

/// [`run_on_stdio_with_code`] as one node of a cluster, when `cluster`
/// says so.
pub fn run_on_stdio_placed(
    bundle: &[u8],
    limits: Limits,
    trace: bool,
    code: Option<&std::path::Path>,
    cluster: Option<&cluster::ClusterConfig>,
) -> Result<i32, LoadError> {
    raise_open_files();
    // Read line by line by the input thread, holding no more of a line
    // than a payload may carry.
    let payload = limits.payload;
    let input = std::iter::from_fn(move || input::read_line(&mut std::io::stdin().lock(), payload));
    let mut out = std::io::stdout().lock();
    let mut err = std::io::stderr();
    let mut trace_to = std::io::stderr();
    let io = Io {
        input: Box::new(input),
        out: &mut out,
        err: &mut err,
        trace: if trace { Some(&mut trace_to) } else { None },
    };
    Ok(Runtime::load_placed(bundle, limits, io, code, cluster)?.run())
}

/// Lets the run hold as many open files as the host allows it: the soft
/// limit raised to the hard one (as nginx's `worker_rlimit_nofile` and Go's
/// runtime do). Each connection and each file the natives hold is one, and
/// the usual soft limit of 1,024 is below what Http alone may hold (1,024
/// connections and the files it serves): past it a connection waits in the
/// kernel's queue, unanswered, and a file cannot be opened. A limit that
/// cannot be raised stays as it is.
fn raise_open_files() {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let now = getrlimit(Resource::Nofile);
    let most = now.maximum.unwrap_or(u64::MAX).min(1 << 20);
    if now.current.is_some_and(|c| c < most) {
        let _ = setrlimit(
            Resource::Nofile,
            Rlimit {
                current: Some(most),
                maximum: now.maximum,
            },
        );
    }
}
