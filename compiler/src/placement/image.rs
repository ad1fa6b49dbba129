//! An image as a placement sees it: its instances (flattened, as a bundle
//! names them), which native each is, and the address an `Http` instance
//! is told to listen on. Read from the checker's result or from a bundle,
//! so `othc check` and the runtime apply the same rules.

use crate::bundle::ImageJson;
use crate::check::Checked;
use crate::model::{Encoded, ImageId, Shape, StartupPayload, Verb};
use crate::natives::Native;
use crate::source::FileSpan;

/// One instance of a flattened image.
#[derive(Clone, Debug, PartialEq)]
pub struct Placeable {
    /// `outer.inner` for an instance of a nested image.
    pub name: String,
    /// The native object it is an instance of (`Console`, `Http`, ...).
    pub native: Option<String>,
    /// For an `Http` instance: the address its startup `write` gives it.
    pub listen: Option<String>,
    /// Where it is declared, when read from source.
    pub declared: Option<FileSpan>,
}

/// An image's instances, as a placement is checked against them.
#[derive(Clone, Debug, PartialEq)]
pub struct PlacedImage {
    pub name: String,
    pub instances: Vec<Placeable>,
}

impl PlacedImage {
    /// Image `id` as the checker flattened it; `None` when it did not
    /// check (it has no flattened form).
    pub fn of_checked(checked: &Checked, id: ImageId) -> Option<PlacedImage> {
        let model = &checked.model;
        let flat = checked.namespace.flat(id)?;
        let mut instances: Vec<Placeable> = flat
            .instances
            .iter()
            .map(|fi| {
                let (img, i) = fi.decl;
                let inst = &model.image(img).instances[i];
                let native = match inst.of {
                    Some(Shape::Object(o)) if model.object(o).native => {
                        Some(model.object(o).name.clone())
                    }
                    _ => None,
                };
                Placeable {
                    name: fi.name.clone(),
                    native,
                    listen: None,
                    declared: Some(checked.spans.images[img.index()].instances[i].name),
                }
            })
            .collect();
        for s in &flat.startup {
            let (img, k) = s.decl;
            let def = model.image(img);
            let startup = &def.startup[k];
            let payload: Option<&Encoded> = match &startup.payload {
                Some(StartupPayload::Slot(i)) => def.slots[*i].value.as_ref(),
                Some(StartupPayload::Literal(v)) => v.as_ref(),
                None => None,
            };
            if let Some(p) = payload {
                note_listen(
                    &mut instances,
                    startup.verb,
                    &s.target,
                    &s.path.to_string(),
                    &p.bytes,
                );
            }
        }
        Some(PlacedImage {
            name: model.image(id).name.clone(),
            instances,
        })
    }

    /// The image a bundle holds.
    pub fn of_bundle(json: &ImageJson) -> PlacedImage {
        let mut instances: Vec<Placeable> = json
            .instances
            .iter()
            .map(|i| Placeable {
                name: i.name.clone(),
                native: i.native.clone(),
                listen: None,
                declared: None,
            })
            .collect();
        for s in &json.startup {
            if let Some(p) = &s.payload
                && let Some(bytes) = unhex(&p.hex)
            {
                note_listen(&mut instances, s.verb, &s.target, &s.path, &bytes);
            }
        }
        PlacedImage {
            name: json.image.clone(),
            instances,
        }
    }
}

/// Records the address a startup request tells a native instance to
/// listen on (Http's `listen`, as the native's description reads it).
fn note_listen(instances: &mut [Placeable], verb: Verb, target: &str, path: &str, bytes: &[u8]) {
    let Some(inst) = instances.iter_mut().find(|i| i.name == target) else {
        return;
    };
    if let Some(native) = inst.native.as_deref().and_then(Native::named)
        && let Some(listen) = native.listen_address(verb, path, bytes)
    {
        inst.listen = Some(listen);
    }
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}
