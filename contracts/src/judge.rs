//! The judgments an answer or an error meets, whoever made it (an object
//! driven alone, or an image through its exports): an input not taken must
//! not be answered as taken, an answer must be what its entry declares,
//! and an errno keeps one code.

use std::collections::HashMap;

use othc::model::Model;
use othismo_runtime::Payload;
use othismo_runtime::abi::{Errno, Failure};

use crate::conform;
use crate::findings::Kind;
use crate::inputs::{Input, Request};

/// What is wrong with answering `req` (whose answers are a stream or not)
/// with `payload` (`Err(n)`: a payload of `n` bytes, over the limit), as
/// the last answer or not.
pub fn answer(
    model: &Model,
    req: &Request,
    stream: bool,
    done: bool,
    payload: Result<Option<&Payload>, usize>,
) -> Option<Kind> {
    if req.input == Input::NotTaken {
        let wrong = req.wrong.clone().unwrap_or_default();
        return Some(Kind::BadInputAccepted { wrong });
    }
    let entry = model.entry(req.entry);
    let why = match (payload, &entry.answer) {
        (Err(n), _) => Some(format!("a payload of {n} bytes, over the payload limit")),
        // The last answer of a stream may carry nothing.
        (Ok(None), _) if stream && done => None,
        (Ok(None), None) => None,
        (Ok(None), Some(_)) => Some("no payload, where it declares one".into()),
        (Ok(Some(p)), None) => Some(format!(
            "a payload ({}), where it declares none",
            p.content_type
        )),
        (Ok(Some(p)), Some(ty)) => conform::mismatch(model, ty, p),
    };
    why.map(|why| Kind::AnswerNotDeclared { why })
}

/// What is wrong with `failure`, given the code each errno was failed with
/// so far (`codes`, updated).
pub fn error(codes: &mut HashMap<Errno, String>, failure: &Failure) -> Option<Kind> {
    let (no, code) = (failure.errno, failure.code.as_str());
    // The runtime's own errnos have their codes; a server's own keeps the
    // first code it was failed with.
    let other = match no.known() {
        Some(known) if known != code => Some(known.to_string()),
        Some(_) => None,
        None => codes.get(&no).filter(|c| *c != code).cloned(),
    };
    if let Some(other) = other {
        return Some(Kind::ErrnoCodes {
            errno: no,
            code: code.to_string(),
            other,
        });
    }
    codes.insert(no, code.to_string());
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use othismo_runtime::abi::errno;

    fn failed(no: Errno, code: &str) -> Failure {
        Failure::new(no, code, "")
    }

    #[test]
    fn the_runtimes_errnos_keep_their_codes_and_a_servers_own_keep_their_first() {
        let mut codes = HashMap::new();
        // The runtime's own: its code, whatever came before.
        assert!(error(&mut codes, &failed(errno::NOT_FOUND, "not_found")).is_none());
        assert!(matches!(
            error(&mut codes, &failed(errno::NOT_FOUND, "missing")),
            Some(Kind::ErrnoCodes { other, .. }) if other == "not_found"
        ));
        // A server's own (here 200, even failed as `error`, the word the
        // runtime gives numbers it does not know): the first code it came
        // with.
        let own = Errno::new(200).unwrap();
        assert!(error(&mut codes, &failed(own, "error")).is_none());
        assert!(error(&mut codes, &failed(own, "error")).is_none());
        assert!(matches!(
            error(&mut codes, &failed(own, "out_of_stock")),
            Some(Kind::ErrnoCodes { other, .. }) if other == "error"
        ));
    }
}
