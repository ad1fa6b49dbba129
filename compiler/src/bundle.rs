//! Image bundles (abi.md §6): `NAME.othimg`, a deterministic ustar archive
//! (sorted entries, zero times, uid/gid 0) of `image.json` and the modules.
//! Same inputs, same bytes.

use serde::{Deserialize, Serialize};

use crate::build::Built;
use crate::model::*;

pub const FORMAT: &str = "othismo-image/1";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImageJson {
    pub format: String,
    pub image: String,
    pub instances: Vec<InstanceJson>,
    pub exports: Vec<LinkJson>,
    pub startup: Vec<StartupJson>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InstanceJson {
    pub name: String,
    /// `modules/Greeter.wasm`, for a compiled object.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// The runtime's object (`Console`), for a native one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub native: Option<String>,
    /// The instance's view: each mount and bind, resolved.
    pub view: Vec<LinkJson>,
}

/// A path (`at`) that leads to `path` in the served tree of `target`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinkJson {
    pub at: String,
    pub target: String,
    pub path: String,
    pub readonly: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StartupJson {
    pub verb: oth_syntax::ast::Verb,
    pub target: String,
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload: Option<PayloadJson>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PayloadJson {
    #[serde(rename = "type")]
    pub content_type: String,
    /// The bytes, in lower-case hex.
    pub hex: String,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `(instance, path in its served tree)` of a concrete image-tree path.
fn tree(img: &ImageDef, p: &PathPattern) -> Result<(String, PathPattern), String> {
    match p.segs.first() {
        Some(Seg::Lit(name)) if img.instances.iter().any(|i| &i.name == name) => Ok((
            name.clone(),
            PathPattern {
                segs: p.segs[1..].to_vec(),
            },
        )),
        _ => Err(format!("`{p}` names no instance of image `{}`", img.name)),
    }
}

/// Resolves a path of an instance's view through its mounts and binds.
fn view_path(
    inst: &InstanceDef,
    img: &ImageDef,
    p: &PathPattern,
    depth: usize,
) -> Result<(String, PathPattern, bool), String> {
    if depth > 16 {
        return Err(format!("the binds of `{}` go round in a circle", inst.name));
    }
    let best = inst
        .wiring
        .iter()
        .filter_map(|w| {
            crate::check::matching::strip_prefix(&p.segs, &w.link.at.segs).map(|rest| (w, rest))
        })
        .max_by_key(|(w, _)| w.link.at.segs.len());
    let Some((w, rest)) = best else {
        return Err(format!("nothing is mounted at `{p}` for `{}`", inst.name));
    };
    let from = w.link.from.join(rest);
    let (target, path, ro) = match w.kind {
        WireKind::Mount => {
            let (t, path) = tree(img, &from)?;
            (t, path, false)
        }
        WireKind::Bind => view_path(inst, img, &from, depth + 1)?,
    };
    Ok((target, path, ro || w.link.readonly))
}

/// The `image.json` of an image whose objects were built as `built`.
pub fn image_json(model: &Model, id: ImageId, built: &[Built]) -> Result<ImageJson, String> {
    let img = model.image(id);
    let mut instances = Vec::new();
    for inst in &img.instances {
        let (module, sha256, native) = match inst.of {
            Some(Shape::Object(o)) if model.object(o).native => {
                (None, None, Some(model.object(o).name.clone()))
            }
            Some(Shape::Object(o)) => {
                let b = built
                    .iter()
                    .find(|b| b.object == o)
                    .ok_or_else(|| format!("`{}` was not built", model.object(o).name))?;
                (
                    Some(format!("modules/{}.wasm", b.name)),
                    Some(b.sha256.clone()),
                    None,
                )
            }
            Some(Shape::Image(j)) => {
                return Err(format!(
                    "instance `{}` is an image (`{}`): bundles of nested images are not supported yet",
                    inst.name,
                    model.image(j).name
                ));
            }
            None => return Err(format!("instance `{}` names nothing", inst.name)),
        };
        let mut view = Vec::new();
        for w in &inst.wiring {
            let (target, path, readonly) = view_path(inst, img, &w.link.at, 0)?;
            view.push(LinkJson {
                at: w.link.at.to_string(),
                target,
                path: path.to_string(),
                readonly,
            });
        }
        instances.push(InstanceJson {
            name: inst.name.clone(),
            module,
            sha256,
            native,
            view,
        });
    }
    let mut exports = Vec::new();
    for e in &img.exports {
        let (target, path) = tree(img, &e.from)?;
        exports.push(LinkJson {
            at: e.at.to_string(),
            target,
            path: path.to_string(),
            readonly: e.readonly,
        });
    }
    let mut startup = Vec::new();
    for s in &img.startup {
        let (target, path) = tree(img, &s.path)?;
        let payload = match &s.payload {
            None => None,
            Some(StartupPayload::Slot(i)) => {
                let slot = &img.slots[*i];
                let v = slot
                    .value
                    .as_ref()
                    .ok_or_else(|| format!("slot `{}` has no value", slot.name))?;
                Some(PayloadJson {
                    content_type: v.content_type.clone(),
                    hex: hex(&v.bytes),
                })
            }
            Some(StartupPayload::Literal(Some(v))) => Some(PayloadJson {
                content_type: v.content_type.clone(),
                hex: hex(&v.bytes),
            }),
            Some(StartupPayload::Literal(None)) => {
                return Err("a startup payload did not check".into());
            }
        };
        startup.push(StartupJson {
            verb: s.verb,
            target,
            path: path.to_string(),
            payload,
        });
    }
    Ok(ImageJson {
        format: FORMAT.into(),
        image: img.name.clone(),
        instances,
        exports,
        startup,
    })
}

/// The bundle's bytes: `image.json`, then `modules/*.wasm` sorted by name.
pub fn write(json: &ImageJson, modules: &[(String, Vec<u8>)]) -> Result<Vec<u8>, String> {
    let mut entries: Vec<(String, Vec<u8>)> = vec![(
        "image.json".into(),
        serde_json::to_vec_pretty(json).map_err(|e| e.to_string())?,
    )];
    let mut mods: Vec<(String, Vec<u8>)> = modules.to_vec();
    mods.sort_by(|a, b| a.0.cmp(&b.0));
    mods.dedup_by(|a, b| a.0 == b.0);
    entries.extend(mods);
    let mut builder = tar::Builder::new(Vec::new());
    builder.mode(tar::HeaderMode::Deterministic);
    for (name, data) in &entries {
        let mut h = tar::Header::new_ustar();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_mtime(0);
        h.set_uid(0);
        h.set_gid(0);
        h.set_entry_type(tar::EntryType::Regular);
        h.set_cksum();
        builder
            .append_data(&mut h, name, data.as_slice())
            .map_err(|e| format!("cannot write the bundle: {e}"))?;
    }
    builder
        .into_inner()
        .map_err(|e| format!("cannot write the bundle: {e}"))
}

/// A bundle's modules: (entry name, bytes).
pub type Modules = Vec<(String, Vec<u8>)>;

/// A bundle's entries, checked: its `image.json`, and each module's hash.
pub fn read(bytes: &[u8]) -> Result<(ImageJson, Modules), String> {
    let mut archive = tar::Archive::new(bytes);
    let mut json: Option<ImageJson> = None;
    let mut modules = Vec::new();
    for entry in archive
        .entries()
        .map_err(|e| format!("not a bundle: {e}"))?
    {
        let mut entry = entry.map_err(|e| format!("not a bundle: {e}"))?;
        let name = entry
            .path()
            .map_err(|e| format!("not a bundle: {e}"))?
            .to_string_lossy()
            .into_owned();
        let mut data = Vec::new();
        std::io::Read::read_to_end(&mut entry, &mut data)
            .map_err(|e| format!("not a bundle: {e}"))?;
        if name == "image.json" {
            let j: ImageJson = serde_json::from_slice(&data)
                .map_err(|e| format!("its image.json is malformed: {e}"))?;
            if j.format != FORMAT {
                return Err(format!("its format is `{}`, not `{FORMAT}`", j.format));
            }
            json = Some(j);
        } else {
            modules.push((name, data));
        }
    }
    let json = json.ok_or("it has no image.json")?;
    for inst in &json.instances {
        if let (Some(m), Some(sha)) = (&inst.module, &inst.sha256) {
            let (_, data) = modules.iter().find(|(n, _)| n == m).ok_or_else(|| {
                format!(
                    "instance `{}` names `{m}`, which the bundle does not hold",
                    inst.name
                )
            })?;
            if crate::build::sha256_hex(data) != *sha {
                return Err(format!("`{m}` does not have the hash image.json gives it"));
            }
        }
    }
    Ok((json, modules))
}
