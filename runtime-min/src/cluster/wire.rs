//! The wire form of the protocol between nodes: one NATS message per Layer 1
//! message (a request, an answer, an error, a cancel), each a BSON document
//! with its version (`v`) and kind (`k`), the payload's bytes as a binary
//! field. A message of another version, or malformed, decodes to an error
//! and is dropped by its receiver: nothing reaches an instance from it.

use bson::spec::BinarySubtype;
use bson::{Binary, Bson, Document};
use othc::model::Verb;

use crate::Payload;
use crate::abi::{Errno, Failure, RequestId};

/// The version of the wire form this runtime speaks.
pub const VERSION: i32 = 1;

#[derive(Clone, Debug, PartialEq)]
pub enum Wire {
    /// A request from an instance on the sending node.
    Request(Request),
    /// An answer to request `id` of the node that sent it, made by `to`.
    /// `paced`: a part of a stream read at its reader's pace; the next
    /// part comes once the reader's node says it was taken (`Took`).
    Answer {
        to: String,
        id: RequestId,
        done: bool,
        payload: Option<Payload>,
        paced: bool,
    },
    /// Request `id` failed.
    Error {
        to: String,
        id: RequestId,
        failure: Failure,
    },
    /// Request `id` to `to` was taken by node `node`: if that node is lost
    /// before it answers, the request fails (`unavailable`).
    Taken {
        to: String,
        id: RequestId,
        node: String,
    },
    /// The node whose answers go to `reply` gave up on its request `id`
    /// to `to`.
    Cancel {
        reply: String,
        to: String,
        id: RequestId,
    },
    /// The reader of the paced stream answering request `id` to `to` (of
    /// the node whose answers go to `reply`) took its last part: the next
    /// may come.
    Took {
        reply: String,
        to: String,
        id: RequestId,
    },
}

/// A request from instance `from` on the sending node to instance `to`,
/// on `path` of `to`'s tree, as the sender's node routed it. Answers go to
/// the subject `reply`, naming the request by `id`.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub from: String,
    pub to: String,
    pub id: RequestId,
    pub verb: Verb,
    pub path: String,
    pub flags: i32,
    pub payload: Option<Payload>,
    pub reply: String,
}

impl Wire {
    /// Whether it is work for its receiver (counted for quiescence), not
    /// bookkeeping (a cancel, a request taken).
    pub fn is_work(&self) -> bool {
        !matches!(self, Wire::Cancel { .. } | Wire::Taken { .. })
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut d = Document::new();
        d.insert("v", VERSION);
        match self {
            Wire::Request(Request {
                from,
                to,
                id,
                verb,
                path,
                flags,
                payload,
                reply,
            }) => {
                d.insert("k", "request");
                d.insert("from", from.as_str());
                d.insert("to", to.as_str());
                d.insert("id", id.0);
                d.insert("verb", verb.wire());
                d.insert("path", path.as_str());
                d.insert("flags", *flags);
                d.insert("reply", reply.as_str());
                put_payload(&mut d, payload);
            }
            Wire::Answer {
                to,
                id,
                done,
                payload,
                paced,
            } => {
                d.insert("k", "answer");
                d.insert("to", to.as_str());
                d.insert("id", id.0);
                d.insert("done", *done);
                // Said only when it is so: a plain answer is as before.
                if *paced {
                    d.insert("paced", true);
                }
                put_payload(&mut d, payload);
            }
            Wire::Error { to, id, failure } => {
                d.insert("k", "error");
                d.insert("to", to.as_str());
                d.insert("id", id.0);
                d.insert("errno", failure.errno.get());
                d.insert("code", failure.code.as_str());
                d.insert("desc", failure.desc.as_str());
            }
            Wire::Taken { to, id, node } => {
                d.insert("k", "taken");
                d.insert("to", to.as_str());
                d.insert("id", id.0);
                d.insert("node", node.as_str());
            }
            Wire::Cancel { reply, to, id } => {
                d.insert("k", "cancel");
                d.insert("reply", reply.as_str());
                d.insert("to", to.as_str());
                d.insert("id", id.0);
            }
            Wire::Took { reply, to, id } => {
                d.insert("k", "took");
                d.insert("reply", reply.as_str());
                d.insert("to", to.as_str());
                d.insert("id", id.0);
            }
        }
        let mut out = Vec::new();
        d.to_writer(&mut out).expect("a document writes to memory");
        out
    }

    /// The message `bytes` hold, or why they are not one.
    pub fn decode(bytes: &[u8]) -> Result<Wire, WireError> {
        let d = Document::from_reader(bytes).map_err(|e| WireError::NotBson(e.to_string()))?;
        let v = d.get_i32("v").map_err(|_| WireError::Missing("v"))?;
        if v != VERSION {
            return Err(WireError::Version(v));
        }
        let text = |k: &'static str| {
            d.get_str(k)
                .map(str::to_string)
                .map_err(|_| WireError::Missing(k))
        };
        let int = |k: &'static str| d.get_i32(k).map_err(|_| WireError::Missing(k));
        match d.get_str("k").map_err(|_| WireError::Missing("k"))? {
            "request" => Ok(Wire::Request(Request {
                from: text("from")?,
                to: text("to")?,
                id: RequestId(int("id")?),
                verb: {
                    let n = int("verb")?;
                    Verb::from_wire(n).ok_or(WireError::UnknownVerb(n))?
                },
                path: text("path")?,
                flags: int("flags")?,
                payload: get_payload(&d)?,
                reply: text("reply")?,
            })),
            "answer" => Ok(Wire::Answer {
                to: text("to")?,
                id: RequestId(int("id")?),
                done: d.get_bool("done").map_err(|_| WireError::Missing("done"))?,
                payload: get_payload(&d)?,
                paced: d.get_bool("paced").unwrap_or(false),
            }),
            "error" => Ok(Wire::Error {
                to: text("to")?,
                id: RequestId(int("id")?),
                failure: {
                    let n = int("errno")?;
                    let errno = Errno::new(n).ok_or(WireError::NotAnErrno(n))?;
                    Failure::new(errno, text("code")?, text("desc")?)
                },
            }),
            "taken" => Ok(Wire::Taken {
                to: text("to")?,
                id: RequestId(int("id")?),
                node: text("node")?,
            }),
            "cancel" => Ok(Wire::Cancel {
                reply: text("reply")?,
                to: text("to")?,
                id: RequestId(int("id")?),
            }),
            "took" => Ok(Wire::Took {
                reply: text("reply")?,
                to: text("to")?,
                id: RequestId(int("id")?),
            }),
            other => Err(WireError::UnknownKind(other.to_string())),
        }
    }
}

/// Why a message from the cluster is not one this runtime reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WireError {
    /// Not a BSON document: what the reader said.
    NotBson(String),
    /// Another version of the wire (this runtime speaks `VERSION`).
    Version(i32),
    /// A field its kind needs is missing or of another type (`v` the
    /// version, `k` the kind).
    Missing(&'static str),
    UnknownKind(String),
    UnknownVerb(i32),
    /// An error whose errno is zero or negative.
    NotAnErrno(i32),
    /// A payload's content type without its data.
    PayloadWithoutData,
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WireError::NotBson(why) => write!(f, "not a BSON document: {why}"),
            WireError::Version(v) => {
                write!(f, "wire version {v}, where this runtime speaks {VERSION}")
            }
            WireError::Missing("v") => f.write_str("no version (`v`)"),
            WireError::Missing("k") => f.write_str("no kind (`k`)"),
            WireError::Missing(k) => write!(f, "no `{k}`"),
            WireError::UnknownKind(k) => write!(f, "an unknown kind `{k}`"),
            WireError::UnknownVerb(n) => write!(f, "an unknown verb ({n})"),
            WireError::NotAnErrno(n) => write!(f, "an error with errno {n}, not a positive number"),
            WireError::PayloadWithoutData => f.write_str("a payload type without its data"),
        }
    }
}

impl std::error::Error for WireError {}

fn put_payload(d: &mut Document, payload: &Option<Payload>) {
    if let Some(p) = payload {
        d.insert("type", &*p.content_type);
        d.insert(
            "data",
            Bson::Binary(Binary {
                subtype: BinarySubtype::Generic,
                bytes: p.data.clone(),
            }),
        );
    }
}

fn get_payload(d: &Document) -> Result<Option<Payload>, WireError> {
    let Ok(ty) = d.get_str("type") else {
        return Ok(None);
    };
    let data = d
        .get_binary_generic("data")
        .map_err(|_| WireError::PayloadWithoutData)?;
    Ok(Some(Payload {
        content_type: ty.into(),
        data: data.clone(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::errno;

    #[test]
    fn every_kind_round_trips_and_damage_is_an_error() {
        let p = Some(Payload {
            content_type: "text/plain".into(),
            data: b"Ada".to_vec(),
        });
        let all = [
            Wire::Request(Request {
                from: "greeter".into(),
                to: "loud".into(),
                id: RequestId(7),
                verb: Verb::Write,
                path: "/".into(),
                flags: 0,
                payload: p.clone(),
                reply: "oth.x.n.a".into(),
            }),
            Wire::Answer {
                to: "loud".into(),
                id: RequestId(7),
                done: false,
                payload: p,
                paced: true,
            },
            Wire::Answer {
                to: "loud".into(),
                id: RequestId(8),
                done: true,
                payload: None,
                paced: false,
            },
            Wire::Error {
                to: "loud".into(),
                id: RequestId(9),
                failure: Failure::new(errno::NOT_FOUND, "not_found", "nothing"),
            },
            Wire::Cancel {
                reply: "oth.x.n.a".into(),
                to: "loud".into(),
                id: RequestId(7),
            },
            Wire::Taken {
                to: "loud".into(),
                id: RequestId(7),
                node: "b".into(),
            },
            Wire::Took {
                reply: "oth.x.n.a".into(),
                to: "loud".into(),
                id: RequestId(7),
            },
        ];
        for m in &all {
            let bytes = m.encode();
            assert_eq!(&Wire::decode(&bytes).unwrap(), m);
            for cut in [0, 1, 4, bytes.len() / 2, bytes.len() - 1] {
                assert!(Wire::decode(&bytes[..cut]).is_err(), "{m:?} cut at {cut}");
            }
        }
        let mut d = Document::new();
        d.insert("v", 2);
        d.insert("k", "cancel");
        let mut b = Vec::new();
        d.to_writer(&mut b).unwrap();
        let err = Wire::decode(&b).unwrap_err();
        assert_eq!(err, WireError::Version(2));
        assert!(err.to_string().contains("version 2"), "{err}");
    }

    #[test]
    fn each_way_a_message_is_unreadable_is_its_own_error() {
        let request = Wire::Request(Request {
            from: "a".into(),
            to: "b".into(),
            id: RequestId(1),
            verb: Verb::Read,
            path: "/x".into(),
            flags: 0,
            payload: None,
            reply: "r".into(),
        });
        let doc = |bytes: &[u8]| Document::from_reader(bytes).unwrap();
        let mut d = doc(&request.encode());
        d.insert("k", "gossip");
        assert_eq!(
            Wire::decode(&bson::to_vec(&d).unwrap()),
            Err(WireError::UnknownKind("gossip".into()))
        );
        let mut d = doc(&request.encode());
        d.remove("path");
        assert_eq!(
            Wire::decode(&bson::to_vec(&d).unwrap()),
            Err(WireError::Missing("path"))
        );
        let mut d = doc(&request.encode());
        d.insert("verb", 99);
        assert_eq!(
            Wire::decode(&bson::to_vec(&d).unwrap()),
            Err(WireError::UnknownVerb(99))
        );
        let mut d = doc(&request.encode());
        d.insert("type", "text/plain");
        assert_eq!(
            Wire::decode(&bson::to_vec(&d).unwrap()),
            Err(WireError::PayloadWithoutData)
        );
        assert!(matches!(Wire::decode(b"\x05"), Err(WireError::NotBson(_))));
    }
}
