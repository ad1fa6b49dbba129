//! How the host and the guest agent talk over the VM's one serial port: a
//! byte stream of messages, each `session (u32 LE) | kind (u8) | length
//! (u32 LE) | payload`. A session is one exec or one file transfer; the
//! host picks its id, and every message of it carries the id, so several
//! run at once over the one port. Session 0 is the VM itself (ready,
//! clock, power off, ping).

use std::io::{self, Read, Write};

use serde::{Deserialize, Serialize};

use crate::wire::ExecRequest;

/// The bytes before a payload.
pub const HEADER: usize = 9;

/// The largest payload either side takes: a pushed archive is one message,
/// so this bounds what a push may carry (the daemon's body limit is lower).
pub const MAX_PAYLOAD: usize = 1 << 30;

/// What a message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    // Host to agent.
    /// JSON [`Start`]: run a command in this session.
    Exec = 1,
    /// Bytes for the command's stdin.
    Stdin = 2,
    /// The command's stdin is closed.
    StdinClose = 3,
    /// Kill the session's whole process group.
    Kill = 4,
    /// `DEST \0 TAR`: extract an archive beneath DEST.
    Put = 5,
    /// A guest file's path: send its bytes.
    Get = 6,
    /// Power the VM off (session 0).
    PowerOff = 7,
    /// JSON [`Clock`]: the host's time and fresh randomness (session 0),
    /// sent after every start, so a VM restored from a snapshot does not
    /// live in the snapshot's past or repeat its random numbers.
    Clock = 8,
    /// Are you there? (session 0)
    Ping = 9,
    // Agent to host.
    /// The agent is up (session 0; JSON [`Ready`]).
    Ready = 100,
    Stdout = 101,
    Stderr = 102,
    /// JSON `ExecResult`: the session's last message.
    Exit = 103,
    /// JSON `WireFilesPutResult`.
    PutDone = 104,
    /// The file's bytes.
    GetDone = 105,
    /// JSON [`FilesFailure`].
    FilesFailed = 106,
    /// The answer to a ping, or to a clock (session 0).
    Pong = 107,
}

impl Kind {
    fn from_u8(b: u8) -> Option<Kind> {
        use Kind::*;
        Some(match b {
            1 => Exec,
            2 => Stdin,
            3 => StdinClose,
            4 => Kill,
            5 => Put,
            6 => Get,
            7 => PowerOff,
            8 => Clock,
            9 => Ping,
            100 => Ready,
            101 => Stdout,
            102 => Stderr,
            103 => Exit,
            104 => PutDone,
            105 => GetDone,
            106 => FilesFailed,
            107 => Pong,
            _ => return None,
        })
    }
}

/// One message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub session: u32,
    pub kind: Kind,
    pub payload: Vec<u8>,
}

impl Message {
    pub fn new(session: u32, kind: Kind, payload: impl Into<Vec<u8>>) -> Message {
        Message {
            session,
            kind,
            payload: payload.into(),
        }
    }

    pub fn json<T: Serialize>(session: u32, kind: Kind, value: &T) -> Message {
        Message::new(
            session,
            kind,
            serde_json::to_vec(value).expect("a wire value serializes"),
        )
    }

    pub fn parse<'a, T: Deserialize<'a>>(&'a self) -> io::Result<T> {
        serde_json::from_slice(&self.payload).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("a {:?} message: {e}", self.kind),
            )
        })
    }

    /// The message as bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER + self.payload.len());
        out.extend_from_slice(&self.session.to_le_bytes());
        out.push(self.kind as u8);
        out.extend_from_slice(&(self.payload.len() as u32).to_le_bytes());
        out.extend_from_slice(&self.payload);
        out
    }

    pub fn write_to(&self, w: &mut impl Write) -> io::Result<()> {
        w.write_all(&self.encode())?;
        w.flush()
    }

    /// The next message; `None` at a clean end of the stream (between
    /// messages). A stream cut inside a message, an unknown kind or an
    /// oversize length is an error: the two sides disagree, and nothing
    /// after it can be trusted.
    pub fn read_from(r: &mut impl Read) -> io::Result<Option<Message>> {
        let mut head = [0u8; HEADER];
        let mut got = 0;
        while got < HEADER {
            match r.read(&mut head[got..]) {
                Ok(0) if got == 0 => return Ok(None),
                Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        let (session, kind, len) = header(&head)?;
        let mut payload = vec![0; len];
        r.read_exact(&mut payload)?;
        Ok(Some(Message {
            session,
            kind,
            payload,
        }))
    }
}

/// A message header's session, kind and payload length.
pub fn header(head: &[u8; HEADER]) -> io::Result<(u32, Kind, usize)> {
    let session = u32::from_le_bytes(head[0..4].try_into().expect("4 bytes"));
    let kind = Kind::from_u8(head[4]).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("unknown message kind {}", head[4]),
        )
    })?;
    let len = u32::from_le_bytes(head[5..9].try_into().expect("4 bytes")) as usize;
    if len > MAX_PAYLOAD {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a message of {len} bytes (at most {MAX_PAYLOAD})"),
        ));
    }
    Ok((session, kind, len))
}

/// An exec session's start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Start {
    pub request: ExecRequest,
    /// Whether the command gets stdin (else it reads /dev/null).
    pub interactive: bool,
}

/// What the agent says when it is up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ready {
    pub agent: String,
}

/// The host's wall clock and randomness for the guest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clock {
    pub unix_nanos: u128,
    /// Bytes to mix into the guest's entropy pool.
    pub seed: Vec<u8>,
}

/// A file transfer that failed: what kind of failure, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FilesFailure {
    pub kind: crate::failure::FailureKind,
    pub reason: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_and_a_cut_one_is_an_error() {
        let ms = [
            Message::new(0, Kind::Ping, Vec::new()),
            Message::new(7, Kind::Stdout, b"hello".to_vec()),
            Message::json(u32::MAX, Kind::Exit, &crate::wire::ExecResult::code(3)),
        ];
        let bytes: Vec<u8> = ms.iter().flat_map(|m| m.encode()).collect();
        let mut r = &bytes[..];
        for m in &ms {
            assert_eq!(Message::read_from(&mut r).unwrap().as_ref(), Some(m));
        }
        assert!(Message::read_from(&mut r).unwrap().is_none());
        let mut cut = &bytes[..bytes.len() - 1];
        for _ in 0..2 {
            Message::read_from(&mut cut).unwrap();
        }
        assert!(Message::read_from(&mut cut).is_err());
        let mut unknown = Message::new(1, Kind::Ping, Vec::new()).encode();
        unknown[4] = 55;
        assert!(Message::read_from(&mut &unknown[..]).is_err());
        let mut huge = Message::new(1, Kind::Ping, Vec::new()).encode();
        huge[5..9].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = Message::read_from(&mut &huge[..]).unwrap_err();
        assert!(e.to_string().contains("at most"), "{e}");
    }
}
