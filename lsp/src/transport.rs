//! LSP's base protocol over stdin and stdout: `Content-Length` headers and
//! JSON bodies. lsp-server's own stdio transport stops reading at the first
//! body that is not a JSON-RPC message; this one answers it with the error
//! the JSON-RPC spec gives (-32700 parse error, -32600 invalid request, id
//! null) and reads on, so a client's slip never ends the session.

use std::io::{self, BufRead, Write};
use std::thread;

use crossbeam_channel::{Receiver, Sender, bounded, unbounded};
use lsp_server::{Connection, Message};

/// The largest body read: a bigger `Content-Length` is refused unread.
const MAX_BODY: usize = 256 << 20;
/// The longest header line read (a header is a name and a number): a longer
/// one is refused before more of it is held.
const MAX_HEADER: usize = 8 << 10;

/// A connection over stdio, and the thread writing to stdout (join it after
/// dropping the connection, so every message is out before the process
/// ends; the reader is left blocked on stdin).
pub fn stdio() -> (Connection, thread::JoinHandle<()>) {
    let (to_client, outgoing) = bounded::<Message>(0);
    let (raw_tx, raw_rx) = unbounded::<String>();
    let writer = thread::spawn(move || {
        // A write that fails means the client is gone: the server would
        // otherwise wait on for input that may never end, looking alive.
        // It holds nothing that outlives it, so it stops here and now.
        if let Err(e) = write_loop(outgoing, raw_rx) {
            eprintln!("othc lsp: cannot write to the client on standard output ({e}): stopping");
            std::process::exit(1);
        }
    });
    let (incoming, from_client) = bounded::<Message>(0);
    thread::spawn(move || {
        let stdin = io::stdin();
        read_loop(&mut stdin.lock(), &incoming, &raw_tx);
    });
    (
        Connection {
            sender: to_client,
            receiver: from_client,
        },
        writer,
    )
}

/// Writes each message to stdout; ends when the server is done, or with
/// the error that stopped a write (the client gone).
fn write_loop(outgoing: Receiver<Message>, mut raw: Receiver<String>) -> io::Result<()> {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    loop {
        let body = crossbeam_channel::select! {
            recv(outgoing) -> m => match m {
                Ok(m) => match serde_json::to_string(&m) {
                    Ok(s) => s,
                    Err(_) => continue,
                },
                Err(_) => break,
            },
            recv(raw) -> r => match r {
                Ok(r) => r,
                // The reader is done: only the server's messages are left.
                Err(_) => {
                    raw = crossbeam_channel::never();
                    continue;
                }
            },
        };
        write!(out, "Content-Length: {}\r\n\r\n{body}", body.len())?;
        out.flush()?;
    }
    Ok(())
}

/// Reads messages until the input ends, handing each well-formed one on.
pub fn read_loop(input: &mut impl BufRead, incoming: &Sender<Message>, raw: &Sender<String>) {
    loop {
        let body = match read_body(input) {
            Ok(Some(b)) => b,
            Ok(None) => return,
            Err(e) => {
                eprintln!("othc lsp: unreadable input, stopping: {e}");
                return;
            }
        };
        match parse(&body) {
            Ok(m) => {
                if incoming.send(m).is_err() {
                    return;
                }
            }
            Err(error) => {
                eprintln!("othc lsp: {}", error["error"]["message"]);
                let _ = raw.send(error.to_string());
            }
        }
    }
}

/// A message, or the JSON-RPC error response that answers it.
fn parse(body: &[u8]) -> Result<Message, serde_json::Value> {
    let reply = |code: i32, message: String, id: serde_json::Value| {
        serde_json::json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": { "code": code, "message": message }
        })
    };
    let value: serde_json::Value = serde_json::from_slice(body)
        .map_err(|e| reply(-32700, format!("parse error: {e}"), serde_json::Value::Null))?;
    let id = value.get("id").cloned().unwrap_or(serde_json::Value::Null);
    // A message is a request or notification (a string `method`) or a
    // response (`result` or `error`): anything else is not one.
    let shaped = match value.get("method") {
        Some(m) => m.is_string(),
        None => value.get("result").is_some() || value.get("error").is_some(),
    };
    if !shaped {
        return Err(reply(
            -32600,
            "invalid request: no method, result or error".into(),
            id,
        ));
    }
    serde_json::from_value(value).map_err(|e| reply(-32600, format!("invalid request: {e}"), id))
}

/// One body, `None` at the end of input.
fn read_body(input: &mut impl BufRead) -> io::Result<Option<Vec<u8>>> {
    let mut length = None;
    let mut line = String::new();
    loop {
        line.clear();
        // At most one byte past the limit is read: enough to know.
        let read = io::Read::take(&mut *input, MAX_HEADER as u64 + 1).read_line(&mut line)?;
        if read == 0 {
            return Ok(None);
        }
        if line.len() > MAX_HEADER {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("a header line is over the limit of {MAX_HEADER} bytes"),
            ));
        }
        let header = line.trim_end();
        if header.is_empty() {
            if length.is_some() {
                break;
            }
            continue;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse::<usize>().ok();
            if length.is_none() {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("bad Content-Length `{}`", value.trim()),
                ));
            }
        }
    }
    let length = length.unwrap_or(0);
    if length > MAX_BODY {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a body of {length} bytes is over the limit of {MAX_BODY}"),
        ));
    }
    let mut body = vec![0; length];
    input.read_exact(&mut body)?;
    Ok(Some(body))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    #[test]
    fn malformed_bodies_are_answered_and_reading_goes_on() {
        let input = [
            frame("{not json"),
            frame(r#"{"jsonrpc":"2.0","id":7,"params":{}}"#),
            frame(r#"{"jsonrpc":"2.0","id":8,"method":42}"#),
            frame(r#"{"jsonrpc":"2.0","method":"exit"}"#),
        ]
        .concat();
        let (tx, rx) = unbounded();
        let (raw_tx, raw_rx) = unbounded();
        read_loop(&mut input.as_bytes(), &tx, &raw_tx);
        let errors: Vec<serde_json::Value> = raw_rx
            .try_iter()
            .map(|s| serde_json::from_str(&s).unwrap())
            .collect();
        assert_eq!(errors[0]["error"]["code"], -32700);
        assert_eq!(errors[0]["id"], serde_json::Value::Null);
        assert_eq!(errors[1]["error"]["code"], -32600);
        assert_eq!(errors[1]["id"], 7);
        assert_eq!(errors[2]["error"]["code"], -32600);
        assert_eq!(errors[2]["id"], 8);
        let got: Vec<Message> = rx.try_iter().collect();
        assert!(matches!(&got[..], [Message::Notification(n)] if n.method == "exit"));
    }

    /// A header line with no end (100 MB of it) is refused once past the
    /// limit, never held whole.
    #[test]
    fn an_endless_header_line_is_refused_early() {
        struct Endless(u64);
        impl io::Read for Endless {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = buf.len().min(self.0 as usize);
                buf[..n].fill(b'x');
                self.0 -= n as u64;
                Ok(n)
            }
        }
        let mut input = io::BufReader::new(Endless(100 << 20));
        let e = read_body(&mut input).unwrap_err();
        assert!(
            e.to_string().contains("a header line is over the limit"),
            "{e}"
        );
        // What was read is the limit and a buffer's worth, not the line.
        assert!(
            input.get_ref().0 > (99 << 20),
            "read {} bytes",
            (100 << 20) - input.get_ref().0
        );
    }
}
