//! `othc lsp`: the Othismo language server.
//!
//! This crate is the only one that knows LSP. It keeps the editor's open
//! documents, checks them with the same `othc::compile` as `othc check`
//! (through a loader that prefers unsaved text), and answers requests by
//! asking `othc::ide`, which speaks in files and byte offsets; positions are
//! converted to LSP's UTF-16 here and nowhere else.
//!
//! Layers, edges one way (as rust-analyzer's `main_loop`, `dispatch`,
//! `to_proto`): `server` (the loop: documents, debounced checks,
//! publishing) hands each request to `dispatch` (the method table) on a
//! thread of its own with a `snapshot` (the text as it was, and its
//! analysis); `handlers`, `actions`, `complete` and `tokens` answer from
//! the snapshot alone; `convert`, `lines` and `diagnostics` turn the
//! analysis's terms into LSP's, shaped by what the `client` can show.
//!
//! Invariants: the server never exits or stops answering because of its
//! input (a panic in a handler is caught and answered as an error; a body
//! that is not JSON-RPC is answered per the spec); diagnostics published
//! for a file are replaced as a whole by every check and cleared when
//! fixed or when nothing is open.

mod actions;
pub mod client;
mod complete;
pub mod config;
pub mod convert;
pub mod diagnostics;
mod dispatch;
mod handlers;
pub mod lines;
mod reply;
pub mod server;
mod snapshot;
mod tokens;
pub mod transport;
pub mod workspace;

use lsp_server::Connection;
use lsp_types::*;

pub use config::Config;
pub use server::Server;

/// What the server can do, as `initialize` answers.
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                ..Default::default()
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        document_highlight_provider: Some(OneOf::Left(true)),
        workspace_symbol_provider: Some(OneOf::Left(true)),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: Default::default(),
        })),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec!["/".into(), "\"".into(), " ".into(), ":".into()]),
            ..Default::default()
        }),
        signature_help_provider: Some(SignatureHelpOptions {
            trigger_characters: Some(vec!["{".into(), ",".into()]),
            retrigger_characters: Some(vec![" ".into()]),
            work_done_progress_options: Default::default(),
        }),
        document_formatting_provider: Some(OneOf::Left(true)),
        document_range_formatting_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
        semantic_tokens_provider: Some(SemanticTokensServerCapabilities::SemanticTokensOptions(
            SemanticTokensOptions {
                legend: tokens::legend(),
                full: Some(SemanticTokensFullOptions::Bool(true)),
                range: None,
                work_done_progress_options: Default::default(),
            },
        )),
        code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
        ..Default::default()
    }
}

/// Runs the initialize handshake, then serves `conn` until `exit`.
pub fn serve(conn: &Connection, mut config: Config) -> Result<(), String> {
    let (id, params) = conn.initialize_start().map_err(|e| e.to_string())?;
    let init: InitializeParams = serde_json::from_value(params).unwrap_or_default();
    if let Some(url) = init
        .initialization_options
        .as_ref()
        .and_then(|o| o.get("bookUrl"))
        .and_then(|u| u.as_str())
    {
        config.book = diagnostics::BookLinks::served(url);
    }
    config.client = client::ClientCaps::from(&init.capabilities);
    let result = serde_json::json!({
        "capabilities": capabilities(),
        "serverInfo": { "name": "othc lsp", "version": env!("CARGO_PKG_VERSION") },
    });
    conn.initialize_finish(id, result)
        .map_err(|e| e.to_string())?;
    Server::new(conn, config).run()
}

/// `othc lsp`: serves over stdin and stdout; logs go to stderr. The exit
/// status is 0 after a clean `shutdown` and `exit`, 1 otherwise.
pub fn run_stdio(config: Config) -> u8 {
    let (conn, writer) = transport::stdio();
    let outcome = serve(&conn, config);
    drop(conn);
    let _ = writer.join();
    match outcome {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("othc lsp: {e}");
            1
        }
    }
}
