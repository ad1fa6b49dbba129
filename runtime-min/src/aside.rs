//! Warnings from the runtime's threads that must never wait: the epoch
//! ticker (whose ticks stop a delivery that runs too long) and the HTTP
//! listeners. Each is written to the process's standard error by one
//! thread of its own, so a stderr nobody reads (a full pipe) holds that
//! thread, never the ticker or a listener; while it is held, at most a few
//! warnings wait for it and later ones are dropped (nobody is reading).

use std::io::Write;
use std::sync::OnceLock;
use std::sync::mpsc::{SyncSender, sync_channel};

/// Warnings waiting for the writer, at most.
const WAITING: usize = 16;

/// Writes `line` and a line end on standard error, from the writer's
/// thread: never waits.
pub(crate) fn warn(line: String) {
    static WRITER: OnceLock<Option<SyncSender<String>>> = OnceLock::new();
    let writer = WRITER.get_or_init(|| {
        let (tx, rx) = sync_channel::<String>(WAITING);
        std::thread::Builder::new()
            .name("warnings".into())
            .spawn(move || {
                for line in rx {
                    let _ = writeln!(std::io::stderr(), "{line}");
                }
            })
            .ok()
            .map(|_| tx)
    });
    if let Some(tx) = writer {
        let _ = tx.try_send(line);
    }
}
