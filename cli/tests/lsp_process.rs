//! The real `othc lsp` process over stdio: framing, diagnostics for a
//! broken mount, answers to malformed messages and bad requests, and the
//! exit status the spec gives after `shutdown`/`exit` and without them, and
//! a client gone while it writes.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

struct Lsp {
    child: Child,
    stdin: ChildStdin,
    messages: mpsc::Receiver<Value>,
}

fn read_frames(out: ChildStdout, tx: mpsc::Sender<Value>) {
    let mut r = BufReader::new(out);
    loop {
        let mut len = 0usize;
        loop {
            let mut line = String::new();
            if r.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(v) = line.strip_prefix("Content-Length: ") {
                len = v.parse().expect("a length");
            }
        }
        let mut body = vec![0; len];
        if r.read_exact(&mut body).is_err() {
            return;
        }
        let v: Value = serde_json::from_slice(&body).expect("the server writes JSON");
        if tx.send(v).is_err() {
            return;
        }
    }
}

impl Lsp {
    fn start() -> Lsp {
        let mut child = Command::new(env!("CARGO_BIN_EXE_othc"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("othc lsp starts");
        let stdin = child.stdin.take().unwrap();
        let out = child.stdout.take().unwrap();
        let (tx, messages) = mpsc::channel();
        std::thread::spawn(move || read_frames(out, tx));
        Lsp {
            child,
            stdin,
            messages,
        }
    }

    fn send_raw(&mut self, body: &str) {
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn send(&mut self, v: Value) {
        self.send_raw(&v.to_string());
    }

    /// Waits for the first message `pred` accepts.
    fn wait(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        loop {
            let v = self
                .messages
                .recv_timeout(Duration::from_secs(120))
                .unwrap_or_else(|_| panic!("no {what} from othc lsp in two minutes"));
            if pred(&v) {
                return v;
            }
        }
    }

    fn answer(&mut self, id: i64) -> Value {
        self.wait(&format!("answer to request {id}"), |v| v["id"] == id)
    }

    fn initialize(&mut self) {
        self.send(
            json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}),
        );
        let caps = self.answer(1);
        assert_eq!(
            caps["result"]["capabilities"]["hoverProvider"], true,
            "{caps}"
        );
        self.send(json!({"jsonrpc":"2.0","method":"initialized","params":{}}));
    }
}

#[test]
fn serves_over_stdio_and_survives_bad_input() {
    let dir = test_support::copy_of_dir(
        &root().join("examples/hello"),
        env!("CARGO_TARGET_TMPDIR"),
        "lsp-process",
    )
    .canonicalize()
    .unwrap();
    let hello = dir.join("Hello.oth");
    let text = std::fs::read_to_string(&hello)
        .unwrap()
        .replace("mount /shouter  /loud", "mount /shouter  /lod");
    let uri = format!("file://{}", hello.display());
    let mut lsp = Lsp::start();
    lsp.initialize();
    lsp.send(
        json!({"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{
        "uri": uri, "languageId": "oth", "version": 1, "text": text }}}),
    );
    let published = lsp.wait("diagnostics", |v| {
        v["method"] == "textDocument/publishDiagnostics"
            && v["params"]["diagnostics"]
                .as_array()
                .is_some_and(|d| !d.is_empty())
    });
    let d = &published["params"]["diagnostics"][0];
    assert_eq!(d["code"], "E0501", "{published}");
    assert_eq!(d["range"]["start"], json!({"line": 12, "character": 20}));

    // Not JSON: a parse error, id null; then the session goes on.
    lsp.send_raw("{this is not json");
    let e = lsp.wait("parse error", |v| v["error"]["code"] == -32700);
    assert_eq!(e["id"], Value::Null);
    // Params of the wrong shape, and a method nobody answers.
    lsp.send(json!({"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"nope":1}}));
    assert_eq!(lsp.answer(2)["error"]["code"], -32602);
    lsp.send(json!({"jsonrpc":"2.0","id":3,"method":"textDocument/unheardOf","params":{}}));
    assert_eq!(lsp.answer(3)["error"]["code"], -32601);
    // Still serving: a hover on `greeter`.
    lsp.send(
        json!({"jsonrpc":"2.0","id":4,"method":"textDocument/hover","params":{
        "textDocument": {"uri": uri}, "position": {"line": 10, "character": 12}}}),
    );
    let h = lsp.answer(4);
    assert!(
        h["result"]["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("instance greeter = Greeter"),
        "{h}"
    );

    lsp.send(json!({"jsonrpc":"2.0","id":5,"method":"shutdown"}));
    assert_eq!(lsp.answer(5)["result"], Value::Null);
    lsp.send(json!({"jsonrpc":"2.0","method":"exit"}));
    drop(lsp.stdin);
    let status = lsp.child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "exit after shutdown is status 0");
}

#[test]
fn exit_without_shutdown_is_status_1() {
    let mut lsp = Lsp::start();
    lsp.initialize();
    lsp.send(json!({"jsonrpc":"2.0","method":"exit"}));
    drop(lsp.stdin);
    let status = lsp.child.wait().unwrap();
    assert_eq!(status.code(), Some(1));
    let mut err = String::new();
    lsp.child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(err.contains("before `shutdown`"), "{err}");
}

/// A client gone (its end of the server's stdout closed, as
/// fixtures/cli/closed_stdout.cases does for the reports) while its end of
/// stdin stays open: the server stops at once with status 1 and says why,
/// rather than waiting on for input, looking alive.
#[test]
fn a_closed_stdout_stops_the_server_saying_so() {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut child = Command::new(env!("CARGO_BIN_EXE_othc"))
        .arg("lsp")
        .stdin(Stdio::piped())
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let body = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}})
        .to_string();
    let mut stdin = child.stdin.take().unwrap();
    write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
    let (status, err) = test_support::ended_within(
        &mut child,
        Duration::from_secs(20),
        "othc lsp, its client gone,",
    );
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        err.contains("cannot write to the client on standard output"),
        "{err}"
    );
    drop(stdin);
}
