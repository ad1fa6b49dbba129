//! Functions and their sizes, as the shape test counts them.

/// A function found in code.
pub struct Function {
    pub name: String,
    /// Where it starts (1-based).
    pub line: usize,
    /// How many lines its body's braces span (0 for a declaration).
    pub lines: usize,
    /// Its parameters besides `self`.
    pub params: usize,
}

/// Every `fn` in `code` (comments and strings blanked) with where it
/// starts, how many lines its body's braces span (none for a declaration
/// without one) and how many parameters it takes besides `self`.
pub fn functions(code: &str) -> Vec<Function> {
    let b = code.as_bytes();
    let word = |i: usize| i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_');
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(at) = code[i..].find("fn ") {
        let start = i + at;
        i = start + 3;
        if start > 0 && word(start - 1) {
            continue;
        }
        let mut j = i;
        while word(j) {
            j += 1;
        }
        let name = code[i..j].to_string();
        // The parameters: from the first `(` after the name and its
        // generics, to the matching `)`.
        let Some(open) = code[j..].find('(').map(|k| j + k) else {
            break;
        };
        if name.is_empty() || code[j..open].contains(['{', ';']) {
            continue;
        }
        let close = matching(b, open, b'(', b')');
        let params = split_top_level(&code[open + 1..close])
            .iter()
            .filter(|p| !p.trim().is_empty() && !is_self(p))
            .count();
        let body = code[close..].find(['{', ';']).map(|k| close + k);
        let lines = match body {
            Some(k) if b[k] == b'{' => {
                let end = matching(b, k, b'{', b'}');
                code[k..end].matches('\n').count() + 1
            }
            _ => 0,
        };
        let line = code[..start].matches('\n').count() + 1;
        out.push(Function {
            name,
            line,
            lines,
            params,
        });
    }
    out
}

/// Whether a parameter is the receiver: `self`, `&self`, `&'a mut self`,
/// `self: Pin<&mut Self>`.
fn is_self(param: &str) -> bool {
    let mut p = param.trim().trim_start_matches('&').trim_start();
    if p.starts_with('\'') {
        p = p
            .split_once(char::is_whitespace)
            .map_or("", |(_, rest)| rest.trim_start());
    }
    let p = p.strip_prefix("mut ").unwrap_or(p).trim_start();
    p == "self" || p.starts_with("self:") || p.starts_with("self ")
}

/// Where the bracket opened at `open` closes (the end if it never does).
fn matching(b: &[u8], open: usize, up: u8, down: u8) -> usize {
    let mut depth = 0;
    for (k, c) in b.iter().enumerate().skip(open) {
        if *c == up {
            depth += 1;
        } else if *c == down {
            depth -= 1;
            if depth == 0 {
                return k;
            }
        }
    }
    b.len()
}

/// `list` split at its commas outside brackets.
fn split_top_level(list: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut from) = (0i32, 0);
    for (k, c) in list.char_indices() {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&list[from..k]);
                from = k + 1;
            }
            _ => {}
        }
    }
    parts.push(&list[from..]);
    parts
}
