//! The crate's modules and the cycles among siblings.
//!
//! Modules are read from the files under a crate's `src/` (`a.rs` and
//! `a/mod.rs` are module `a`; a `tests.rs` is a module's tests, left
//! out); a module's references are the `crate::`, `super::` and `self::`
//! paths in its code before `#[cfg(test)]`, use trees expanded. A
//! reference from `x::p::q` to `x::r::s` is a dependency of `p` on `r`,
//! siblings under `x` (their closest common parent): what depends on what
//! among a module's parts, whatever file inside each part it lies in.
//! Dependencies between a module and its own ancestor are the parent's
//! layout, not a cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module path: its names from the crate's root.
type Module = Vec<String>;

/// Every cycle among the children of some module of the crate at `src`,
/// as `parent: a, b, ...`.
pub fn cycles_of(src: &Path) -> Vec<String> {
    let modules = modules_of(src);
    let known: BTreeSet<&Module> = modules.keys().collect();
    // parent → child → the children it depends on
    let mut graphs: BTreeMap<Module, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (module, text) in &modules {
        for path in references(text) {
            let Some(target) = resolve(module, &path, &known) else {
                continue;
            };
            let common = module
                .iter()
                .zip(&target)
                .take_while(|(a, b)| a == b)
                .count();
            if common == module.len() || common == target.len() {
                continue; // an ancestor, a descendant or itself
            }
            graphs
                .entry(module[..common].to_vec())
                .or_default()
                .entry(module[common].clone())
                .or_default()
                .insert(target[common].clone());
        }
    }
    let mut out = Vec::new();
    for (parent, graph) in graphs {
        for set in strongly_connected(&graph) {
            let parent = if parent.is_empty() {
                "crate".to_string()
            } else {
                parent.join("::")
            };
            out.push(format!("{parent}: {}", set.join(", ")));
        }
    }
    out
}

/// The crate's modules and their code before its tests.
fn modules_of(src: &Path) -> BTreeMap<Module, String> {
    let mut modules = BTreeMap::new();
    for file in crate::files_with_extension(src, "rs") {
        let rel = file.strip_prefix(src).unwrap();
        let mut names: Module = rel
            .iter()
            .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string())
            .collect();
        if names.first().is_some_and(|n| n == "bin") {
            continue; // each binary is a crate of its own
        }
        if names.last().is_some_and(|n| n == "tests") {
            continue; // a module's tests (`#[cfg(test)] mod tests;`)
        }
        if matches!(names.last().map(String::as_str), Some("mod")) {
            names.pop();
        }
        if names.len() == 1 && (names[0] == "lib" || names[0] == "main") {
            names.clear();
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let code = super::code_of(&text).to_string();
        modules.entry(names).or_insert(code);
    }
    modules
}

/// The module `path` (as written in `module`) names, or the module of the
/// item it names: the longest known module it starts with.
fn resolve(module: &Module, path: &[String], known: &BTreeSet<&Module>) -> Option<Module> {
    let mut at: Module = Vec::new();
    let mut rest = path;
    match path.first().map(String::as_str) {
        Some("crate") => rest = &path[1..],
        Some("self") => {
            at = module.clone();
            rest = &path[1..];
        }
        Some("super") => {
            at = module.clone();
            while rest.first().is_some_and(|s| s == "super") {
                at.pop()?;
                rest = &rest[1..];
            }
        }
        _ => return None,
    }
    let mut best = at.clone();
    for seg in rest {
        at.push(seg.clone());
        if known.contains(&at) {
            best = at.clone();
        } else {
            break;
        }
    }
    Some(best)
}

/// Every path from `crate::`, `super::` or `self::` in `code`, use trees
/// expanded (`crate::{a, b::{c, d}}` is three).
fn references(code: &str) -> Vec<Vec<String>> {
    let tokens = tokenize(code);
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let starts = matches!(tokens[i].as_str(), "crate" | "super" | "self")
            && tokens.get(i + 1).is_some_and(|t| t == "::")
            && (i == 0 || tokens[i - 1] != "::");
        if starts {
            let (paths, next) = use_tree(&tokens, i, Vec::new());
            out.extend(paths);
            i = next.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

/// The paths of the use tree starting at `tokens[i]` under `prefix`, and
/// where it ends.
fn use_tree(tokens: &[String], mut i: usize, mut prefix: Vec<String>) -> (Vec<Vec<String>>, usize) {
    loop {
        match tokens.get(i).map(String::as_str) {
            Some("{") => {
                let mut out = Vec::new();
                i += 1;
                while i < tokens.len() && tokens[i] != "}" {
                    if tokens[i] == "," {
                        i += 1;
                        continue;
                    }
                    let (paths, next) = use_tree(tokens, i, prefix.clone());
                    out.extend(paths);
                    i = next.max(i + 1);
                }
                return (out, i + 1);
            }
            Some(t) if is_ident(t) => {
                if t != "self" || prefix.is_empty() {
                    prefix.push(t.to_string());
                }
                i += 1;
                if tokens.get(i).is_some_and(|t| t == "::") {
                    i += 1;
                } else {
                    return (vec![prefix], i);
                }
            }
            // `*`, or anything else: the path so far.
            _ => return (vec![prefix], i),
        }
    }
}

fn is_ident(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// Identifiers, `::`, and every other character alone (of code whose
/// comments and strings are blanked).
fn tokenize(code: &str) -> Vec<String> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            out.push("::".into());
            i += 2;
        } else {
            if !c.is_whitespace() {
                out.push(c.to_string());
            }
            i += 1;
        }
    }
    out
}

/// The strongly connected sets of two or more nodes of `graph` (Tarjan),
/// each sorted.
fn strongly_connected(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        sets: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.graph.get(v).into_iter().flatten() {
            if !s.index.contains_key(w.as_str()) {
                visit(s, w);
                let lw = s.low[w.as_str()];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w.as_str()) {
                let iw = s.index[w.as_str()];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut set = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                set.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if set.len() > 1 {
                set.sort();
                s.sets.push(set);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        sets: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.sets
}
