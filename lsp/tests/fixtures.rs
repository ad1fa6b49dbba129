//! The language server, driven in process by scripts: one case per file
//! under `fixtures/lsp/`, its transcript a snapshot under `snapshots/`.
//!
//! A case is files, then steps:
//!
//! ```text
//! # what the case shows
//! === Hello.oth            a file (its text follows, up to the next ===/>>>)
//! === copy examples/hello  every file of a folder of the repository
//! >>> open Hello.oth
//! >>> replace Hello.oth "/loud" "/lod"
//! >>> diagnostics
//! >>> hover Hello.oth:12:20     (line:column, 1-based, columns in characters)
//! ```
//! Steps: open, close, replace, diagnostics, hover, definition, references,
//! rename FILE:L:C NAME, completion, format, symbols, folding, tokens,
//! highlight FILE:L:C, workspace-symbols QUERY, format-range FILE L1 L2,
//! signature FILE:L:C,
//! actions FILE:L:C, and `request METHOD JSON` for any request.
//!
//! The client says what Neovim says it can do (Markdown hovers, related
//! information); a case whose first lines include `# client: plain` is
//! served as Emacs's eglot is: plain-text hovers, no related information,
//! versions on published diagnostics.
//!
//! `published` shows each publish since the last `published` (file,
//! version when the client takes one, how many diagnostics), in order.

mod common;

use std::path::{Path, PathBuf};

use common::{Client, position, show_range};
use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::{Value, json};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

struct Case {
    /// Served as a plain-text client without related information.
    plain: bool,
    files: Vec<(String, String)>,
    copies: Vec<String>,
    steps: Vec<String>,
}

fn parse(text: &str) -> Case {
    let mut case = Case {
        plain: false,
        files: Vec::new(),
        copies: Vec::new(),
        steps: Vec::new(),
    };
    let mut current: Option<(String, String)> = None;
    for line in text.lines() {
        if line.trim() == "# client: plain" {
            case.plain = true;
        }
        if let Some(rest) = line.strip_prefix("=== ") {
            case.files.extend(current.take());
            match rest.strip_prefix("copy ") {
                Some(dir) => case.copies.push(dir.trim().to_string()),
                None => current = Some((rest.trim().to_string(), String::new())),
            }
        } else if let Some(step) = line.strip_prefix(">>> ") {
            case.files.extend(current.take());
            case.steps.push(step.trim().to_string());
        } else if let Some((_, body)) = &mut current {
            body.push_str(line);
            body.push('\n');
        }
    }
    case.files.extend(current);
    case
}

/// `FILE:L:C` → the file and its LSP position.
fn at(client: &Client, spec: &str) -> (String, Value) {
    let mut parts = spec.rsplitn(3, ':');
    let (c, l, file) = (parts.next(), parts.next(), parts.next());
    let (Some(file), Some(l), Some(c)) = (file, l, c) else {
        panic!("a place is FILE:LINE:COLUMN, not `{spec}`");
    };
    let text = client
        .texts
        .get(Path::new(file))
        .cloned()
        .or_else(|| std::fs::read_to_string(client.root.join(file)).ok())
        .unwrap_or_else(|| panic!("no file `{file}`"));
    let (l, c): (usize, usize) = (l.parse().unwrap(), c.parse().unwrap());
    let line_start: usize = text.split_inclusive('\n').take(l - 1).map(str::len).sum();
    let line = text[line_start..].split('\n').next().unwrap_or("");
    let byte = line
        .char_indices()
        .nth(c - 1)
        .map_or(line_start + line.len(), |(i, _)| line_start + i);
    (file.to_string(), position(&text, byte))
}

fn doc_pos(client: &Client, spec: &str) -> Value {
    let (file, pos) = at(client, spec);
    json!({ "textDocument": { "uri": client.url(&file) }, "position": pos })
}

fn show_location(client: &Client, l: &Value) -> String {
    format!(
        "{} {}",
        client.show_url(l["uri"].as_str().unwrap_or("?")),
        show_range(&l["range"])
    )
}

fn show_error(client: &Client, e: &Value) -> String {
    let root = client.root.display().to_string();
    let message = e["message"].as_str().unwrap_or("").replace(&root, ".");
    format!("refused ({}): {message}\n", e["code"])
}

fn show_diagnostics(client: &Client) -> String {
    let mut out = String::new();
    if client.diagnostics.is_empty() {
        out.push_str("none published\n");
    }
    for (uri, list) in &client.diagnostics {
        let name = client.show_url(uri.as_str());
        if list.is_empty() {
            out.push_str(&format!("{name}: none\n"));
        }
        for d in list {
            let sev = match d["severity"].as_u64() {
                Some(1) => "error",
                Some(2) => "warning",
                _ => "?",
            };
            out.push_str(&format!(
                "{name} {} {sev} {}: {}\n",
                show_range(&d["range"]),
                d["code"].as_str().unwrap_or("?"),
                d["message"].as_str().unwrap_or("").replace('\n', "\n    ")
            ));
            if let Some(href) = d["codeDescription"]["href"].as_str() {
                let page = href.rsplit_once("/book/src/").map_or(href, |(_, p)| p);
                out.push_str(&format!("    page: {page}\n"));
            }
            for r in d["relatedInformation"].as_array().into_iter().flatten() {
                out.push_str(&format!(
                    "    related {}: {}\n",
                    show_location(client, &r["location"]),
                    r["message"].as_str().unwrap_or("")
                ));
            }
        }
    }
    out
}

fn show_symbols(out: &mut String, list: &[Value], depth: usize) {
    for s in list {
        out.push_str(&format!(
            "{}{} {} [{}] {}\n",
            "  ".repeat(depth),
            s["kind"],
            s["name"].as_str().unwrap_or(""),
            s["detail"].as_str().unwrap_or(""),
            show_range(&s["selectionRange"])
        ));
        if let Some(c) = s["children"].as_array() {
            show_symbols(out, c, depth + 1);
        }
    }
}

fn step(client: &mut Client, step: &str) -> String {
    let (cmd, rest) = step.split_once(' ').unwrap_or((step, ""));
    let req = |client: &mut Client, method: &str, p: Value| client.request(method, p);
    match cmd {
        "open" => {
            client.open(rest);
            String::new()
        }
        "close" => {
            client.close(rest);
            String::new()
        }
        "replace" => {
            let q: Vec<&str> = rest.split('"').collect();
            let (file, old, new) = (q[0].trim(), q[1], q[3]);
            client.replace(file, old, new);
            String::new()
        }
        "diagnostics" => {
            client.settle();
            show_diagnostics(client)
        }
        "published" => {
            client.settle();
            let all = std::mem::take(&mut client.publishes);
            if all.is_empty() {
                return "nothing published\n".into();
            }
            all.iter()
                .map(|(uri, version, n)| {
                    let v = version.map_or("-".into(), |v| v.to_string());
                    format!("{} version {v}: {n}\n", client.show_url(uri.as_str()))
                })
                .collect()
        }
        "hover" => match req(client, "textDocument/hover", doc_pos(client, rest)) {
            Ok(Value::Null) => "nothing\n".into(),
            Ok(h) => format!(
                "{}\n{}\n",
                show_range(&h["range"]),
                h["contents"]["value"].as_str().unwrap_or("")
            ),
            Err(e) => show_error(client, &e),
        },
        "definition" | "references" => {
            let mut p = doc_pos(client, rest);
            if cmd == "references" {
                p["context"] = json!({ "includeDeclaration": true });
            }
            let method = format!("textDocument/{cmd}");
            match req(client, &method, p) {
                Ok(Value::Null) => "nothing\n".into(),
                Ok(Value::Array(list)) => list
                    .iter()
                    .map(|l| show_location(client, l) + "\n")
                    .collect(),
                Ok(one) => show_location(client, &one) + "\n",
                Err(e) => show_error(client, &e),
            }
        }
        "rename" => {
            let (spec, name) = rest.split_once(' ').expect("rename FILE:L:C NAME");
            let mut p = doc_pos(client, spec);
            p["newName"] = json!(name);
            match req(client, "textDocument/rename", p) {
                Ok(edit) => {
                    let mut lines: Vec<String> = Vec::new();
                    for (uri, edits) in edit["changes"].as_object().into_iter().flatten() {
                        for e in edits.as_array().into_iter().flatten() {
                            lines.push(format!(
                                "{} {} -> {}",
                                client.show_url(uri),
                                show_range(&e["range"]),
                                e["newText"].as_str().unwrap_or("")
                            ));
                        }
                    }
                    lines.sort();
                    lines.into_iter().map(|l| l + "\n").collect()
                }
                Err(e) => show_error(client, &e),
            }
        }
        "completion" => match req(client, "textDocument/completion", doc_pos(client, rest)) {
            Ok(v) => v
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| {
                    // What it replaces, when it says (`@ range`).
                    let replaces = match &c["textEdit"]["range"] {
                        Value::Null => String::new(),
                        r => format!(" @ {}", show_range(r)),
                    };
                    format!(
                        "{} ({}) {}{replaces}\n",
                        c["label"].as_str().unwrap_or(""),
                        c["kind"],
                        c["detail"].as_str().unwrap_or("")
                    )
                })
                .collect(),
            Err(e) => show_error(client, &e),
        },
        "format" => {
            let p = json!({ "textDocument": { "uri": client.url(rest) },
                            "options": { "tabSize": 2, "insertSpaces": true } });
            match req(client, "textDocument/formatting", p) {
                Ok(Value::Array(e)) if e.is_empty() => "already formatted\n".into(),
                Ok(v) => v[0]["newText"].as_str().unwrap_or("").to_string(),
                Err(e) => show_error(client, &e),
            }
        }
        "format-range" => {
            let w: Vec<&str> = rest.split_whitespace().collect();
            let (file, from, to): (&str, u32, u32) =
                (w[0], w[1].parse().unwrap(), w[2].parse().unwrap());
            let p = json!({ "textDocument": { "uri": client.url(file) },
                            "range": { "start": { "line": from - 1, "character": 0 },
                                       "end": { "line": to - 1, "character": 0 } },
                            "options": { "tabSize": 2, "insertSpaces": true } });
            match req(client, "textDocument/rangeFormatting", p) {
                Ok(Value::Array(e)) if e.is_empty() => "no edit\n".into(),
                Ok(v) => format!(
                    "{}\n{}",
                    show_range(&v[0]["range"]),
                    v[0]["newText"].as_str().unwrap_or("")
                ),
                Err(e) => show_error(client, &e),
            }
        }
        "signature" => match req(client, "textDocument/signatureHelp", doc_pos(client, rest)) {
            Ok(Value::Null) => "nothing\n".into(),
            Ok(v) => {
                let s = &v["signatures"][0];
                let active = &v["activeParameter"];
                let field =
                    s["parameters"][active.as_u64().unwrap_or(999) as usize]["label"].clone();
                format!(
                    "{} (active {active}: {field})\n",
                    s["label"].as_str().unwrap_or("")
                )
            }
            Err(e) => show_error(client, &e),
        },
        "highlight" => match req(
            client,
            "textDocument/documentHighlight",
            doc_pos(client, rest),
        ) {
            Ok(Value::Array(list)) => list
                .iter()
                .map(|h| show_range(&h["range"]) + "\n")
                .collect::<String>(),
            Ok(v) => format!("{v}\n"),
            Err(e) => show_error(client, &e),
        },
        "workspace-symbols" => {
            let p = json!({ "query": rest });
            match req(client, "workspace/symbol", p) {
                Ok(Value::Array(list)) => list
                    .iter()
                    .map(|s| {
                        format!(
                            "{} ({}) {}\n",
                            s["name"].as_str().unwrap_or(""),
                            s["kind"],
                            show_location(client, &s["location"])
                        )
                    })
                    .collect::<String>(),
                Ok(v) => format!("{v}\n"),
                Err(e) => show_error(client, &e),
            }
        }
        "symbols" => {
            let p = json!({ "textDocument": { "uri": client.url(rest) } });
            let v = req(client, "textDocument/documentSymbol", p).unwrap_or_default();
            let mut out = String::new();
            show_symbols(&mut out, v.as_array().map(Vec::as_slice).unwrap_or(&[]), 0);
            out
        }
        "folding" => {
            let p = json!({ "textDocument": { "uri": client.url(rest) } });
            let v = req(client, "textDocument/foldingRange", p).unwrap_or_default();
            v.as_array()
                .into_iter()
                .flatten()
                .map(|f| {
                    format!(
                        "lines {}-{}\n",
                        f["startLine"].as_u64().unwrap() + 1,
                        f["endLine"].as_u64().unwrap() + 1
                    )
                })
                .collect()
        }
        "tokens" => tokens(client, rest),
        // Any request, raw: `request METHOD JSON-PARAMS`.
        "request" => {
            let (method, params) = rest.split_once(' ').unwrap_or((rest, "null"));
            let params: Value = serde_json::from_str(params).expect("JSON params");
            match req(client, method, params) {
                Ok(v) => format!("{v}\n"),
                Err(e) => show_error(client, &e),
            }
        }
        "actions" => {
            let (file, pos) = at(client, rest);
            let p = json!({ "textDocument": { "uri": client.url(&file) },
                            "range": { "start": pos, "end": pos },
                            "context": { "diagnostics": [] } });
            match req(client, "textDocument/codeAction", p) {
                Ok(v) => v
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|a| {
                        let mut s = format!("{}\n", a["title"].as_str().unwrap_or(""));
                        for (uri, edits) in a["edit"]["changes"].as_object().into_iter().flatten() {
                            for e in edits.as_array().into_iter().flatten() {
                                s.push_str(&format!(
                                    "  {} {} -> {:?}\n",
                                    client.show_url(uri),
                                    show_range(&e["range"]),
                                    e["newText"].as_str().unwrap_or("")
                                ));
                            }
                        }
                        s
                    })
                    .collect(),
                Err(e) => show_error(client, &e),
            }
        }
        other => panic!("unknown step `{other}`"),
    }
}

/// The tokens of a file, decoded: `line:column text type`.
fn tokens(client: &mut Client, rel: &str) -> String {
    let caps_types = [
        "keyword",
        "function",
        "type",
        "class",
        "variable",
        "property",
        "string",
        "number",
        "comment",
        "namespace",
        "parameter",
        "operator",
    ];
    let p = json!({ "textDocument": { "uri": client.url(rel) } });
    let v = client
        .request("textDocument/semanticTokens/full", p)
        .unwrap_or_default();
    let text = client
        .texts
        .get(Path::new(rel))
        .cloned()
        .unwrap_or_default();
    let lines: Vec<Vec<u16>> = text.lines().map(|l| l.encode_utf16().collect()).collect();
    let data: Vec<u64> = v["data"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_u64)
        .collect();
    let (mut line, mut col) = (0u64, 0u64);
    let mut out = String::new();
    for t in data.chunks(5) {
        line += t[0];
        col = if t[0] == 0 { col + t[1] } else { t[1] };
        let l = &lines[line as usize];
        let word = String::from_utf16_lossy(&l[col as usize..(col + t[2]) as usize]);
        out.push_str(&format!(
            "{}:{} {word} {}\n",
            line + 1,
            col + 1,
            caps_types[t[3] as usize]
        ));
    }
    out
}

fn run(rel: PathBuf) -> Result<(), Failed> {
    let text = std::fs::read_to_string(root().join(&rel))?;
    let case = parse(&text);
    let name = rel.file_stem().unwrap().to_string_lossy().into_owned();
    let dir = test_support::scratch(env!("CARGO_TARGET_TMPDIR"), &format!("lsp-{name}"));
    let dir = dir.canonicalize()?;
    for c in &case.copies {
        for f in std::fs::read_dir(root().join(c))? {
            let f = f?;
            if f.file_type()?.is_file() {
                std::fs::copy(f.path(), dir.join(f.file_name()))?;
            }
        }
    }
    for (file, body) in &case.files {
        let path = dir.join(file);
        std::fs::create_dir_all(path.parent().unwrap())?;
        std::fs::write(path, body)?;
    }
    let (server, client_end) = lsp_server::Connection::memory();
    let config = othc_lsp::Config {
        panic_request: true,
        ..Default::default()
    };
    let handle = std::thread::spawn(move || othc_lsp::serve(&server, config));
    let mut client = Client::new(client_end.sender, client_end.receiver, &dir);
    if case.plain {
        client.initialize_as(json!({
            "textDocument": {
                "hover": { "contentFormat": ["plaintext"] },
                "publishDiagnostics": { "versionSupport": true },
            }
        }));
    } else {
        client.initialize();
    }
    let mut transcript = String::new();
    for s in &case.steps {
        transcript.push_str(&format!(">>> {s}\n"));
        transcript.push_str(&step(&mut client, s));
    }
    client.shutdown();
    handle
        .join()
        .map_err(|_| "the server thread panicked")?
        .map_err(|e| format!("the server stopped with an error: {e}"))?;
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(root().join("snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_input_file(root().join(&rel));
    settings.bind(|| insta::assert_snapshot!(format!("lsp__{name}"), transcript));
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let trials = test_support::files_with_extension(&root().join("fixtures/lsp"), "lsp")
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(root()).unwrap().to_path_buf();
            Trial::test(rel.display().to_string(), move || run(rel))
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
