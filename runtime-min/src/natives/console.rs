//! `Console`: `/ watch -> text/plain*` streams standard-input lines to each
//! watcher (the runtime hands out a line only when the image is idle), and
//! `/ write text/plain` prints the text and a newline on standard output.

use std::io::Write;

use othc::model::Verb;

use super::Reply;
use crate::{Payload, Sender};

#[derive(Default)]
pub(crate) struct Console {
    /// Who watches, and with which ticket.
    pub watchers: Vec<(Sender, i32)>,
}

impl Console {
    /// Serves a request (already checked against the Console's header): a
    /// watch is held open (no reply yet), a write printed and answered.
    pub fn serve(
        &mut self,
        verb: i32,
        from: Sender,
        ticket: i32,
        payload: Option<&Payload>,
        out: &mut dyn Write,
    ) -> Option<Vec<Reply>> {
        if Verb::from_wire(verb) == Some(Verb::Watch) {
            self.watchers.push((from, ticket));
            return None;
        }
        let text = payload.map(|p| &p.data[..]).unwrap_or(&[]);
        let _ = out.write_all(text);
        let _ = out.write_all(b"\n");
        Some(vec![Reply::done(None)])
    }

    /// Ends the watches of `from` (one ticket, or all).
    pub fn withdraw(&mut self, from: Sender, ticket: Option<i32>) {
        self.watchers
            .retain(|(s, k)| !(*s == from && ticket.is_none_or(|t| *k == t)));
    }
}
