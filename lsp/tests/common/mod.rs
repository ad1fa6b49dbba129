//! An LSP client for tests: drives a server over a connection (in process,
//! or a real `othc lsp` over pipes), keeps the diagnostics it publishes,
//! and prints answers as text for snapshots.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender};
use lsp_server::{Message, Notification, Request, RequestId, Response};
use lsp_types::Url;
use serde_json::{Value, json};

pub struct Client {
    pub tx: Sender<Message>,
    pub rx: Receiver<Message>,
    /// Where the test's files are: printed paths are relative to it.
    pub root: PathBuf,
    next_id: i32,
    versions: BTreeMap<PathBuf, i32>,
    /// The last diagnostics published per file.
    pub diagnostics: BTreeMap<Url, Vec<Value>>,
    /// Every publish in order, as (file, version, how many), until a test
    /// takes them.
    pub publishes: Vec<(Url, Option<i64>, usize)>,
    /// Every text the client has open, as it has it.
    pub texts: BTreeMap<PathBuf, String>,
}

impl Client {
    pub fn new(tx: Sender<Message>, rx: Receiver<Message>, root: &Path) -> Client {
        Client {
            tx,
            rx,
            root: root.to_path_buf(),
            next_id: 0,
            versions: BTreeMap::new(),
            diagnostics: BTreeMap::new(),
            publishes: Vec::new(),
            texts: BTreeMap::new(),
        }
    }

    pub fn url(&self, rel: &str) -> Url {
        Url::from_file_path(self.root.join(rel)).expect("absolute path")
    }

    /// Sends a request and waits for its answer, keeping what is
    /// published meanwhile: `Ok(result)` or `Err(error object)`.
    pub fn request(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        self.tx
            .send(Message::Request(Request::new(
                id.clone(),
                method.into(),
                params,
            )))
            .expect("server gone");
        loop {
            match self.recv() {
                Message::Response(Response {
                    id: rid,
                    result,
                    error,
                }) if rid == id => {
                    return match error {
                        Some(e) => Err(serde_json::to_value(e).unwrap()),
                        None => Ok(result.unwrap_or(Value::Null)),
                    };
                }
                _ => {}
            }
        }
    }

    pub fn notify(&self, method: &str, params: Value) {
        self.tx
            .send(Message::Notification(Notification::new(
                method.into(),
                params,
            )))
            .expect("server gone");
    }

    /// The next message, recording published diagnostics.
    pub fn recv(&mut self) -> Message {
        let m = self
            .rx
            .recv_timeout(Duration::from_secs(120))
            .expect("the server answered nothing for two minutes");
        if let Message::Notification(n) = &m
            && n.method == "textDocument/publishDiagnostics"
        {
            let uri: Url = serde_json::from_value(n.params["uri"].clone()).unwrap();
            let list = n.params["diagnostics"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let version = n.params["version"].as_i64();
            self.publishes.push((uri.clone(), version, list.len()));
            self.diagnostics.insert(uri, list);
        }
        m
    }

    /// Initializes as Neovim does: Markdown hovers, related information.
    pub fn initialize(&mut self) -> Value {
        self.initialize_as(json!({
            "textDocument": {
                "hover": { "contentFormat": ["markdown", "plaintext"] },
                "publishDiagnostics": { "relatedInformation": true },
            }
        }))
    }

    /// Initializes with the client capabilities `caps`.
    pub fn initialize_as(&mut self, caps: Value) -> Value {
        let caps = self
            .request(
                "initialize",
                json!({
                    "processId": null,
                    "rootUri": Url::from_directory_path(&self.root).unwrap(),
                    "capabilities": caps,
                }),
            )
            .expect("initialize failed");
        self.notify("initialized", json!({}));
        caps
    }

    pub fn open(&mut self, rel: &str) {
        let text = std::fs::read_to_string(self.root.join(rel)).expect("fixture file");
        self.versions.insert(rel.into(), 1);
        self.texts.insert(rel.into(), text.clone());
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": {
                "uri": self.url(rel), "languageId": "oth", "version": 1, "text": text
            }}),
        );
    }

    /// Replaces the first `old` in an open file with `new`, as an
    /// incremental change.
    pub fn replace(&mut self, rel: &str, old: &str, new: &str) {
        let text = self
            .texts
            .get(Path::new(rel))
            .expect("file not open")
            .clone();
        let at = text
            .find(old)
            .unwrap_or_else(|| panic!("`{old}` not in {rel}"));
        let start = position(&text, at);
        let end = position(&text, at + old.len());
        let mut changed = text.clone();
        changed.replace_range(at..at + old.len(), new);
        let v = self.versions.entry(rel.into()).or_insert(1);
        *v += 1;
        let version = *v;
        self.texts.insert(rel.into(), changed);
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": { "uri": self.url(rel), "version": version },
                "contentChanges": [{ "range": { "start": start, "end": end }, "text": new }]
            }),
        );
    }

    pub fn close(&mut self, rel: &str) {
        self.texts.remove(Path::new(rel));
        self.notify(
            "textDocument/didClose",
            json!({ "textDocument": { "uri": self.url(rel) } }),
        );
    }

    /// A request whose answer means every check of the edits before it has
    /// been published (a request is answered from a fresh analysis, which
    /// publishes first).
    pub fn settle(&mut self) {
        if let Some(rel) = self.texts.keys().next().cloned() {
            let uri = self.url(&rel.to_string_lossy());
            let _ = self.request(
                "textDocument/documentSymbol",
                json!({ "textDocument": { "uri": uri } }),
            );
        }
    }

    pub fn shutdown(&mut self) {
        self.request("shutdown", Value::Null)
            .expect("shutdown failed");
        self.notify("exit", Value::Null);
    }

    /// A URL as the snapshot shows it: relative to the test's folder.
    pub fn show_url(&self, url: &str) -> String {
        let root = Url::from_directory_path(&self.root).unwrap().to_string();
        url.strip_prefix(&root).unwrap_or(url).to_string()
    }
}

/// The LSP position (UTF-16) of byte `at`.
pub fn position(text: &str, at: usize) -> Value {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..at].matches('\n').count();
    let character: usize = text[line_start..at].encode_utf16().count();
    json!({ "line": line, "character": character })
}

/// `L:C-L:C`, 1-based, as people count lines and (UTF-16) columns.
pub fn show_range(r: &Value) -> String {
    let p = |v: &Value| {
        format!(
            "{}:{}",
            v["line"].as_u64().unwrap_or(0) + 1,
            v["character"].as_u64().unwrap_or(0) + 1
        )
    };
    format!("{}-{}", p(&r["start"]), p(&r["end"]))
}
