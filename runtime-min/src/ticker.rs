//! The epoch ticker: a delivery that runs past its time traps. It also
//! watches the loop's waits on a disk (`stall`), every tick.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::limits;
use crate::stall::Stall;

/// Ticks the engine's epoch, so a delivery that runs too long traps.
pub(crate) struct Ticker {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Ticker {
    /// The ticker of `engine`, watching `stall` if given (a run's loop).
    pub(crate) fn start(engine: &wasmtime::Engine, stall: Option<Arc<Stall>>) -> Ticker {
        let stop = Arc::new(AtomicBool::new(false));
        let (flag, engine) = (stop.clone(), engine.clone());
        let thread = std::thread::spawn(move || {
            // Parked rather than asleep, so a finished run wakes it to stop
            // at once instead of waiting out the tick.
            while !flag.load(Ordering::Relaxed) {
                std::thread::park_timeout(limits::TICK);
                engine.increment_epoch();
                if let Some(said) = stall.as_ref().and_then(|s| s.check()) {
                    // The process's own stderr (the run's is the loop's,
                    // which is the thread held), never waited for here.
                    crate::aside::warn(said);
                }
            }
        });
        Ticker {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}
