//! `othc ns` as text: per instance, its view as a table in the order a
//! path is resolved, then what it serves; then the image's exports and
//! startup requests.

use std::fmt::Write;

use super::{ImageWiring, InstanceWiring, ShapeKind, ViewLine};

/// The report of `w`, all instances or the one named `only`.
pub fn render(w: &ImageWiring, only: Option<&str>) -> String {
    let mut out = String::new();
    let at = if w.declared.is_empty() {
        String::new()
    } else {
        format!(" ({})", w.declared)
    };
    let _ = writeln!(out, "image {}{at}", w.image);
    for inst in w
        .instances
        .iter()
        .filter(|i| only.is_none_or(|n| n == i.name))
    {
        out.push('\n');
        instance(&mut out, inst, "");
    }
    if only.is_none() {
        image_parts(&mut out, w, "");
    }
    out
}

fn image_parts(out: &mut String, w: &ImageWiring, indent: &str) {
    if !w.exports.is_empty() {
        let _ = writeln!(out, "{}", indent.trim_end());
        let _ = writeln!(out, "{indent}exports (what image {} serves):", w.image);
        for x in &w.exports {
            let _ = writeln!(out, "{indent}  {}{}", x.line, written(&x.written));
            for s in &x.serves {
                let _ = writeln!(out, "{indent}    {s}");
            }
        }
    }
    if !w.startup.is_empty() {
        let _ = writeln!(out, "{}", indent.trim_end());
        let _ = writeln!(out, "{indent}startup requests (sent as the operator):");
        for s in &w.startup {
            let _ = writeln!(out, "{indent}  {}{}", s.line, written(&s.written));
            if let Some(e) = &s.answered_by {
                let _ = writeln!(out, "{indent}    answered by {e}");
            }
        }
    }
}

fn written(place: &str) -> String {
    if place.is_empty() {
        String::new()
    } else {
        format!("  ({})", short(place))
    }
}

/// `dir/File.oth:12` as `File.oth:12`: the image's line says the directory.
fn short(place: &str) -> &str {
    place.rsplit('/').next().unwrap_or(place)
}

fn instance(out: &mut String, inst: &InstanceWiring, indent: &str) {
    let what = match inst.kind {
        ShapeKind::Native => " (native)",
        ShapeKind::Image => " (image)",
        _ => "",
    };
    let _ = writeln!(
        out,
        "{indent}instance {} = {}{what}{}",
        inst.name,
        inst.of,
        written(&inst.declared)
    );
    match inst.nodes.as_deref() {
        None => {}
        Some([]) => {
            let _ = writeln!(
                out,
                "{indent}  runs on: no node (the placement places it nowhere)"
            );
        }
        Some(nodes) => {
            let _ = writeln!(out, "{indent}  runs on: {}", nodes.join(", "));
        }
    }
    if inst.view.is_empty() {
        let _ = writeln!(out, "{indent}  view: nothing mounted");
    } else {
        let _ = writeln!(out, "{indent}  view (longest path first, as resolved):");
        let rows: Vec<[String; 5]> = inst.view.iter().map(view_row).collect();
        table(
            out,
            &format!("{indent}    "),
            ["AT", "LINE", "REACHES", "READ-ONLY", "USED BY"],
            &rows,
        );
    }
    for u in &inst.unmet {
        let _ = writeln!(out, "{indent}  needs, not met: {u}");
    }
    if inst.serves.is_empty() {
        let _ = writeln!(out, "{indent}  serves: nothing");
    } else {
        let _ = writeln!(out, "{indent}  serves (in the image's tree):");
        for s in &inst.serves {
            let _ = writeln!(out, "{indent}    {s}");
        }
    }
    if let Some(n) = &inst.nested {
        let inner = format!("{indent}  | ");
        let _ = writeln!(out, "{inner}inside, image {}:", n.image);
        for i in &n.instances {
            instance(out, i, &inner);
        }
        image_parts(out, n, &inner);
    }
}

/// A line of an instance's view, as the table's columns show it.
fn view_row(v: &ViewLine) -> [String; 5] {
    let reaches = match &v.reaches {
        Some(r) if r.path == "/" => format!("{} ({})", r.target, r.of),
        Some(r) => format!("{} ({}) {}", r.target, r.of, r.path),
        None => "nowhere (see its error)".into(),
    };
    let ro = if v.readonly_by.is_empty() {
        "no".into()
    } else {
        format!("yes: {}", v.readonly_by.join(", then "))
    };
    let line = if v.written.is_empty() {
        v.line.clone()
    } else {
        format!("{} ({})", v.line, short(&v.written))
    };
    let used = if v.used_by.is_empty() {
        "-".into()
    } else {
        v.used_by.join("; ")
    };
    [v.at.clone(), line, reaches, ro, used]
}

/// Columns padded to their widest cell (in characters); the last one is
/// not padded.
fn table(out: &mut String, indent: &str, head: [&str; 5], rows: &[[String; 5]]) {
    let mut width = head.map(|h| h.chars().count());
    for r in rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut line = |cells: [&str; 5]| {
        let mut l = String::from(indent);
        for (i, c) in cells.iter().enumerate() {
            l.push_str(c);
            if i + 1 < cells.len() {
                let pad = width[i] - c.chars().count() + 2;
                l.extend(std::iter::repeat_n(' ', pad));
            }
        }
        let _ = writeln!(out, "{}", l.trim_end());
    };
    line(head);
    for r in rows {
        line([&r[0], &r[1], &r[2], &r[3], &r[4]]);
    }
}
