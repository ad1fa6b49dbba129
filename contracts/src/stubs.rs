//! The object's needs, met by stubs: a request it makes must be one its
//! needs allow (its path, its verb, its payload), and is answered as the
//! need entry declares: a generated value of its answer type, a stream of
//! several, or an error, as the choices say.

use othc::model::{Model, ObjectDef, Verb};
use othc::namespace::needs::entry_for;
use othc::namespace::path::parse_request;
use othismo_runtime::Payload;
use othismo_runtime::abi::{Errno, Failure, Response, Ticket, errno};
use othismo_runtime::probe::Carried;

use crate::choices::Choices;
use crate::{conform, inputs};

/// An answer or error on its way to one of the instance's requests: the
/// runtime's one delivery type, with the ticket it goes to.
#[derive(Clone, Debug, PartialEq)]
pub struct Delivery {
    pub ticket: Ticket,
    pub response: Response<Payload>,
}

impl Delivery {
    fn answer(ticket: Ticket, done: bool, payload: Option<Payload>) -> Delivery {
        Delivery {
            ticket,
            response: Response::Answer { done, payload },
        }
    }

    fn error(ticket: Ticket, failure: Failure) -> Delivery {
        Delivery {
            ticket,
            response: Response::Error(failure),
        }
    }

    /// For the trace.
    pub fn describe(&self) -> String {
        let ticket = self.ticket;
        match &self.response {
            Response::Answer { done, payload } => format!(
                "answer to ticket {ticket}{}: {}",
                if *done { " (done)" } else { "" },
                payload
                    .as_ref()
                    .map_or("no payload".to_string(), |p| format!(
                        "{} ({} bytes)",
                        p.content_type,
                        p.data.len()
                    ))
            ),
            Response::Error(failure) => format!(
                "error for ticket {ticket}: {} {}",
                failure.errno, failure.code
            ),
        }
    }
}

/// The errors a stub answers with, sometimes: what servers fail with.
const ERRORS: [Errno; 5] = [
    errno::NOT_FOUND,
    errno::INVALID,
    errno::UNAVAILABLE,
    errno::FORBIDDEN,
    errno::IO_ERROR,
];

/// The stubs of an object's needs.
pub struct Stubs<'a> {
    pub model: &'a Model,
    pub object: &'a ObjectDef,
}

impl Stubs<'_> {
    /// The answers to the instance's request `ticket` (`verb path`, with
    /// `payload` when it is a request of its own, not one handed on), or
    /// why its needs do not allow it. A malformed path is answered
    /// `invalid`, as the runtime answers it.
    pub fn answer(
        &self,
        ticket: Ticket,
        verb: Verb,
        path: &str,
        payload: Option<&Carried>,
        c: &mut Choices,
    ) -> Result<Vec<Delivery>, String> {
        let (model, object) = (self.model, self.object);
        let Some(segs) = parse_request(path) else {
            // The runtime answers it so: no stub ever sees it.
            return Ok(vec![Delivery::error(
                ticket,
                Failure::runtime(errno::INVALID, format!("malformed path `{path}`")),
            )]);
        };
        let e = entry_for(model, &object.needs, verb, &segs)
            .ok_or_else(|| "no need entry covers that path with that verb".to_string())?;
        let need = model.entry(e);
        if let Some(p) = payload {
            match (p, need.request.is_empty()) {
                (Carried::None, true) | (Carried::TooLarge(_), _) => {}
                (Carried::None, false) => {
                    return Err("it carries no payload, where its need declares one".into());
                }
                (Carried::Some(p), _) => {
                    if let Some(why) = conform::mismatch_any(model, &need.request, p) {
                        return Err(format!("its payload does not fit its need: {why}"));
                    }
                }
            }
        }
        if c.chance(12) {
            let no = ERRORS[c.below(ERRORS.len() as u64) as usize];
            return Ok(vec![Delivery::error(
                ticket,
                Failure::runtime(no, "an error made by othc test's stub"),
            )]);
        }
        let value = |c: &mut Choices| need.answer.as_ref().map(|t| inputs::of_type(model, t, c));
        if !(need.stream || verb.always_streams()) {
            return Ok(vec![Delivery::answer(ticket, true, value(c))]);
        }
        let mut out: Vec<Delivery> = (0..c.below(4))
            .map(|_| Delivery::answer(ticket, false, value(c)))
            .collect();
        out.push(Delivery::answer(ticket, true, None));
        Ok(out)
    }
}
