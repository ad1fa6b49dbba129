//! Content types in the model: parsed once (with `mime`), compared without
//! regard to case, and the common ones a typo is most likely of.

use serde::{Deserialize, Serialize};

/// A media type, compared without regard to case.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContentType {
    /// As written.
    pub text: String,
    /// The parts, as `mime` reads `text`: type, subtype and parameter
    /// names lower case, parameter values unquoted. An empty `subtype`
    /// means `mime` could not read it: such a type fits only itself.
    pub ty: String,
    pub subtype: String,
    pub params: Vec<(String, String)>,
}

impl ContentType {
    /// Reads a content type: the one parse of a media type's parts, for
    /// what the lexer read (already proved well formed, E0107) and for the
    /// types the toolchain itself names (`text/plain`, the stat records'
    /// type, a format's type).
    pub fn parse(text: &str) -> ContentType {
        // The language allows spaces before `;`, which `mime` does not.
        let mut tight = text.to_string();
        while let Some(at) = tight
            .find([' ', '\t'])
            .filter(|&i| tight[i..].trim_start_matches([' ', '\t']).starts_with(';'))
        {
            tight.remove(at);
        }
        match tight.parse::<mime::Mime>() {
            Ok(m) => ContentType {
                text: text.to_string(),
                ty: m.type_().as_str().to_ascii_lowercase(),
                subtype: m.subtype().as_str().to_ascii_lowercase(),
                params: m
                    .params()
                    .map(|(n, v)| (n.as_str().to_ascii_lowercase(), v.as_str().to_string()))
                    .collect(),
            },
            Err(_) => ContentType {
                text: text.to_string(),
                ty: text.to_ascii_lowercase(),
                subtype: String::new(),
                params: Vec::new(),
            },
        }
    }

    /// A content type as the lexer read it.
    pub fn from_syntax(ct: &oth_syntax::ast::ContentTypeText) -> ContentType {
        ContentType::parse(&ct.text)
    }

    /// The common content type this one is most likely a typo of: none
    /// when it is common itself, a wildcard, or not near one (W0201).
    pub fn near_common(&self) -> Option<&'static str> {
        let essence = self.essence();
        if self.ty == "*" || self.subtype == "*" || COMMON_CONTENT_TYPES.contains(&essence.as_str())
        {
            return None;
        }
        crate::diagnostics::suggest::closest(&essence, COMMON_CONTENT_TYPES)
    }

    /// `type/subtype`, lower case, without parameters.
    pub fn essence(&self) -> String {
        if self.subtype.is_empty() {
            self.ty.clone()
        } else {
            format!("{}/{}", self.ty, self.subtype)
        }
    }
}

/// Content types people write often: what a name that lost its `/`, or a
/// content type near one of these, was most likely meant to be.
pub const COMMON_CONTENT_TYPES: &[&str] = &[
    "text/plain",
    "text/html",
    "text/css",
    "text/csv",
    "text/markdown",
    "text/javascript",
    "text/xml",
    "application/json",
    "application/bson",
    "application/xml",
    "application/octet-stream",
    "application/javascript",
    "application/pdf",
    "application/zip",
    "application/x-www-form-urlencoded",
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/svg+xml",
    "image/webp",
    "audio/mpeg",
    "video/mp4",
    "multipart/form-data",
];
