//! Schema rules that look across types: required-field cycles (E0305) and
//! agreement of the declarations one image brings together (E0304). The
//! rules about one block alone belong to its format.

use std::collections::{HashMap, HashSet};

use super::Cx;
use crate::formats::{Formats, SchemaError};
use crate::model::{FieldType, ImageId, Model, PayloadType, Shape, TypeId, TypeKind};

/// The message a required field embeds, if any: the edges of E0305.
fn required_edges(model: &Model, t: TypeId) -> impl Iterator<Item = (usize, TypeId)> + '_ {
    let fields: &[crate::model::FieldDef] = match &model.ty(t).kind {
        TypeKind::Message { fields } => fields,
        TypeKind::Enum { .. } => &[],
    };
    fields
        .iter()
        .enumerate()
        .filter_map(move |(i, f)| match (&f.ty, f.optional) {
            (FieldType::Named(to), false)
                if matches!(model.ty(*to).kind, TypeKind::Message { .. }) =>
            {
                Some((i, *to))
            }
            _ => None,
        })
}

/// E0305: one report per strongly connected set of messages that each need
/// another of the set (Tarjan's algorithm, iteratively: inputs are large).
pub fn required_cycles(cx: &mut Cx) {
    let n = cx.model.types.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut next = 0usize;
    let mut components: Vec<Vec<usize>> = Vec::new();
    // The walk's frames: (node, where its edges start in `edges`, how many
    // of them are visited). Frames come and go as a stack, so their edges
    // do too: one buffer serves every node, with no list per node.
    let mut work: Vec<(usize, usize, usize)> = Vec::new();
    let mut edges: Vec<usize> = Vec::new();
    let enter = |v: usize, work: &mut Vec<(usize, usize, usize)>, edges: &mut Vec<usize>| {
        work.push((v, edges.len(), 0));
        edges.extend(required_edges(cx.model, TypeId(v as u32)).map(|(_, t)| t.index()));
    };
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        enter(root, &mut work, &mut edges);
        while let Some(&mut (v, from, ref mut pos)) = work.last_mut() {
            // The top frame's edges are the buffer's tail.
            if from + *pos < edges.len() {
                let w = edges[from + *pos];
                *pos += 1;
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    enter(w, &mut work, &mut edges);
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            edges.truncate(from);
            if let Some(&(parent, _, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] != index[v] {
                continue;
            }
            if stack.last() == Some(&v) {
                // A component of one (nearly every type): a cycle only when
                // the type needs itself.
                stack.pop();
                on_stack[v] = false;
                if required_edges(cx.model, TypeId(v as u32)).any(|(_, t)| t.index() == v) {
                    components.push(vec![v]);
                }
                continue;
            }
            let mut comp = Vec::new();
            while let Some(w) = stack.pop() {
                on_stack[w] = false;
                comp.push(w);
                if w == v {
                    break;
                }
            }
            components.push(comp);
        }
    }
    for comp in components {
        report_cycle(cx, &comp);
    }
}

fn report_cycle(cx: &mut Cx, comp: &[usize]) {
    let members: HashSet<usize> = comp.iter().copied().collect();
    let start = *comp.iter().min().expect("a component has a member");
    // The shortest way back to `start` inside the component (breadth first):
    // `path` lists each type on it with the field that leads on.
    let mut came_from: HashMap<usize, (usize, usize)> = HashMap::new(); // to -> (from, field)
    let mut queue = std::collections::VecDeque::from([start]);
    let mut closing: Option<(usize, usize)> = None;
    while let Some(at) = queue.pop_front() {
        for (fi, to) in required_edges(cx.model, TypeId(at as u32)) {
            let to = to.index();
            if !members.contains(&to) {
                continue;
            }
            if to == start {
                closing = Some((at, fi));
                break;
            }
            if to != start && !came_from.contains_key(&to) {
                came_from.insert(to, (at, fi));
                queue.push_back(to);
            }
        }
        if closing.is_some() {
            break;
        }
    }
    let mut path: Vec<(usize, usize)> = Vec::new();
    if let Some((mut at, fi)) = closing {
        path.push((at, fi));
        while at != start {
            let Some(&(from, f)) = came_from.get(&at) else {
                break;
            };
            path.push((from, f));
            at = from;
        }
        path.reverse();
    }
    let name = |t: usize| cx.model.types[t].name.clone();
    let chain: Vec<String> = path
        .iter()
        .map(|(t, _)| name(*t))
        .chain(std::iter::once(name(start)))
        .collect();
    let required = path
        .iter()
        .filter_map(|(t, fi)| {
            let f = cx.spans.types[*t].member(*fi)?.0;
            let TypeKind::Message { fields } = &cx.model.types[*t].kind else {
                return None;
            };
            Some((f, format!("{}.{}", name(*t), fields[*fi].name)))
        })
        .collect();
    cx.diags.report(SchemaError::Unbuildable {
        name: name(start),
        at: cx.spans.types[start].name,
        chain,
        required,
    });
}

/// E0304: within each image, two declarations of one type name must agree.
pub fn agreement(cx: &mut Cx, formats: &Formats) {
    let mut reported: HashSet<(TypeId, TypeId)> = HashSet::new();
    for img in 0..cx.model.images.len() {
        let types = reachable(cx.model, ImageId(img as u32));
        let mut by_name: HashMap<&str, Vec<TypeId>> = HashMap::new();
        for t in &types {
            by_name
                .entry(cx.model.ty(*t).name.as_str())
                .or_default()
                .push(*t);
        }
        let mut names: Vec<&&str> = by_name.keys().collect();
        names.sort();
        let mut found = Vec::new();
        for name in names {
            let ids = &by_name[*name];
            if ids.len() < 2 {
                continue;
            }
            let mut ids = ids.clone();
            ids.sort();
            let a = ids[0];
            for &b in &ids[1..] {
                if !reported.insert((a, b)) {
                    continue;
                }
                let diffs = match formats.by_name(&cx.model.ty(a).format) {
                    Some(f) if cx.model.ty(a).format == cx.model.ty(b).format => {
                        f.differences(cx.model, a, b)
                    }
                    _ => vec![format!(
                        "one is a `{}` type, the other a `{}` type",
                        cx.model.ty(a).format,
                        cx.model.ty(b).format
                    )],
                };
                if !diffs.is_empty() {
                    found.push((a, b, diffs, img));
                }
            }
        }
        for (a, b, diffs, img) in found {
            let (sa, sb) = (
                cx.spans.types[a.index()].name,
                cx.spans.types[b.index()].name,
            );
            cx.diags.report(SchemaError::Disagree {
                name: cx.model.ty(a).name.clone(),
                at: sb,
                file: cx.model.files[cx.model.ty(b).file.index()].name.clone(),
                first: sa,
                first_file: cx.model.files[cx.model.ty(a).file.index()].name.clone(),
                differences: diffs,
                image: cx.model.images[img].name.clone(),
                image_at: cx.spans.images[img].name,
            });
        }
    }
}

/// Every type an image's parts name, and the types those name, transitively.
pub fn reachable(model: &Model, img: ImageId) -> Vec<TypeId> {
    let mut seen_img = HashSet::new();
    let mut roots = Vec::new();
    collect_image(model, img, &mut seen_img, &mut roots);
    let mut seen: HashSet<TypeId> = HashSet::new();
    let mut out = Vec::new();
    while let Some(t) = roots.pop() {
        if !seen.insert(t) {
            continue;
        }
        out.push(t);
        if let TypeKind::Message { fields } = &model.ty(t).kind {
            for f in fields {
                f.ty.named_types(&mut roots);
            }
        }
    }
    out
}

fn payload(t: &PayloadType, out: &mut Vec<TypeId>) {
    if let PayloadType::Message(id) = t {
        out.push(*id);
    }
}

fn entry_types(model: &Model, e: crate::model::EntryId, out: &mut Vec<TypeId>) {
    let e = model.entry(e);
    for t in e.request.iter().chain(&e.answer) {
        payload(t, out);
    }
}

fn collect_image(model: &Model, img: ImageId, seen: &mut HashSet<ImageId>, out: &mut Vec<TypeId>) {
    if !seen.insert(img) {
        return;
    }
    let def = model.image(img);
    for s in &def.slots {
        payload(&s.ty, out);
    }
    for n in &def.needs {
        for e in &n.entries {
            entry_types(model, *e, out);
        }
    }
    for inst in &def.instances {
        match inst.of {
            Some(Shape::Object(o)) => {
                let o = model.object(o);
                for e in o
                    .serves
                    .iter()
                    .chain(o.needs.iter().flat_map(|n| &n.entries))
                {
                    entry_types(model, *e, out);
                }
            }
            Some(Shape::Image(j)) => collect_image(model, j, seen, out),
            None => {}
        }
    }
}
