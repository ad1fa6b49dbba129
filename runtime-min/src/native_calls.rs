//! The event loop's side of the native objects: a request that reached one
//! is handed over as an `Asked`, naming the serves entry the router matched
//! (by its place in the native's header) with its verb typed, and what the
//! native answers goes on as any answer does. `Files` may do its disk work
//! on a worker (`workers`); Http's listener is given a way back to this
//! loop (`Outside::Http`) when it starts.

use std::sync::Arc;

use othc::model::{EntryId, Seg};

use crate::ActorId;
use crate::abi::errno;
use crate::natives::{self, Asked};
use crate::outside::Outside;
use crate::stall::Wait;
use crate::{Body, Runtime, Serving};

impl Runtime<'_> {
    /// Request `req` for native instance `to`, on `path` of its tree,
    /// which reached its serves entry `entry`.
    pub(crate) fn serve_native(
        &mut self,
        to: ActorId,
        req: Serving,
        path: Arc<[Seg]>,
        entry: EntryId,
    ) {
        let (model, object) = &*self.actors[to].header;
        let place = (object.serves.iter())
            .position(|e| *e == entry)
            .unwrap_or(usize::MAX);
        // A native reads its payload itself: one of a type its entry does
        // not take is refused here, as a generated server refuses it.
        if let Some(why) = natives::unfit_payload(model, model.entry(entry), req.payload.as_ref()) {
            return self.fail_to(req.from, req.ticket, errno::UNSUPPORTED_TYPE, why);
        }
        let asked = Asked {
            entry: place,
            from: req.from,
            ticket: req.ticket,
            path: &path,
            payload: req.payload.as_ref(),
        };
        match &mut self.actors[to].body {
            Body::Console(console) => {
                // Standard output may not take it (a pipe nobody reads).
                let waiting = self.stall.begin(to, Wait::Output);
                let replies = console.serve(asked, &mut *self.io.out);
                self.stall_over(waiting);
                if let Some(replies) = replies {
                    self.reply(&req, replies);
                }
            }
            Body::Clock => {
                let r = natives::clock::serve(place);
                self.reply(&req, vec![r]);
            }
            Body::Http(http) => {
                let inbox = &self.inbox;
                let notify = || -> natives::http::Notify {
                    let tx = inbox.sender();
                    Arc::new(move |event| tx.send(Outside::Http { actor: to, event }).is_ok())
                };
                let cx = natives::http::Context {
                    notify: &notify,
                    look: self.limits.spin(),
                };
                let r = http.serve(cx, asked);
                if let Some(addr) = http.announce() {
                    // Signals caught before the line that says it listens.
                    self.inbox.listening(self.limits.spin());
                    let _ = writeln!(self.io.err, "listening on http://{addr}");
                }
                match r {
                    Some(r) => self.reply(&req, vec![r]),
                    // A new watcher: requests waiting go to it (or a write
                    // held back: answered later).
                    None => self.hand_out_http(to),
                }
                self.http_due(to);
            }
            Body::Files(_) => self.serve_files(to, req, path, place),
            Body::Wasm(_) | Body::Away | Body::Remote(_) => {}
        }
    }
}
