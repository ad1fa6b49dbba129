//! What the runtime holds, on demand (SIGUSR1 to a listening image): a line
//! per instance and one for the host, on stderr, each `report: ` then
//! `name=value` words. Most numbers here are ones that must not grow with
//! the requests served: an instance's memory (a high-water mark: a module's
//! memory never shrinks), the requests it is serving, the request ids and
//! tickets the host remembers for it, the bytes of its requests waiting,
//! the deliveries waiting in its mailbox while it is out on a worker, the
//! files it is reading a part at a time; the queue, the dropped tickets
//! still to forget, and each Http instance's exchanges, waiting requests
//! and watchers. The soak test reads them before and after a few hundred
//! thousand requests. The rest count since the start: the deliveries
//! taken, calls made on workers, and the waits of the loop (host) and of
//! each Http instance's listener that ended with work caught while looking
//! (`caught`) or in a sleep (`slept`).

use crate::{Body, Runtime};

impl Runtime<'_> {
    pub(crate) fn report(&mut self) {
        for a in self.actors.iter() {
            // An instance out on a worker is not looked at: its memory is
            // left out, and `busy` says why.
            let memory = match &a.body {
                Body::Wasm(w) => format!(" memory={}", w.host().memory_used()),
                Body::Away => String::new(),
                _ => " memory=0".to_string(),
            };
            let http = match &a.body {
                Body::Http(h) => {
                    let (exchanges, waiting, watchers) = h.tables();
                    let (caught, slept) = h.looks();
                    format!(
                        " exchanges={exchanges} waiting={waiting} watchers={watchers} caught={caught} slept={slept}"
                    )
                }
                _ => String::new(),
            };
            let _ = writeln!(
                self.io.err,
                "report: instance={}{memory} serving={} cancelled={} dropped={} queued={} mailbox={} paced={} busy={} stopped={}{http}",
                a.name,
                a.serving.len(),
                a.cancelled.len(),
                a.dropped.len(),
                a.queued,
                a.mailbox.len(),
                a.paced.len(),
                a.busy,
                a.dead,
            );
        }
        let _ = writeln!(
            self.io.err,
            "report: host queue={} forget={} taken={} on_workers={} caught={} slept={}",
            self.queue.len(),
            self.forget.len(),
            self.taken,
            self.workers.calls,
            self.inbox.caught,
            self.inbox.slept
        );
    }
}
