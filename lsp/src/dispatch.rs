//! The method table: each request to its handler, its params read and its
//! answer written (as rust-analyzer's `handlers/dispatch`). Handlers get a
//! `Snapshot` and run on the request's own thread (`server`).

use lsp_server::{ErrorCode, Request};
use serde_json::Value;

use crate::reply::{Failure, json, params};
use crate::snapshot::Snapshot;
use crate::{actions, complete, handlers, tokens};

pub fn dispatch(snap: &Snapshot, req: &Request) -> Result<Value, Failure> {
    use lsp_types::request::*;
    let p = &req.params;
    match req.method.as_str() {
        HoverRequest::METHOD => json(handlers::hover(snap, params(p)?)),
        GotoDefinition::METHOD => json(handlers::definition(snap, params(p)?)),
        References::METHOD => json(handlers::references(snap, params(p)?)),
        DocumentHighlightRequest::METHOD => json(handlers::highlights(snap, params(p)?)),
        WorkspaceSymbolRequest::METHOD => json(handlers::workspace_symbols(snap, params(p)?)),
        PrepareRenameRequest::METHOD => json(handlers::prepare_rename(snap, params(p)?)),
        Rename::METHOD => json(handlers::rename(snap, params(p)?)),
        Completion::METHOD => json(complete::completion(snap, params(p)?)),
        SignatureHelpRequest::METHOD => json(handlers::signature_help(snap, params(p)?)),
        Formatting::METHOD => json(handlers::formatting(snap, params(p)?)),
        RangeFormatting::METHOD => json(handlers::range_formatting(snap, params(p)?)),
        DocumentSymbolRequest::METHOD => json(handlers::symbols(snap, params(p)?)),
        FoldingRangeRequest::METHOD => json(handlers::folding(snap, params(p)?)),
        SemanticTokensFullRequest::METHOD => json(tokens::full(snap, params(p)?)),
        CodeActionRequest::METHOD => json(actions::code_actions(snap, params(p)?)),
        "othc/panic" if snap.config.panic_request => panic!("othc/panic asked for a panic"),
        other => Err((
            ErrorCode::MethodNotFound as i32,
            format!("othc lsp does not answer `{other}`"),
        )),
    }
}
