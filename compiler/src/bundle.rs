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

impl PayloadJson {
    /// The payload's bytes (what `hex` spells; a malformed pair reads as 0).
    pub fn bytes(&self) -> Vec<u8> {
        (0..self.hex.len() / 2)
            .map(|i| {
                u8::from_str_radix(self.hex.get(2 * i..2 * i + 2).unwrap_or(""), 16).unwrap_or(0)
            })
            .collect()
    }
}

/// The image-tree path of `path` in `target`'s served tree: `/greeter/greeting`.
pub fn tree_path(target: &str, path: &str) -> String {
    if path == "/" {
        format!("/{target}")
    } else {
        format!("/{target}{path}")
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// An image being flattened: nested images' instances become instances of
/// the bundle, named `outer.inner`.
struct Frame {
    img: ImageId,
    prefix: String,
    /// The frame holding the instance this image is, and that instance.
    parent: Option<(usize, usize)>,
}

struct Flattener<'a> {
    model: &'a Model,
    frames: Vec<Frame>,
}

/// A resolved path: the bundle instance, the path in its served tree, read-only.
type Reached = (String, PathPattern, bool);

impl Flattener<'_> {
    /// A concrete path of frame `f`'s image tree.
    fn tree(&self, f: usize, p: &PathPattern, depth: usize) -> Result<Reached, String> {
        if depth > 64 {
            return Err("the image's paths go round in a circle".into());
        }
        let frame = &self.frames[f];
        let img = self.model.image(frame.img);
        if let Some(Seg::Lit(name)) = p.segs.first()
            && let Some(i) = img.instances.iter().position(|x| &x.name == name)
        {
            let rest = PathPattern {
                segs: p.segs[1..].to_vec(),
            };
            return match img.instances[i].of {
                Some(Shape::Image(_)) => {
                    let child = self
                        .child_frame(f, i)
                        .ok_or("a nested image was not flattened")?;
                    self.exports(child, &rest, depth + 1)
                }
                _ => Ok((format!("{}{name}", frame.prefix), rest, false)),
            };
        }
        // Under one of the image's needs: whatever the enclosing image mounted there.
        let need = img
            .needs
            .iter()
            .filter_map(|n| {
                crate::check::matching::strip_prefix(&p.segs, &n.mount.segs).map(|r| (n, r))
            })
            .max_by_key(|(n, _)| n.mount.segs.len());
        match (need, frame.parent) {
            (Some((n, rest)), Some((pf, pi))) => self.view(pf, pi, &n.mount.join(rest), depth + 1),
            (Some((n, _)), None) => Err(format!(
                "image `{}` needs `{}` of whatever runs it: run it inside another image",
                img.name, n.mount
            )),
            (None, _) => Err(format!("`{p}` names nothing in image `{}`", img.name)),
        }
    }

    /// A path of frame `f`'s image's served tree: through its exports.
    fn exports(&self, f: usize, p: &PathPattern, depth: usize) -> Result<Reached, String> {
        let img = self.model.image(self.frames[f].img);
        let (e, rest) = img
            .exports
            .iter()
            .filter_map(|e| {
                crate::check::matching::strip_prefix(&p.segs, &e.at.segs).map(|r| (e, r))
            })
            .max_by_key(|(e, _)| e.at.segs.len())
            .ok_or_else(|| format!("image `{}` exports nothing at `{p}`", img.name))?;
        let (t, path, ro) = self.tree(f, &e.from.join(rest), depth + 1)?;
        Ok((t, path, ro || e.readonly))
    }

    /// A path of instance `i`'s view, in frame `f`: mounts and binds followed.
    fn view(&self, f: usize, i: usize, p: &PathPattern, depth: usize) -> Result<Reached, String> {
        self.view_without(f, i, p, None, depth)
    }

    /// As `view`, leaving out wire `exclude`: a bind's source is resolved in
    /// the view without the bind itself, as the checker resolves it
    /// (`check::image`), so `bind /data /data/sub` means what was at
    /// `/data/sub` before.
    fn view_without(
        &self,
        f: usize,
        i: usize,
        p: &PathPattern,
        exclude: Option<usize>,
        depth: usize,
    ) -> Result<Reached, String> {
        if depth > 64 {
            return Err("the binds of an instance go round in a circle".into());
        }
        let inst = &self.model.image(self.frames[f].img).instances[i];
        let (wi, w, rest) = inst
            .wiring
            .iter()
            .enumerate()
            .filter(|(wi, _)| Some(*wi) != exclude)
            .filter_map(|(wi, w)| {
                crate::check::matching::strip_prefix(&p.segs, &w.link.at.segs).map(|r| (wi, w, r))
            })
            // The longest prefix; of equal ones, the last written.
            .max_by_key(|(wi, w, _)| (w.link.at.segs.len(), *wi))
            .ok_or_else(|| format!("nothing is mounted at `{p}` for `{}`", inst.name))?;
        let from = w.link.from.join(rest);
        let (t, path, ro) = match w.kind {
            WireKind::Mount => self.tree(f, &from, depth + 1)?,
            WireKind::Bind => self.view_without(f, i, &from, Some(wi), depth + 1)?,
        };
        Ok((t, path, ro || w.link.readonly))
    }

    fn child_frame(&self, f: usize, i: usize) -> Option<usize> {
        self.frames.iter().position(|fr| fr.parent == Some((f, i)))
    }

    /// Makes a frame for each nested image, depth first.
    fn open(&mut self, f: usize, depth: usize) -> Result<(), String> {
        if depth > 16 {
            return Err("images nest too deep".into());
        }
        let img = self.model.image(self.frames[f].img);
        for (i, inst) in img.instances.iter().enumerate() {
            if let Some(Shape::Image(j)) = inst.of {
                let prefix = format!("{}{}.", self.frames[f].prefix, inst.name);
                self.frames.push(Frame {
                    img: j,
                    prefix,
                    parent: Some((f, i)),
                });
                let child = self.frames.len() - 1;
                self.open(child, depth + 1)?;
            }
        }
        Ok(())
    }
}

fn payload(img: &ImageDef, p: &Option<StartupPayload>) -> Result<Option<PayloadJson>, String> {
    Ok(match p {
        None => None,
        Some(StartupPayload::Slot(i)) => {
            let slot = &img.slots[*i];
            let v = slot.value.as_ref().ok_or_else(|| {
                format!("slot `{}` of image `{}` has no value", slot.name, img.name)
            })?;
            Some(PayloadJson {
                content_type: v.content_type.clone(),
                hex: hex(&v.bytes),
            })
        }
        Some(StartupPayload::Literal(Some(v))) => Some(PayloadJson {
            content_type: v.content_type.clone(),
            hex: hex(&v.bytes),
        }),
        Some(StartupPayload::Literal(None)) => return Err("a startup payload did not check".into()),
    })
}

/// The `image.json` of an image whose objects were built as `built`.
/// Nested images are flattened: their instances are named `outer.inner`,
/// and their startup requests run before the enclosing image's.
pub fn image_json(model: &Model, id: ImageId, built: &[Built]) -> Result<ImageJson, String> {
    let mut fl = Flattener {
        model,
        frames: vec![Frame {
            img: id,
            prefix: String::new(),
            parent: None,
        }],
    };
    fl.open(0, 0)?;
    let mut instances = Vec::new();
    let mut startup = Vec::new();
    // Inner images first: their startup requests configure what the outer ones use.
    for f in (0..fl.frames.len()).rev() {
        let img = model.image(fl.frames[f].img);
        for (i, inst) in img.instances.iter().enumerate() {
            let (module, sha256, native) = match inst.of {
                Some(Shape::Image(_)) => continue,
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
                None => return Err(format!("instance `{}` names nothing", inst.name)),
            };
            let mut view = Vec::new();
            for (k, w) in inst.wiring.iter().enumerate() {
                // A later mount or bind at the same place replaces this one.
                if inst.wiring[k + 1..].iter().any(|x| x.link.at == w.link.at) {
                    continue;
                }
                let (target, path, readonly) = fl.view(f, i, &w.link.at, 0)?;
                view.push(LinkJson {
                    at: w.link.at.to_string(),
                    target,
                    path: path.to_string(),
                    readonly,
                });
            }
            instances.push(InstanceJson {
                name: format!("{}{}", fl.frames[f].prefix, inst.name),
                module,
                sha256,
                native,
                view,
            });
        }
        for s in &img.startup {
            let (target, path, _) = fl.tree(f, &s.path, 0)?;
            startup.push(StartupJson {
                verb: s.verb,
                target,
                path: path.to_string(),
                payload: payload(img, &s.payload)?,
            });
        }
    }
    // Declaration order of the outermost image first, as people read it.
    instances.sort_by_key(|i: &InstanceJson| {
        let top = i.name.split('.').next().unwrap_or("").to_string();
        model
            .image(id)
            .instances
            .iter()
            .position(|x| x.name == top)
            .unwrap_or(usize::MAX)
    });
    let mut exports = Vec::new();
    for e in &model.image(id).exports {
        let (target, path, ro) = fl.tree(0, &e.from, 0)?;
        exports.push(LinkJson {
            at: e.at.to_string(),
            target,
            path: path.to_string(),
            readonly: ro || e.readonly,
        });
    }
    Ok(ImageJson {
        format: FORMAT.into(),
        image: model.image(id).name.clone(),
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
