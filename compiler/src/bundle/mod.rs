//! Image bundles (book: reference/bundles.md): `NAME.othimg`, a deterministic ustar archive
//! (sorted entries, zero times, uid/gid 0) of `image.json` and the modules.
//! Same inputs, same bytes.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::check::Checked;
use crate::model::*;
use crate::namespace::flatten::FlatLink;

mod error;
pub use error::{BundleError, MakeError};

/// A module a build produced.
#[derive(Clone, Debug)]
pub struct Built {
    pub object: ObjectId,
    pub name: String,
    pub path: PathBuf,
    pub sha256: String,
    /// Taken from the cache rather than compiled.
    pub cached: bool,
}

/// Lower-case hex SHA-256, as bundles and the cache name modules.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

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
    /// The object it is an instance of: its module's header must declare it.
    pub object: String,
    /// `modules/Greeter.wasm`, for a compiled object.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// The SHA-256 of the module's header and schema sections: the header
    /// the image was checked against (filled in by [`write`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header_sha256: Option<String>,
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

fn payload(img: &ImageDef, p: &Option<StartupPayload>) -> Result<Option<PayloadJson>, MakeError> {
    Ok(match p {
        None => None,
        Some(StartupPayload::Slot(i)) => {
            let slot = &img.slots[*i];
            let v = slot
                .value
                .as_ref()
                .ok_or_else(|| MakeError::SlotWithoutValue {
                    slot: slot.name.clone(),
                    image: img.name.clone(),
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
        Some(StartupPayload::Literal(None)) => return Err(MakeError::PayloadNotChecked),
    })
}

/// The `image.json` of image `id`, as the checker flattened it
/// (`Checked::namespace`), with the objects built as `built`. Nested
/// images' instances are named `outer.inner`, and their startup requests
/// run before the enclosing image's.
pub fn image_json(checked: &Checked, id: ImageId, built: &[Built]) -> Result<ImageJson, MakeError> {
    let model = &checked.model;
    let flat = checked.namespace.flat(id).ok_or_else(|| {
        if model.image(id).needs.is_empty() {
            MakeError::NotChecked
        } else {
            MakeError::RunsInside
        }
    })?;
    let link = |l: &FlatLink| LinkJson {
        at: l.at.to_string(),
        target: l.target.clone(),
        path: l.path.to_string(),
        readonly: l.readonly,
    };
    let mut instances = Vec::new();
    for fi in &flat.instances {
        let (img, i) = fi.decl;
        let inst = &model.image(img).instances[i];
        let Some(Shape::Object(o)) = inst.of else {
            return Err(MakeError::NoObject {
                instance: inst.name.clone(),
            });
        };
        let object = model.object(o);
        let (module, sha256, native) = if object.native {
            (None, None, Some(object.name.clone()))
        } else {
            let b = built
                .iter()
                .find(|b| b.object == o)
                .ok_or_else(|| MakeError::NotBuilt {
                    object: object.name.clone(),
                })?;
            (
                Some(format!("modules/{}.wasm", b.name)),
                Some(b.sha256.clone()),
                None,
            )
        };
        instances.push(InstanceJson {
            name: fi.name.clone(),
            object: object.name.clone(),
            module,
            sha256,
            header_sha256: None,
            native,
            view: fi.view.iter().map(link).collect(),
        });
    }
    let startup = flat
        .startup
        .iter()
        .map(|s| {
            let (img, si) = s.decl;
            let def = model.image(img);
            Ok(StartupJson {
                verb: def.startup[si].verb,
                target: s.target.clone(),
                path: s.path.to_string(),
                payload: payload(def, &def.startup[si].payload)?,
            })
        })
        .collect::<Result<Vec<_>, MakeError>>()?;
    Ok(ImageJson {
        format: FORMAT.into(),
        image: model.image(id).name.clone(),
        instances,
        exports: flat.exports.iter().map(link).collect(),
        startup,
    })
}

/// The SHA-256 of a module's header and schema sections, as the runtime
/// reads them back.
pub fn header_sha256(module: &[u8]) -> Result<String, String> {
    Ok(sha256_hex(crate::wasm::header_source(module)?.as_bytes()))
}

/// The bundle's bytes: `image.json` (each module's header digest filled
/// in from `modules`), then `modules/*.wasm` sorted by name.
pub fn write(json: &ImageJson, modules: &[(String, Vec<u8>)]) -> Result<Vec<u8>, MakeError> {
    let mut json = json.clone();
    for inst in &mut json.instances {
        if let Some(m) = &inst.module {
            let (_, bytes) =
                modules
                    .iter()
                    .find(|(n, _)| n == m)
                    .ok_or_else(|| MakeError::NoModule {
                        module: m.clone(),
                        instance: inst.name.clone(),
                    })?;
            let digest = header_sha256(bytes).map_err(|why| MakeError::NotAModule {
                module: m.clone(),
                why,
            })?;
            inst.header_sha256 = Some(digest);
        }
    }
    let mut entries: Vec<(String, Vec<u8>)> = vec![(
        "image.json".into(),
        serde_json::to_vec_pretty(&json).map_err(|e| MakeError::Archive(e.to_string()))?,
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
            .map_err(|e| MakeError::Archive(e.to_string()))?;
    }
    builder
        .into_inner()
        .map_err(|e| MakeError::Archive(e.to_string()))
}

/// A bundle's modules: (entry name, bytes).
pub type Modules = Vec<(String, Vec<u8>)>;

/// Why an archive that begins and ends as a bundle could not be read.
fn unreadable(e: std::io::Error) -> BundleError {
    BundleError::Damaged(e.to_string())
}

/// A bundle's entries, checked: its `image.json`, and each module's hash.
pub fn read(bytes: &[u8]) -> Result<(ImageJson, Modules), BundleError> {
    // What `write` makes begins with a POSIX tar header, its magic at 257.
    if bytes.get(257..262) != Some(b"ustar".as_slice()) {
        return Err(BundleError::NotABundle);
    }
    // And ends with the archive's end: two blocks of zeros. Without them
    // it was cut short (a copy or a write that did not finish), whether or
    // not the cut fell between entries.
    if bytes.len() < 1024 || bytes[bytes.len() - 1024..].iter().any(|&b| b != 0) {
        return Err(BundleError::CutShort);
    }
    let mut archive = tar::Archive::new(bytes);
    let mut json: Option<ImageJson> = None;
    let mut modules = Vec::new();
    for entry in archive.entries().map_err(unreadable)? {
        let mut entry = entry.map_err(unreadable)?;
        let name = entry
            .path()
            .map_err(unreadable)?
            .to_string_lossy()
            .into_owned();
        // Only plain files: a link means nothing in a bundle, and a sparse
        // entry can declare far more than the archive holds. A regular
        // entry's bytes are in `bytes`, so what is read is bounded by it.
        let kind = entry.header().entry_type();
        if kind != tar::EntryType::Regular {
            let kind = format!("{kind:?}");
            return Err(BundleError::NotAFile { name, kind });
        }
        if name == "image.json" && json.is_some() || modules.iter().any(|(n, _)| *n == name) {
            return Err(BundleError::Twice(name));
        }
        let mut data = Vec::new();
        std::io::Read::read_to_end(&mut entry, &mut data).map_err(unreadable)?;
        if name == "image.json" {
            let j: ImageJson = serde_json::from_slice(&data)
                .map_err(|e| BundleError::MalformedJson(e.to_string()))?;
            if j.format != FORMAT {
                return Err(BundleError::Format(j.format));
            }
            json = Some(j);
        } else {
            modules.push((name, data));
        }
    }
    let json = json.ok_or(BundleError::NoImageJson)?;
    for inst in &json.instances {
        let Some(m) = &inst.module else { continue };
        let named = || (inst.name.clone(), m.clone());
        let (_, data) = modules.iter().find(|(n, _)| n == m).ok_or_else(|| {
            let (instance, module) = named();
            BundleError::MissingModule { instance, module }
        })?;
        // A module without its hash is refused like one with a wrong hash.
        let Some(sha) = &inst.sha256 else {
            let (instance, module) = named();
            return Err(BundleError::NoHash { instance, module });
        };
        if sha256_hex(data) != *sha {
            return Err(BundleError::WrongHash { module: m.clone() });
        }
    }
    Ok((json, modules))
}
