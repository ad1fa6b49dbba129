//! Rust source read as text, for the tests that hold the repository's
//! shape (`tests/shape.rs`): comments and strings blanked, functions
//! found and measured, modules and the dependencies among them. Not a
//! parser: enough of Rust's lexical rules for code written as rustfmt
//! writes it.

pub mod functions;
pub mod modules;

/// The code of `text` before its tests (`#[cfg(test)]`, which this
/// repository puts last), comments and strings blanked.
pub fn code_of(text: &str) -> String {
    let code = blank_comments_and_strings(text);
    match code.find("#[cfg(test)]") {
        Some(at) => code[..at].to_string(),
        None => code,
    }
}

/// `text` with comments, strings and character literals blanked, lines
/// kept where they were.
pub fn blank_comments_and_strings(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let at = |i: usize| chars.get(i).copied().unwrap_or(' ');
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    // Copies the newlines of chars[from..to], nothing else.
    let keep_lines = |out: &mut String, from: usize, to: usize| {
        for c in &chars[from..to.min(chars.len())] {
            if *c == '\n' {
                out.push('\n');
            }
        }
    };
    while i < chars.len() {
        let c = chars[i];
        let after_word = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let from = i;
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && at(i + 1) == '/') {
                i += 1;
            }
            i += 2;
            keep_lines(&mut out, from, i);
        } else if c == 'r' && !after_word && (at(i + 1) == '"' || at(i + 1) == '#') {
            // A raw string: r"…", r#"…"#.
            let mut hashes = 0;
            let mut j = i + 1;
            while at(j) == '#' {
                hashes += 1;
                j += 1;
            }
            if at(j) != '"' {
                out.push(c);
                i += 1;
                continue;
            }
            let from = i;
            j += 1;
            loop {
                if j >= chars.len() {
                    break;
                }
                if chars[j] == '"' && (1..=hashes).all(|h| at(j + h) == '#') {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            keep_lines(&mut out, from, j);
            i = j;
        } else if c == '"' {
            let from = i;
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
            keep_lines(&mut out, from, i);
        } else if c == '\'' && at(i + 1) == '\\' {
            i += 2;
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else if c == '\'' && at(i + 2) == '\'' {
            i += 3;
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}
