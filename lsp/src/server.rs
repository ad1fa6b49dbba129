//! The server's loop: documents in, checks out, requests handed on. Edits
//! are debounced; each check runs on a thread of its own over a snapshot
//! of the documents, so a newer edit starts a newer check at once instead
//! of waiting behind an older one, whose result is then dropped
//! unpublished. Each request is answered on a thread of its own from a
//! `Snapshot` (the text as it was when the request came, and its
//! analysis, made there if the last check is older than the last edit):
//! the loop never runs a handler, so a slow answer holds up no edit.

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::Arc;
use std::thread;
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender, after, never, select, unbounded};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::PublishDiagnostics;
use lsp_types::{PublishDiagnosticsParams, Url};
use othc::ide::Analysis;

use crate::config::Config;
use crate::diagnostics::by_file;
use crate::snapshot::{Done, Snapshot};
use crate::workspace::{Documents, analyze, path_of, url_of};

pub struct Server<'c> {
    conn: &'c Connection,
    pub(crate) config: Config,
    pub(crate) docs: Documents,
    /// Bumped by every change to what a check would see.
    generation: u64,
    /// When the next check starts, if one is due.
    due: Option<Instant>,
    /// The newest analysis and the generation it saw.
    analysis: Option<(u64, Arc<Analysis>)>,
    /// What was last published, by file: a check republishes what
    /// changed, and every document edited since.
    published: BTreeMap<Url, Vec<lsp_types::Diagnostic>>,
    /// Documents opened or edited since the last publish. Each gets one
    /// even when its diagnostics are unchanged: a client may drop what it
    /// showed for a document on an edit and wait for the next publish
    /// (eglot's flymake does), so silence would read as "no errors".
    edited: BTreeSet<PathBuf>,
    done_tx: Sender<Done>,
    done_rx: Receiver<Done>,
}

impl<'c> Server<'c> {
    pub fn new(conn: &'c Connection, config: Config) -> Server<'c> {
        let (done_tx, done_rx) = unbounded();
        Server {
            conn,
            config,
            docs: Documents::default(),
            generation: 0,
            due: None,
            analysis: None,
            published: BTreeMap::new(),
            edited: BTreeSet::new(),
            done_tx,
            done_rx,
        }
    }

    /// Serves until the client says `exit` (after `shutdown`) or goes away.
    pub fn run(&mut self) -> Result<(), String> {
        loop {
            let timer = match self.due {
                Some(t) => after(t.saturating_duration_since(Instant::now())),
                None => never(),
            };
            select! {
                recv(self.conn.receiver) -> msg => {
                    let Ok(msg) = msg else {
                        return Err("the client went away without `shutdown`".into());
                    };
                    match msg {
                        Message::Request(req) => {
                            if self.conn.handle_shutdown(&req).map_err(|e| e.to_string())? {
                                return Ok(());
                            }
                            self.request(req);
                        }
                        Message::Notification(n) => {
                            if n.method == "exit" {
                                return Err("`exit` came before `shutdown`".into());
                            }
                            self.notification(n);
                        }
                        Message::Response(_) => {}
                    }
                }
                recv(self.done_rx) -> done => {
                    let Ok(done) = done else { continue };
                    if done.generation == self.generation
                        && let Some(a) = done.analysis
                    {
                        // Of the current text (a request's, say): the check
                        // waiting for the debounce is not needed.
                        self.due = None;
                        self.publish(&a);
                        self.keep(done.generation, a);
                    }
                    if let Some(p) = done.published {
                        let _ = p.send(());
                    }
                }
                recv(timer) -> _ => {
                    self.due = None;
                    self.start_check();
                }
            }
        }
    }

    fn start_check(&mut self) {
        let docs = self.docs.clone();
        let generation = self.generation;
        let tx = self.done_tx.clone();
        thread::spawn(move || {
            let analysis = catch_unwind(AssertUnwindSafe(|| analyze(&docs)))
                .unwrap_or_else(|_| {
                    eprintln!("othc lsp: the check panicked; diagnostics not updated");
                    None
                })
                .map(Arc::new);
            let _ = tx.send(Done {
                generation,
                analysis,
                published: None,
            });
        });
    }

    /// Something a check sees changed: check again after the debounce.
    fn changed(&mut self) {
        self.generation += 1;
        self.due = Some(Instant::now() + self.config.debounce);
    }

    /// What a request is answered from now: the documents, the settings,
    /// and the last check's analysis if it is of this text.
    fn snapshot(&self) -> Snapshot {
        let fresh = self
            .analysis
            .as_ref()
            .filter(|(g, _)| *g == self.generation)
            .map(|(_, a)| a.clone());
        Snapshot::new(
            self.config.clone(),
            self.docs.clone(),
            fresh,
            self.generation,
            self.done_tx.clone(),
        )
    }

    /// Makes `a` the newest analysis. The one it replaces is freed on
    /// another thread: freeing a large program's trees takes as long as a
    /// good part of checking it, and the editor should not wait for that.
    fn keep(&mut self, generation: u64, a: Arc<Analysis>) {
        if let Some(old) = self.analysis.replace((generation, a)) {
            thread::spawn(move || drop(old));
        }
    }

    /// Publishes what `analysis` says of each file, where it changed or
    /// the document was edited since the last publish: a file's
    /// diagnostics as a whole; an open file with none, that it has none
    /// (the editor clears what it showed, or learns the file is clean); a
    /// file no longer mentioned, cleared. `analysis` is of the documents
    /// as they are now (the loop publishes only the current generation's),
    /// so an edited document's publish carries its current version.
    fn publish(&mut self, analysis: &Analysis) {
        let mut files = by_file(analysis, self.config.book.as_ref(), &self.config.client);
        for path in self.docs.roots() {
            if let Some(url) = url_of(&path.display().to_string()) {
                files.entry(url).or_default();
            }
        }
        let edited: BTreeSet<Url> = std::mem::take(&mut self.edited)
            .iter()
            .filter_map(|p| url_of(&p.display().to_string()))
            .collect();
        for (uri, diagnostics) in &files {
            if edited.contains(uri) || self.published.get(uri) != Some(diagnostics) {
                self.send_diagnostics(uri.clone(), diagnostics.clone());
            }
        }
        let gone: Vec<Url> = self
            .published
            .iter()
            .filter(|(uri, old)| !files.contains_key(*uri) && !old.is_empty())
            .map(|(uri, _)| uri.clone())
            .collect();
        for uri in gone {
            self.send_diagnostics(uri, Vec::new());
        }
        self.published = files;
    }

    fn send_diagnostics(&self, uri: Url, diagnostics: Vec<lsp_types::Diagnostic>) {
        let version = if self.config.client.diagnostic_versions {
            path_of(&uri).and_then(|p| self.docs.version(&p))
        } else {
            None
        };
        self.notify::<PublishDiagnostics>(PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        });
    }

    pub(crate) fn notify<N: lsp_types::notification::Notification>(&self, params: N::Params) {
        let n = Notification::new(N::METHOD.to_string(), params);
        let _ = self.conn.sender.send(Message::Notification(n));
    }

    fn notification(&mut self, n: Notification) {
        use lsp_types::notification::*;
        let result = catch_unwind(AssertUnwindSafe(|| match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(n.params)
                    && let Some(path) = path_of(&p.text_document.uri)
                {
                    self.docs
                        .open(path.clone(), p.text_document.version, p.text_document.text);
                    self.edited.insert(path);
                    self.changed();
                }
            }
            DidChangeTextDocument::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(n.params)
                    && let Some(path) = path_of(&p.text_document.uri)
                {
                    let mut text = self.docs.get(&path).unwrap_or_default().to_string();
                    for change in p.content_changes {
                        apply(&mut text, change);
                    }
                    self.docs.set(&path, p.text_document.version, text);
                    self.edited.insert(path);
                    self.changed();
                }
            }
            DidCloseTextDocument::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(n.params)
                    && let Some(path) = path_of(&p.text_document.uri)
                {
                    self.docs.close(&path);
                    self.edited.remove(&path);
                    if self.docs.is_empty() {
                        // Nothing open: nothing to say about any file.
                        self.generation += 1;
                        self.analysis = None;
                        for (uri, old) in std::mem::take(&mut self.published) {
                            if !old.is_empty() {
                                self.send_diagnostics(uri, Vec::new());
                            }
                        }
                    } else {
                        self.changed();
                    }
                }
            }
            // The disk changed under files that are not open.
            DidSaveTextDocument::METHOD | DidChangeWatchedFiles::METHOD => self.changed(),
            _ => {}
        }));
        if result.is_err() {
            eprintln!("othc lsp: handling `{}` panicked; ignored", n.method);
        }
    }

    /// Answers `req` on a thread of its own, from a snapshot taken now.
    fn request(&mut self, req: Request) {
        let snap = self.snapshot();
        let sender = self.conn.sender.clone();
        thread::spawn(move || {
            let id = req.id.clone();
            let method = req.method.clone();
            let outcome = catch_unwind(AssertUnwindSafe(|| crate::dispatch::dispatch(&snap, &req)));
            let response = match outcome {
                Ok(Ok(value)) => Response::new_ok(id, value),
                Ok(Err((code, message))) => Response::new_err(id, code, message),
                Err(_) => {
                    eprintln!("othc lsp: `{method}` panicked; answered with an error");
                    Response::new_err(
                        id,
                        ErrorCode::InternalError as i32,
                        format!(
                            "othc lsp: `{method}` failed inside the server (a bug: please report it)"
                        ),
                    )
                }
            };
            let _ = sender.send(Message::Response(response));
        });
    }
}

/// Applies one change event to a document's text.
fn apply(text: &mut String, change: lsp_types::TextDocumentContentChangeEvent) {
    match change.range {
        None => *text = change.text,
        Some(range) => {
            let ix = crate::lines::LineIndex::new(text);
            let (start, end) = (ix.offset(range.start), ix.offset(range.end));
            let (start, end) = (start.min(end), start.max(end));
            text.replace_range(start..end, &change.text);
        }
    }
}
