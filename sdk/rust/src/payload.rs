//! Payloads and statuses.

/// A payload: its content type and bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Payload {
    pub content_type: String,
    pub data: Vec<u8>,
}

impl Payload {
    pub fn new(content_type: &str, data: Vec<u8>) -> Payload {
        Payload {
            content_type: content_type.to_string(),
            data,
        }
    }

    /// Text, `text/plain` unless said otherwise.
    pub fn text(text: &str) -> Payload {
        Payload::new("text/plain", text.as_bytes().to_vec())
    }

    /// The content type without its parameters, lower case.
    pub fn media_type(&self) -> String {
        self.content_type
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase()
    }

    /// Whether it is of content type `ct` (`text/*` and `*/*` cover a family).
    pub fn is_of(&self, ct: &str) -> bool {
        let mine = self.media_type();
        let want = ct
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        if want == "*/*" {
            return true;
        }
        match want.strip_suffix("/*") {
            Some(family) => mine.split('/').next() == Some(family),
            None => mine == want,
        }
    }

    /// The payload as text (bytes not UTF-8 replaced).
    pub fn as_text(&self) -> String {
        String::from_utf8_lossy(&self.data).into_owned()
    }
}

/// Why a request failed: an errno and its code (book: reference/wire.md).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    pub errno: i32,
    pub code: String,
}

impl Status {
    pub fn of(errno: i32, code: &str) -> Status {
        Status {
            errno,
            code: code.to_string(),
        }
    }

    pub fn not_found() -> Status {
        Status::of(1, "not_found")
    }
    pub fn not_supported() -> Status {
        Status::of(2, "not_supported")
    }
    pub fn read_only() -> Status {
        Status::of(3, "read_only")
    }
    pub fn invalid() -> Status {
        Status::of(4, "invalid")
    }
    pub fn forbidden() -> Status {
        Status::of(5, "forbidden")
    }
    pub fn unsupported_type() -> Status {
        Status::of(6, "unsupported_type")
    }
    pub fn exists() -> Status {
        Status::of(7, "exists")
    }
    pub fn not_empty() -> Status {
        Status::of(8, "not_empty")
    }
    pub fn too_large() -> Status {
        Status::of(9, "too_large")
    }
    pub fn unavailable() -> Status {
        Status::of(10, "unavailable")
    }
}
