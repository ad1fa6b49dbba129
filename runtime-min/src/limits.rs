//! What one instance may use (book: reference/running.md). Each is configurable on
//! the command line of `othismo-run` and `othc run`, and reported by name
//! when an instance hits it.

use std::time::Duration;

pub const DEFAULT_MEMORY_MIB: u64 = 64;
pub const DEFAULT_TIME_MS: u64 = 1000;
pub const DEFAULT_PAYLOAD: usize = 16 << 20;
pub const DEFAULT_QUEUE: usize = 65536;
pub const DEFAULT_HELD_MIB: u64 = 64;
pub const DEFAULT_RESTARTS: u32 = 5;
pub const DEFAULT_RESTART_PERIOD_S: u64 = 10;
pub const DEFAULT_LONG_CALL_US: u64 = 100;
pub const DEFAULT_SPIN_US: u64 = 300;

/// The limits of a run.
#[derive(Clone, Debug, clap::Args)]
pub struct Limits {
    /// Memory per instance, in MiB; an instance that grows past it is stopped
    #[arg(long = "max-memory", value_name = "MIB", default_value_t = DEFAULT_MEMORY_MIB)]
    pub memory_mib: u64,

    /// Work per delivery, in milliseconds; an instance that runs longer in
    /// one call (an endless loop) is stopped
    #[arg(long = "max-time", value_name = "MS", default_value_t = DEFAULT_TIME_MS)]
    pub time_ms: u64,

    /// Payload size, in bytes; a request or answer that carries more is
    /// answered `too_large`
    #[arg(long = "max-payload", value_name = "BYTES", default_value_t = DEFAULT_PAYLOAD)]
    pub payload: usize,

    /// Deliveries waiting at once; an instance whose requests push the queue
    /// past it is stopped
    #[arg(long = "max-queue", value_name = "N", default_value_t = DEFAULT_QUEUE)]
    pub queue: usize,

    /// What the host holds for one instance, in MiB: the requests, payload
    /// copies and cancelled tickets it asked for in one call, and its
    /// requests still waiting in the queue; an instance past it is stopped
    #[arg(long = "max-held", value_name = "MIB", default_value_t = DEFAULT_HELD_MIB)]
    pub held_mib: u64,

    /// Restarts of one instance allowed within `--restart-period`: an
    /// instance stopped by a trap or a limit is replaced by a fresh one of
    /// its module (its startup requests sent again); one stopped more often
    /// than this stays stopped and the run ends with status 1. 0: never
    /// restart (a stopped instance stays stopped, the rest runs on)
    #[arg(long = "max-restarts", value_name = "N", default_value_t = DEFAULT_RESTARTS)]
    pub restarts: u32,

    /// Worker threads for the long calls into instances (`--long-call`)
    /// and a slow disk's work, the event loop's thread making the short
    /// calls (default: one per core). Each instance runs on one thread at a
    /// time, never re-entered, its deliveries in order; with 1 there are no
    /// workers: every call is made on the event loop's thread and a run is
    /// deterministic
    #[arg(long = "workers", value_name = "N")]
    pub workers: Option<usize>,

    /// With several workers: an instance's calls go to workers once they
    /// take this many microseconds on average, and come back to the event
    /// loop's thread under half of it. Handing a call over costs two thread
    /// switches, more than a short call itself. 0 sends every call to them
    #[arg(long = "long-call", value_name = "MICROSECONDS", default_value_t = DEFAULT_LONG_CALL_US)]
    pub long_call_us: u64,

    /// In an image that listens (HTTP, a cluster), how long the event loop
    /// and each HTTP listener's thread keep looking for more work before
    /// they sleep, in microseconds, yielding their core to any thread that
    /// wants it meanwhile: waking a sleeping thread can cost more than
    /// serving a small request (tens of microseconds on an idle core of a
    /// virtual machine). Never on one core. 0: sleep at once, for the least
    /// CPU time when nearly idle
    #[arg(long = "spin", value_name = "MICROSECONDS", default_value_t = DEFAULT_SPIN_US)]
    pub spin_us: u64,

    /// The window, in seconds, in which `--max-restarts` are counted
    #[arg(long = "restart-period", value_name = "SECONDS", default_value_t = DEFAULT_RESTART_PERIOD_S)]
    pub restart_period_s: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            memory_mib: DEFAULT_MEMORY_MIB,
            time_ms: DEFAULT_TIME_MS,
            payload: DEFAULT_PAYLOAD,
            queue: DEFAULT_QUEUE,
            held_mib: DEFAULT_HELD_MIB,
            restarts: DEFAULT_RESTARTS,
            restart_period_s: DEFAULT_RESTART_PERIOD_S,
            workers: None,
            long_call_us: DEFAULT_LONG_CALL_US,
            spin_us: DEFAULT_SPIN_US,
        }
    }
}

/// How often the deadline clock ticks.
pub const TICK: Duration = Duration::from_millis(10);

impl Limits {
    /// The command-line flags that give these limits (to pass them on to
    /// `othismo-run` elsewhere, as `othc run --on` does).
    pub fn to_args(&self) -> Vec<String> {
        let mut args = vec![
            format!("--max-memory={}", self.memory_mib),
            format!("--max-time={}", self.time_ms),
            format!("--max-payload={}", self.payload),
            format!("--max-queue={}", self.queue),
            format!("--max-held={}", self.held_mib),
            format!("--max-restarts={}", self.restarts),
            format!("--restart-period={}", self.restart_period_s),
            format!("--long-call={}", self.long_call_us),
            format!("--spin={}", self.spin_us),
        ];
        if let Some(n) = self.workers {
            args.push(format!("--workers={n}"));
        }
        args
    }

    /// The threads to run instances on: as asked, else one per core. Only
    /// long calls go to workers (`--long-call`), so a worker that short
    /// calls leave idle costs nothing, and one is there for a slow disk
    /// (dev/performance.md, "Where calls are made").
    pub fn workers(&self) -> usize {
        self.workers.unwrap_or_else(cores).max(1)
    }

    /// The average call time from which calls go to workers.
    pub fn long_call(&self) -> Duration {
        Duration::from_micros(self.long_call_us)
    }

    /// How long the event loop and the listeners look for work before they
    /// sleep (`--spin`): none on one core, where looking would hold the core from the thread
    /// that makes the work.
    pub fn spin(&self) -> Duration {
        if cores() < 2 {
            return Duration::ZERO;
        }
        Duration::from_micros(self.spin_us)
    }

    pub fn memory_bytes(&self) -> usize {
        usize::try_from(self.memory_mib.saturating_mul(1 << 20)).unwrap_or(usize::MAX)
    }

    pub fn held_bytes(&self) -> usize {
        usize::try_from(self.held_mib.saturating_mul(1 << 20)).unwrap_or(usize::MAX)
    }

    /// The window restarts are counted in.
    pub fn restart_period(&self) -> Duration {
        Duration::from_secs(self.restart_period_s)
    }

    /// The execution deadline per delivery, in ticks of [`TICK`].
    pub fn deadline_ticks(&self) -> u64 {
        (self.time_ms / TICK.as_millis() as u64).max(1)
    }
}

/// The cores this process may use, asked once (the answer reads the
/// scheduler's affinity and the cgroup's quota; each instance loaded asks).
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        limits: Limits,
    }

    /// `to_args` says what the flags say: parsed back, the same limits.
    #[test]
    fn the_flags_round_trip() {
        let l = Limits {
            memory_mib: 3,
            time_ms: 4,
            payload: 5,
            queue: 6,
            held_mib: 7,
            restarts: 8,
            restart_period_s: 9,
            workers: Some(10),
            long_call_us: 11,
            spin_us: 12,
        };
        let args = std::iter::once("x".to_string()).chain(l.to_args());
        let back = Cli::parse_from(args).limits;
        assert_eq!(format!("{back:?}"), format!("{l:?}"));
    }
}
