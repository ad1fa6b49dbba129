//! The runtime's routing asked before anything runs, of a bundle's
//! `image.json` and the model its headers make: what the property tests
//! hold the checker, `othc ns` and `othc test` to.

use std::collections::HashMap;

use othc::bundle::ImageJson;
use othc::model::{EntryId, Model, ObjectDef, Verb};
use othc::namespace::path::text;

use super::{Party, Refusal, admit, arrive};
use crate::ActorId;
use crate::view::{Aim, Link};

/// Where a probe's request went: the receiver's name, the path there and
/// the entry that answers; or the refusal. The outer `Err` is an
/// `image.json` that does not describe the model (an object or instance it
/// does not name, a malformed view): no route.
type Probed = Result<Result<(String, String, EntryId), Refusal>, String>;

/// A bundle's instances as routing sees them: their objects (each
/// instance's header is the object of its name in `model`), their views,
/// and each by name.
struct Image<'j, 'm> {
    json: &'j ImageJson,
    model: &'m Model,
    objects: Vec<&'m ObjectDef>,
    index: HashMap<&'j str, ActorId>,
}

impl<'j, 'm> Image<'j, 'm> {
    fn new(json: &'j ImageJson, model: &'m Model) -> Result<Image<'j, 'm>, String> {
        let index = (json.instances.iter().enumerate())
            .map(|(i, inst)| (inst.name.as_str(), ActorId::at(i)))
            .collect();
        let objects = (json.instances.iter())
            .map(|i| {
                (model.objects.iter())
                    .find(|o| o.name == i.object)
                    .ok_or_else(|| format!("no object `{}`", i.object))
            })
            .collect::<Result<_, _>>()?;
        Ok(Image {
            json,
            model,
            objects,
            index,
        })
    }

    /// `links` read as routing reads them.
    fn links(&self, links: &[othc::bundle::LinkJson]) -> Result<Vec<Link>, String> {
        (links.iter())
            .map(|l| crate::view::parse_link(l, &self.index).map_err(|e| e.to_string()))
            .collect()
    }

    /// The receiving side of a request that reached `path` of `to`
    /// (`readonly`: through a read-only way), as `deliver_checked` routes
    /// it (no exposures, nobody stopped).
    fn arrive(&self, (to, there, ro): crate::view::Resolved, verb: Verb) -> Probed {
        let party = |k: ActorId| Party {
            name: &self.json.instances[k.index()].name,
            model: self.model,
            object: self.objects[k.index()],
            exposed: &[],
            dead: false,
            reached: None,
        };
        Ok(arrive(&party, to, there, ro, verb, 0).map(|arrival| {
            (
                self.json.instances[arrival.to.index()].name.clone(),
                text(&arrival.path),
                arrival.entry,
            )
        }))
    }
}

/// How the runtime would route `verb path` sent by instance `from` of a
/// bundle's `image.json`, before anything runs: the receiver's name, the
/// path there and the entry that answers, or the refusal.
pub fn probe(json: &ImageJson, model: &Model, from: &str, verb: Verb, path: &str) -> Probed {
    let image = Image::new(json, model)?;
    let a = *image
        .index
        .get(from)
        .ok_or_else(|| format!("no instance `{from}`"))?;
    let view = image.links(&json.instances[a.index()].view)?;
    let aim = Aim::new(&view, path);
    match admit(from, model, image.objects[a.index()], verb, aim, &mut None) {
        Ok(admitted) => image.arrive(admitted, verb),
        Err(r) => Ok(Err(r)),
    }
}

/// How the runtime would route `verb path` sent from outside the image
/// through its exports (what `othc test --image` sends), before anything
/// runs.
pub fn probe_export(json: &ImageJson, model: &Model, verb: Verb, path: &str) -> Probed {
    let image = Image::new(json, model)?;
    let exports = image.links(&json.exports)?;
    match super::through_exports(&exports, path) {
        Ok(resolved) => image.arrive(resolved, verb),
        Err(refusal) => Ok(Err(refusal)),
    }
}
