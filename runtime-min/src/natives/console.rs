//! `Console`: `/ watch -> text/plain*` streams standard-input lines to each
//! watcher (the runtime hands out a line only when the image is idle), and
//! `/ write text/plain` prints the text and a newline on standard output
//! (answered `100 io_error` when standard output fails).

use std::io::Write;

use othc::model::Verb;

use super::{Asked, Entries, Reply, entry};
use crate::Sender;
use crate::abi::{Ticket, errno};

#[derive(Clone, Copy)]
pub(crate) enum Entry {
    Watch,
    Write,
}

pub(crate) const ENTRIES: &Entries<Entry> = &[
    (Entry::Watch, Verb::Watch, "/"),
    (Entry::Write, Verb::Write, "/"),
];

#[derive(Default)]
pub(crate) struct Console {
    /// Who watches, and with which ticket.
    pub watchers: Vec<(Sender, Ticket)>,
    /// Why standard output failed, the first time it did: output was lost,
    /// and the run ends with status 1 saying so.
    pub lost_output: Option<String>,
}

impl Console {
    /// Serves a request (already checked against the Console's header): a
    /// watch is held open (no reply yet), a write printed and answered.
    pub fn serve(&mut self, asked: Asked<'_>, out: &mut dyn Write) -> Option<Vec<Reply>> {
        if let Some(Entry::Watch) = entry(ENTRIES, asked.entry) {
            self.watchers.push((asked.from, asked.ticket));
            return None;
        }
        let text = asked.payload.map(|p| &p.data[..]).unwrap_or(&[]);
        let mut line = Vec::with_capacity(text.len() + 1);
        line.extend_from_slice(text);
        line.push(b'\n');
        // Flushed per line: a write that fails (a full disk, a closed pipe)
        // is answered as failed, never `done`.
        match out.write_all(&line).and_then(|()| out.flush()) {
            Ok(()) => Some(vec![Reply::done(None)]),
            Err(e) => {
                self.lost_output.get_or_insert_with(|| e.to_string());
                Some(vec![Reply::error(
                    errno::IO_ERROR,
                    format!("standard output: {e}"),
                )])
            }
        }
    }

    /// Ends the watches of `from` (one ticket, or all).
    pub fn withdraw(&mut self, from: Sender, ticket: Option<Ticket>) {
        self.watchers
            .retain(|(s, k)| !(*s == from && ticket.is_none_or(|t| *k == t)));
    }
}
