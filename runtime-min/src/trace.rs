//! `--trace`: one line per delivery, saying what reaches whom.

use std::io::Write;

use othc::namespace::path::text;

use crate::ActorId;
use crate::abi::{self, Response};
use crate::natives::http::Incoming;
use crate::{Event, Payload, Runtime, Sender};

impl Runtime<'_> {
    fn who(&self, s: Sender) -> String {
        match s {
            Sender::Instance(a) => self.actors[a].name.clone(),
            Sender::Operator(_) => "operator".into(),
            Sender::Remote(k) => format!("remote#{k}"),
            Sender::Outside(k) => format!("outside#{k}"),
        }
    }

    /// One line per delivery, for `--trace`: what reaches whom.
    pub(crate) fn trace(&mut self, e: &Event) {
        if self.io.trace.is_none() {
            return;
        }
        let carried = |p: &Option<Payload>| p.as_ref().map(describe).unwrap_or_default();
        let line = match e {
            Event::Serve { to, req, path, .. } => format!(
                "{}:{} -> {}: {}{} {}{}",
                self.who(req.from),
                req.ticket,
                self.actors[*to].name,
                if req.flags & abi::OPERATOR != 0 {
                    "operator "
                } else {
                    ""
                },
                req.verb.as_str(),
                text(path),
                carried(&req.payload)
            ),
            Event::Respond {
                to,
                ticket,
                response: Response::Answer { done, payload },
            } => format!(
                "{}:{ticket} <- {}{}",
                self.who(*to),
                if *done { "done" } else { "answer" },
                carried(payload)
            ),
            Event::Respond {
                to,
                ticket,
                response: Response::Error(failure),
            } => format!(
                "{}:{ticket} <- error {} {}: {}",
                self.who(*to),
                failure.errno,
                failure.code,
                failure.desc
            ),
            Event::Cancel { to, id } => format!("{} request {id} cancelled", self.actors[*to].name),
            // `supervise` says what came of it (`note`).
            Event::Restart { .. } => return,
        };
        if let Some(t) = self.io.trace.as_mut() {
            let _ = writeln!(t, "{line}");
        }
    }
}

impl Runtime<'_> {
    /// A line of `--trace` about no delivery (a restart).
    pub(crate) fn note(&mut self, line: std::fmt::Arguments<'_>) {
        if let Some(t) = self.io.trace.as_mut() {
            let _ = writeln!(t, "{line}");
        }
    }

    /// A request an Http instance took from a client, for `--trace`.
    pub(crate) fn trace_http(&mut self, actor: ActorId, r: &Incoming) {
        let name = &self.actors[actor].name;
        if let Some(t) = self.io.trace.as_mut() {
            let _ = writeln!(
                t,
                "{name} <- http: exchange {} {} {} ({} bytes)",
                r.id, r.method, r.target, r.body_len
            );
        }
    }
}

/// A payload in a trace line: text shown (up to a point), stat records
/// read, anything else by its type and size.
fn describe(p: &Payload) -> String {
    if &*p.content_type == abi::STAT_TYPE
        && let Some(s) = abi::Stat::decode(&p.data)
    {
        let kind = if s.kind == abi::KIND_DIRECTORY {
            "directory"
        } else {
            "file"
        };
        return format!(
            " stat {{ {:?}, {kind}, {} bytes, {} }}",
            s.name, s.length, s.content_type
        );
    }
    if let Some(http) = crate::natives::http::wire::describe(p) {
        return http;
    }
    match std::str::from_utf8(&p.data) {
        Ok(t) if p.content_type.starts_with("text/") && t.chars().count() <= 60 => {
            format!(" {} {t:?}", p.content_type)
        }
        _ => format!(" {} ({} bytes)", p.content_type, p.data.len()),
    }
}
