//! The listener's thread looks before it sleeps, as the event loop does
//! (running.md, "Looking before sleeping"): for `--spin` after its last
//! request or batch of responses, a task keeps yielding to tokio, which
//! then polls the sockets without waiting, so the next request or the
//! loop's next responses are taken without the thread being put to sleep
//! and woken (tens of microseconds on an idle core of a virtual machine).
//! Between polls the thread yields its core to any other that wants it.
//! Once the time is over, the task waits to be poked and the thread sleeps
//! in the reactor as before.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

/// When the listener last had work, shared by its tasks.
pub(crate) struct Look {
    /// What `last` counts from.
    base: Instant,
    /// Nanoseconds from `base` to the last work.
    last: AtomicU64,
    /// Wakes the looking task once it has stopped looking.
    poke: Notify,
    /// How long to look after the last work, in nanoseconds; 0: never.
    span: u64,
    /// Whether the looking task is looking now (not waiting to be poked).
    looking: AtomicBool,
    /// Work that came while it looked, and looks that ended in a sleep:
    /// the report's `caught` and `slept` for the listener.
    caught: AtomicU64,
    slept: AtomicU64,
}

impl Look {
    pub fn new(span: Duration) -> Arc<Look> {
        Arc::new(Look {
            base: Instant::now(),
            last: AtomicU64::new(0),
            poke: Notify::new(),
            span: u64::try_from(span.as_nanos()).unwrap_or(u64::MAX),
            looking: AtomicBool::new(false),
            caught: AtomicU64::new(0),
            slept: AtomicU64::new(0),
        })
    }

    /// Work that came while the thread looked, and looks that ended in a
    /// sleep, so far.
    pub fn counts(&self) -> (u64, u64) {
        (
            self.caught.load(Ordering::Relaxed),
            self.slept.load(Ordering::Relaxed),
        )
    }

    /// The listener has work now (a request, responses to send on).
    pub fn busy(&self) {
        if self.span == 0 {
            return;
        }
        if self.looking.load(Ordering::Relaxed) {
            self.caught.fetch_add(1, Ordering::Relaxed);
        }
        self.last.store(self.now(), Ordering::Relaxed);
        self.poke.notify_one();
    }

    fn now(&self) -> u64 {
        u64::try_from(self.base.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    fn recent(&self) -> bool {
        self.now().saturating_sub(self.last.load(Ordering::Relaxed)) < self.span
    }
}

/// The looking task, for as long as the listener runs.
pub(crate) async fn look(l: Arc<Look>) {
    if l.span == 0 {
        return;
    }
    loop {
        if l.recent() {
            l.looking.store(true, Ordering::Relaxed);
            // A task that yields has tokio poll its sockets without
            // waiting before it runs the task again.
            tokio::task::yield_now().await;
            std::thread::yield_now();
        } else {
            if l.looking.swap(false, Ordering::Relaxed) {
                l.slept.fetch_add(1, Ordering::Relaxed);
            }
            l.poke.notified().await;
        }
    }
}
