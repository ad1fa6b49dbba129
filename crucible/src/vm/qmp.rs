//! The host's side of qemu's monitor protocol (QMP), for the two moments a
//! VM's migration is driven: saving the snapshot template and loading a
//! snapshot into a new VM. Blocking: callers run it off the async runtime.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A QMP session in command mode.
pub struct Qmp {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
}

impl Qmp {
    /// Connects to the socket at `path` (waiting up to `within` for qemu to
    /// make it), reads the greeting and enters command mode.
    pub fn connect(path: &Path, within: Duration) -> Result<Qmp, String> {
        let deadline = Instant::now() + within;
        let stream = loop {
            match UnixStream::connect(path) {
                Ok(s) => break s,
                Err(e) if Instant::now() > deadline => {
                    return Err(format!("QMP {}: {e}", path.display()));
                }
                Err(_) => std::thread::sleep(Duration::from_millis(5)),
            }
        };
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .map_err(|e| e.to_string())?;
        let reader = BufReader::new(stream.try_clone().map_err(|e| e.to_string())?);
        let mut qmp = Qmp {
            reader,
            writer: stream,
        };
        let mut greeting = String::new();
        qmp.reader
            .read_line(&mut greeting)
            .map_err(|e| e.to_string())?;
        qmp.ask(json!({"execute": "qmp_capabilities"}))?;
        Ok(qmp)
    }

    /// Runs one command: its `return` value, or its error (events that
    /// arrive meanwhile are skipped).
    pub fn ask(&mut self, cmd: Value) -> Result<Value, String> {
        writeln!(self.writer, "{cmd}").map_err(|e| e.to_string())?;
        loop {
            let mut line = String::new();
            if self
                .reader
                .read_line(&mut line)
                .map_err(|e| e.to_string())?
                == 0
            {
                return Err("QMP closed".into());
            }
            let v: Value =
                serde_json::from_str(&line).map_err(|e| format!("QMP said {line}: {e}"))?;
            if let Some(r) = v.get("return") {
                return Ok(r.clone());
            }
            if let Some(e) = v.get("error") {
                return Err(format!("QMP {cmd}: {e}"));
            }
        }
    }

    /// Leaves the guest's memory out of the migration when it is in a
    /// shared file (the snapshot's RAM file): set on both ends.
    pub fn ignore_shared_memory(&mut self) -> Result<(), String> {
        self.ask(json!({
            "execute": "migrate-set-capabilities",
            "arguments": {"capabilities": [{"capability": "x-ignore-shared", "state": true}]}
        }))
        .map(drop)
    }
}
