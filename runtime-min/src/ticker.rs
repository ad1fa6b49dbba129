//! The epoch ticker: a delivery that runs past its time traps.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::limits;

/// Ticks the engine's epoch, so a delivery that runs too long traps.
pub(crate) struct Ticker {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Ticker {
    pub(crate) fn start(engine: &wasmtime::Engine) -> Ticker {
        let stop = Arc::new(AtomicBool::new(false));
        let (flag, engine) = (stop.clone(), engine.clone());
        let thread = std::thread::spawn(move || {
            // Parked rather than asleep, so a finished run wakes it to stop
            // at once instead of waiting out the tick.
            while !flag.load(Ordering::Relaxed) {
                std::thread::park_timeout(limits::TICK);
                engine.increment_epoch();
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
