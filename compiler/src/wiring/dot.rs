//! `othc ns --format dot`: an image's wiring as a Graphviz picture.
//! Instances are boxes labelled with their object, the runtime's natives
//! are drawn apart (grey components, on one rank), each mount or bind an
//! edge from the instance to what it reaches labelled `at ← source`
//! (dashed when read-only), exports and startup requests come from nodes
//! of their own, and a nested image is a cluster whose exports node stands
//! for the instance.

use std::fmt::Write;

use super::{ImageWiring, LineKind, ShapeKind};

pub fn render(w: &ImageWiring) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", quote(&w.image));
    out.push_str("  rankdir=LR;\n  compound=true;\n");
    out.push_str("  node [shape=box, style=rounded, fontname=\"Helvetica\"];\n");
    out.push_str("  edge [fontname=\"Helvetica\", fontsize=10];\n");
    let mut natives = Vec::new();
    image(&mut out, w, "", "  ", &mut natives);
    if !natives.is_empty() {
        let ids: Vec<String> = natives.iter().map(|n| quote(n)).collect();
        let _ = writeln!(out, "  {{ rank=same; {}; }}", ids.join("; "));
    }
    out.push_str("}\n");
    out
}

/// The node id of instance `name` of the image drawn under `prefix`.
fn id(prefix: &str, name: &str) -> String {
    format!("{prefix}{name}")
}

fn image(out: &mut String, w: &ImageWiring, prefix: &str, ind: &str, natives: &mut Vec<String>) {
    instances(out, w, prefix, ind, natives);
    links(out, w, prefix, ind);
    if prefix.is_empty() {
        exports(out, w, ind);
    }
    startup(out, w, prefix, ind);
}

/// A node per instance: a box, a grey component for a native, a cluster
/// drawn within for a nested image.
fn instances(
    out: &mut String,
    w: &ImageWiring,
    prefix: &str,
    ind: &str,
    natives: &mut Vec<String>,
) {
    for inst in &w.instances {
        let node = id(prefix, &inst.name);
        match (&inst.kind, &inst.nested) {
            (ShapeKind::Image, Some(inner)) => {
                let _ = writeln!(
                    out,
                    "{ind}subgraph {} {{",
                    quote(&format!("cluster_{node}"))
                );
                let _ = writeln!(
                    out,
                    "{ind}  label={}; style=dashed;",
                    quote(&format!("{} = {}", inst.name, inst.of))
                );
                let _ = writeln!(
                    out,
                    "{ind}  {} [label={}, shape=plain];",
                    quote(&node),
                    quote(&format!("exports of {}", inst.of))
                );
                let inner_prefix = format!("{node}.");
                image(out, inner, &inner_prefix, &format!("{ind}  "), natives);
                for x in &inner.exports {
                    if let Some(t) = &x.target {
                        let _ = writeln!(
                            out,
                            "{ind}  {} -> {} [label={}{}];",
                            quote(&node),
                            quote(&id(&inner_prefix, t)),
                            quote(&x.at),
                            if x.readonly { ", style=dashed" } else { "" }
                        );
                    }
                }
                let _ = writeln!(out, "{ind}}}");
            }
            (ShapeKind::Native, _) => {
                natives.push(node.clone());
                let _ = writeln!(
                    out,
                    "{ind}{} [label={}, shape=component, style=filled, fillcolor=\"#e8e8e8\"];",
                    quote(&node),
                    quote(&format!("{}\n{} (native){}", inst.name, inst.of, on(inst)))
                );
            }
            _ => {
                let _ = writeln!(
                    out,
                    "{ind}{} [label={}];",
                    quote(&node),
                    quote(&format!("{}\n{}{}", inst.name, inst.of, on(inst)))
                );
            }
        }
    }
}

/// With a placement, the nodes that run `inst`, as a last line.
fn on(inst: &super::InstanceWiring) -> String {
    match inst.nodes.as_deref() {
        None => String::new(),
        Some([]) => "\non no node".into(),
        Some(nodes) => format!("\non {}", nodes.join(", ")),
    }
}

/// An edge per mount and bind, to what it reaches; what the image is given
/// (its own needs) is drawn as one node each.
fn links(out: &mut String, w: &ImageWiring, prefix: &str, ind: &str) {
    let mut given: Vec<String> = Vec::new();
    for inst in &w.instances {
        for v in &inst.view {
            let Some(r) = &v.reaches else { continue };
            let to = if r.target.starts_with("needs ") {
                let n = id(prefix, &r.target);
                if !given.contains(&n) {
                    let _ = writeln!(
                        out,
                        "{ind}{} [label={}, shape=cds];",
                        quote(&n),
                        quote(&r.target)
                    );
                    given.push(n.clone());
                }
                n
            } else {
                id(prefix, &r.target)
            };
            let source = v.line.split_whitespace().nth(2).unwrap_or("");
            let mut label = format!("{} ← {source}", v.at);
            if v.kind == LineKind::Bind {
                label.push_str(" (bind)");
            }
            let _ = writeln!(
                out,
                "{ind}{} -> {} [label={}{}];",
                quote(&id(prefix, &inst.name)),
                quote(&to),
                quote(&label),
                if v.readonly_by.is_empty() {
                    ""
                } else {
                    ", style=dashed"
                }
            );
        }
    }
}

/// The top image's exports, each a node with an edge to what it reaches.
fn exports(out: &mut String, w: &ImageWiring, ind: &str) {
    for (k, x) in w.exports.iter().enumerate() {
        let n = format!("export {k}");
        let _ = writeln!(
            out,
            "{ind}{} [label={}, shape=larrow];",
            quote(&n),
            quote(&format!("export {}", x.at))
        );
        if let Some(t) = &x.target {
            let _ = writeln!(
                out,
                "{ind}{} -> {}{};",
                quote(&n),
                quote(&id("", t)),
                if x.readonly { " [style=dashed]" } else { "" }
            );
        }
    }
}

/// The operator, with a dotted edge per startup request.
fn startup(out: &mut String, w: &ImageWiring, prefix: &str, ind: &str) {
    if !w.startup.is_empty() {
        let op = id(prefix, "(operator)");
        let _ = writeln!(
            out,
            "{ind}{} [label=\"operator\", shape=oval, style=dotted];",
            quote(&op)
        );
        for s in &w.startup {
            if let Some(t) = &s.target {
                let _ = writeln!(
                    out,
                    "{ind}{} -> {} [label={}, style=dotted, color=\"#3060c0\"];",
                    quote(&op),
                    quote(&id(prefix, t)),
                    quote(&s.line)
                );
            }
        }
    }
}

/// A DOT string: quoted, with quotes and backslashes escaped, newlines as
/// `\n`.
fn quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}
