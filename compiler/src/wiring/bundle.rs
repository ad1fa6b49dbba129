//! The wiring of a built bundle (`.othimg`): its instances are flattened
//! (`outer.inner`), its links already resolved by the checker that wrote
//! it, and each object's serves and needs read from its module's header, as
//! the runtime reads them. No source lines: a bundle has none.

use super::{
    ExportLine, ImageWiring, InstanceWiring, LineKind, Reach, ShapeKind, StartupLine, ViewLine,
    entry_rest,
};
use crate::bundle::{ImageJson, InstanceJson, tree_path};
use crate::header::Header;
use crate::model::{PathPattern, Seg};
use crate::namespace::path::longest;
use crate::namespace::path::parse_request;

/// The wiring a bundle holds; `Err` for a bundle that cannot be read or a
/// module whose header does not check.
pub fn of_bundle(bytes: &[u8]) -> Result<ImageWiring, String> {
    let (json, modules) = crate::bundle::read(bytes)?;
    let natives = if json.instances.iter().any(|i| i.native.is_some()) {
        crate::header::natives()
            .map_err(|e| format!("the runtime's own header (othismo:env): {e}"))?
    } else {
        Vec::new()
    };
    let mut headers: Vec<Option<Header>> = Vec::new();
    for inst in &json.instances {
        let h = match (&inst.native, &inst.module) {
            (Some(n), _) => natives.iter().find(|h| h.object.name == *n).cloned(),
            (None, Some(m)) => {
                let (_, wasm) = modules
                    .iter()
                    .find(|(name, _)| name == m)
                    .ok_or_else(|| format!("the bundle holds no `{m}`"))?;
                Some(crate::header::read(wasm).map_err(|e| format!("`{m}`: {e}"))?)
            }
            (None, None) => None,
        };
        headers.push(h);
    }
    Ok(wiring(&json, &headers))
}

fn wiring(json: &ImageJson, headers: &[Option<Header>]) -> ImageWiring {
    let instances = (json.instances.iter().zip(headers))
        .map(|(inst, h)| instance(json, inst, h.as_ref()))
        .collect();
    ImageWiring {
        image: json.image.clone(),
        declared: String::new(),
        instances,
        exports: json
            .exports
            .iter()
            .map(|l| ExportLine {
                at: l.at.clone(),
                target: Some(l.target.clone()),
                line: format!("export {} {}", l.at, tree_path(&l.target, &l.path)),
                written: String::new(),
                readonly: l.readonly,
                serves: Vec::new(),
            })
            .collect(),
        startup: json
            .startup
            .iter()
            .map(|s| StartupLine {
                line: format!("{} {}", s.verb.as_str(), tree_path(&s.target, &s.path)),
                target: Some(s.target.clone()),
                written: String::new(),
                answered_by: None,
            })
            .collect(),
    }
}

/// Instance `inst` of the bundle, its header `h` (none: unknown).
fn instance(json: &ImageJson, inst: &InstanceJson, h: Option<&Header>) -> InstanceWiring {
    // A link's `at` that is not a path (a damaged bundle) matches nothing.
    let ats: Vec<Vec<Seg>> = inst
        .view
        .iter()
        .map(|l| parse_request(&l.at).unwrap_or_else(|| vec![Seg::Rest, Seg::Rest]))
        .collect();
    let mut used_by = vec![Vec::new(); inst.view.len()];
    let mut unmet = Vec::new();
    for (full, text) in h.map(needs_of).unwrap_or_default() {
        let links = ats.iter().enumerate().map(|(k, a)| (&a[..], k));
        match longest(links, &full.segs) {
            Some((k, _)) => used_by[k].push(text),
            None => unmet.push(text),
        }
    }
    let serves = h.map_or_else(Vec::new, |h| {
        (h.object.serves.iter())
            .map(|&e| {
                let at = h.model.entry(e).path.to_string();
                format!("{} {}", tree_path(&inst.name, &at), entry_rest(&h.model, e))
            })
            .collect()
    });
    InstanceWiring {
        name: inst.name.clone(),
        of: inst.object.clone(),
        kind: if inst.native.is_some() {
            ShapeKind::Native
        } else {
            ShapeKind::Object
        },
        declared: String::new(),
        view: view_lines(json, inst, used_by),
        serves,
        unmet,
        nested: None,
        nodes: None,
    }
}

/// Each need entry of header `h`: its full path in the instance's view,
/// and as a report writes it.
fn needs_of(h: &Header) -> Vec<(PathPattern, String)> {
    let needs = h.object.needs.iter();
    needs
        .flat_map(|b| b.entries.iter().map(move |&e| (b, e)))
        .map(|(b, e)| {
            let full = b.mount.join(&h.model.entry(e).path.segs);
            let text = format!("{full} {}", entry_rest(&h.model, e));
            (full, text)
        })
        .collect()
}

/// Instance `inst`'s view as a report shows it (longest `at` first), each
/// line with the needs that go through it (`used_by`, by line).
fn view_lines(json: &ImageJson, inst: &InstanceJson, used_by: Vec<Vec<String>>) -> Vec<ViewLine> {
    let of = |name: &str| {
        json.instances
            .iter()
            .find(|i| i.name == name)
            .map_or_else(|| "?".into(), |i| i.object.clone())
    };
    let mut view: Vec<(usize, ViewLine)> = (inst.view.iter().zip(used_by).enumerate())
        .map(|(k, (l, used_by))| {
            let readonly = if l.readonly { " readonly" } else { "" };
            let line = ViewLine {
                at: l.at.clone(),
                kind: LineKind::Mount,
                line: format!("{} -> {}{readonly}", l.at, tree_path(&l.target, &l.path)),
                written: String::new(),
                reaches: Some(Reach {
                    target: l.target.clone(),
                    of: of(&l.target),
                    path: l.path.clone(),
                }),
                readonly_by: if l.readonly {
                    vec!["the bundle's link".into()]
                } else {
                    Vec::new()
                },
                used_by,
            };
            (k, line)
        })
        .collect();
    view.sort_by(|(ka, a), (kb, b)| {
        let len = |s: &str| s.split('/').filter(|x| !x.is_empty()).count();
        len(&b.at).cmp(&len(&a.at)).then(kb.cmp(ka))
    });
    view.into_iter().map(|(_, v)| v).collect()
}
