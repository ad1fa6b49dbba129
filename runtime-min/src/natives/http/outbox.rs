//! The parts of responses the event loop sends to its listener's
//! connections, handed over together at the end of each of the loop's
//! turns. A part sent straight to its connection's channel wakes that
//! connection's task on the listener's thread, and tokio wakes a thread
//! from another one with a system call each time (an `eventfd` write, and
//! the interrupt that wakes the thread); handed over in one message per
//! turn, the turn's responses cost one such wake-up between them, and the
//! listener's thread wakes each connection itself, which costs nothing.
//!
//! The order of one exchange's parts is kept: all of them go through the
//! outbox, in the order put. Dropping an exchange's sender still ends its
//! body after the parts put before (the outbox holds a sender of its own
//! for each part until it is sent).

use tokio::sync::mpsc::UnboundedSender;

use super::Part;

/// Parts for connections, and the one to send each to.
pub(crate) type Batch = Vec<(UnboundedSender<Part>, Part)>;

#[derive(Default)]
pub(crate) struct Outbox {
    parts: Batch,
    /// The listener's thread, which sends each part of a batch on; none
    /// before the Http object listens (each part is then sent at once).
    to: Option<UnboundedSender<Batch>>,
}

impl Outbox {
    /// From now on, batches go to the listener's thread through `to`.
    pub fn deliver_through(&mut self, to: UnboundedSender<Batch>) {
        self.to = Some(to);
    }

    /// Puts `part` on its way to the connection `tx` is the channel of;
    /// false (and nothing put) if that connection's exchange is over (its
    /// client has gone).
    pub fn put(&mut self, tx: &UnboundedSender<Part>, part: Part) -> bool {
        if tx.is_closed() {
            return false;
        }
        if self.to.is_none() {
            return tx.send(part).is_ok();
        }
        self.parts.push((tx.clone(), part));
        true
    }

    /// Hands what was put to the listener's thread, in one message. If
    /// the listener has stopped, each part is sent straight on (the
    /// connections it had are closing, and their channels say so).
    pub fn flush(&mut self) {
        if self.parts.is_empty() {
            return;
        }
        let batch = std::mem::take(&mut self.parts);
        let batch = match &self.to {
            Some(to) => match to.send(batch) {
                Ok(()) => return,
                Err(returned) => returned.0,
            },
            None => batch,
        };
        for (tx, part) in batch {
            let _ = tx.send(part);
        }
    }
}

/// The listener's side: sends each part of each batch to its connection,
/// on the listener's thread (where waking a connection's task is a push on
/// a local queue), which has work then (`look`). Ends when the Http object
/// is gone.
pub(crate) async fn hand_on(
    mut batches: tokio::sync::mpsc::UnboundedReceiver<Batch>,
    look: std::sync::Arc<super::look::Look>,
) {
    while let Some(batch) = batches.recv().await {
        look.busy();
        for (tx, part) in batch {
            let _ = tx.send(part);
        }
    }
}

#[cfg(test)]
mod tests {
    use tokio::sync::mpsc::unbounded_channel;

    use super::*;

    fn chunk(b: u8) -> Part {
        Part::Chunk(vec![b])
    }

    fn taken(rx: &mut tokio::sync::mpsc::UnboundedReceiver<Part>) -> Vec<u8> {
        let mut out = Vec::new();
        while let Ok(Part::Chunk(d)) = rx.try_recv() {
            out.extend(d);
        }
        out
    }

    /// Nothing reaches a connection before the flush, then all of it, each
    /// connection's parts in the order put, and a body's end (its sender
    /// dropped) after the parts put before it.
    #[test]
    fn a_turns_parts_go_together_in_order_and_end_after_the_last() {
        let (batches, mut listener) = unbounded_channel();
        let mut out = Outbox::default();
        out.deliver_through(batches);
        let (a, mut ra) = unbounded_channel();
        let (b, mut rb) = unbounded_channel();
        assert!(out.put(&a, chunk(1)));
        assert!(out.put(&b, chunk(10)));
        assert!(out.put(&a, chunk(2)));
        drop(a);
        assert!(listener.try_recv().is_err(), "handed over before the flush");
        out.flush();
        out.flush();
        let batch = listener.try_recv().expect("one batch");
        assert!(listener.try_recv().is_err(), "an empty flush sends nothing");
        assert!(
            ra.try_recv().is_err(),
            "sent on by the listener's thread only"
        );
        for (tx, part) in batch {
            tx.send(part).unwrap();
        }
        assert_eq!(taken(&mut ra), vec![1, 2]);
        assert_eq!(taken(&mut rb), vec![10]);
        // The body of `a` has ended: its last sender went with the batch.
        assert!(matches!(
            ra.try_recv(),
            Err(tokio::sync::mpsc::error::TryRecvError::Disconnected)
        ));
    }

    /// A connection whose client has gone takes nothing; with the listener
    /// stopped, parts are sent straight on.
    #[test]
    fn a_gone_client_takes_nothing_and_a_stopped_listener_is_gone_round() {
        let (batches, listener) = unbounded_channel();
        let mut out = Outbox::default();
        out.deliver_through(batches);
        let (a, ra) = unbounded_channel();
        drop(ra);
        assert!(!out.put(&a, chunk(1)));
        drop(listener);
        let (b, mut rb) = unbounded_channel();
        assert!(out.put(&b, chunk(7)));
        out.flush();
        assert_eq!(taken(&mut rb), vec![7]);
    }
}
