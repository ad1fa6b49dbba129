//! What a listener says of connections it could not serve, on standard
//! error and at most every `SAID_EVERY` for each trouble: clients see their
//! connection reset or left waiting, and the operator should know why. The
//! process's own stderr (the run's belongs to the event loop's thread),
//! written aside: a listener never waits for it.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// How often a listener says the same trouble, at most.
const SAID_EVERY: Duration = Duration::from_secs(10);

pub(super) struct Troubles {
    addr: Option<SocketAddr>,
    /// Connections closed as they came, because the most were open.
    turned_away: u64,
    full_said: Option<Instant>,
    /// When an accept that failed was last said.
    accept_said: Option<Instant>,
}

/// Whether a trouble last said at `said` is to be said again now.
fn due(said: &mut Option<Instant>) -> bool {
    if said.is_some_and(|at| at.elapsed() < SAID_EVERY) {
        return false;
    }
    *said = Some(Instant::now());
    true
}

impl Troubles {
    /// The troubles of the listener at `addr`.
    pub(super) fn of(addr: Option<SocketAddr>) -> Troubles {
        Troubles {
            addr,
            turned_away: 0,
            full_said: None,
            accept_said: None,
        }
    }

    fn at(&self) -> String {
        self.addr
            .map_or("the listener".into(), |a| format!("http://{a}"))
    }

    /// A connection was closed as it came: `most` were open.
    pub(super) fn turned_away(&mut self, most: usize) {
        self.turned_away += 1;
        if due(&mut self.full_said) {
            crate::aside::warn(format!(
                "warning: {} has {most} connections open, its most: new ones are closed as they come ({} so far)",
                self.at(),
                self.turned_away
            ));
        }
    }

    /// A connection could not be taken (out of file descriptors, say): it
    /// waits in the kernel's queue meanwhile.
    pub(super) fn accept_failed(&mut self, e: &std::io::Error) {
        if due(&mut self.accept_said) {
            crate::aside::warn(format!(
                "warning: {} cannot take new connections: {e}; they wait in the kernel's queue until it can",
                self.at()
            ));
        }
    }
}
