//! What the client said it can do (`initialize`), as the server uses it:
//! every answer is shaped to it, so a client that shows plain text gets
//! plain text, and one that shows no related information gets it folded
//! into the message instead of lost.

use lsp_types::{ClientCapabilities, MarkupKind};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientCaps {
    /// Hover text as Markdown (`hover.contentFormat` lists it).
    pub markdown_hover: bool,
    /// Diagnostics' related information is shown
    /// (`publishDiagnostics.relatedInformation`).
    pub related_information: bool,
    /// A publish may carry the document's version
    /// (`publishDiagnostics.versionSupport`).
    pub diagnostic_versions: bool,
}

impl Default for ClientCaps {
    /// What Neovim and VS Code say: Markdown, related information.
    fn default() -> ClientCaps {
        ClientCaps {
            markdown_hover: true,
            related_information: true,
            diagnostic_versions: false,
        }
    }
}

impl ClientCaps {
    /// What `caps` allows. What a client does not mention, it is not
    /// assumed to do (the spec's reading): no Markdown, no related
    /// information.
    pub fn from(caps: &ClientCapabilities) -> ClientCaps {
        let text = caps.text_document.as_ref();
        ClientCaps {
            markdown_hover: text
                .and_then(|t| t.hover.as_ref())
                .and_then(|h| h.content_format.as_ref())
                .is_some_and(|f| f.contains(&MarkupKind::Markdown)),
            related_information: text
                .and_then(|t| t.publish_diagnostics.as_ref())
                .and_then(|p| p.related_information)
                .unwrap_or(false),
            diagnostic_versions: text
                .and_then(|t| t.publish_diagnostics.as_ref())
                .and_then(|p| p.version_support)
                .unwrap_or(false),
        }
    }
}
