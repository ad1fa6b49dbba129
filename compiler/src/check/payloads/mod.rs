//! The last step of lowering: every literal an image holds is checked and
//! encoded, and written into the model. Slot values (default, value files,
//! `--set`; E0514, E0610) and startup payloads (E0208, E0203, E0206, and the
//! format's literal rules E06xx). What each startup request sends (its
//! payload's type) is kept beside the model for the image rules (E0513),
//! which then never go back to the syntax.

mod slots;
mod startup;

use oth_syntax::ast::{self, ImagePart};

use super::lower::{Lowered, Sent};
use crate::diagnostics::Diagnostics;
use crate::formats::Formats;
use crate::model::*;
use crate::resolve::FrontEnd;
use crate::source::FileId;

/// A value for a slot from outside the image: a value file line or `--set`.
pub struct SlotValue {
    pub file: FileId,
    pub slot: ast::Ident,
    pub value: ast::Value,
}

struct PayloadChecker<'a> {
    front: &'a FrontEnd,
    lowered: &'a Lowered,
    formats: &'a Formats,
    diags: &'a mut Diagnostics,
    slot_values: Vec<(ImageId, usize, Encoded)>,
    /// Per image, per startup request: what it sends (`Some(None)`: no
    /// payload; `None`: a payload that did not check), and its encoding.
    startup: Vec<Vec<(Sent, Option<StartupPayload>)>>,
}

impl<'a> PayloadChecker<'a> {
    fn model(&self) -> &'a Model {
        &self.lowered.model
    }

    fn spans(&self) -> &'a Spans {
        &self.lowered.spans
    }

    /// The syntax of an image, which its literals are read from.
    fn image_ast(&self, img: ImageId) -> (&'a ast::Image, FileId, usize) {
        let (m, item) = self.lowered.image_src[img.index()];
        let module = &self.front.program.modules[m.0 as usize];
        let ast::Item::Image(i) = &module.ast.items[item] else {
            unreachable!("image_src points at an image item")
        };
        (i, module.file, m.0 as usize)
    }
}

/// Checks and encodes every slot value and startup payload, and finishes
/// the model with them.
pub fn finish(
    front: &FrontEnd,
    lowered: &mut Lowered,
    formats: &Formats,
    values: &[SlotValue],
    diags: &mut Diagnostics,
) {
    let mut pc = PayloadChecker {
        front,
        lowered,
        formats,
        diags,
        slot_values: Vec::new(),
        startup: Vec::new(),
    };
    for img in 0..pc.model().images.len() {
        let img = ImageId(img as u32);
        let (ast_img, file, mi) = pc.image_ast(img);
        let mut per = Vec::new();
        for part in &ast_img.parts {
            if let ImagePart::Startup(s) = part {
                per.push(pc.startup_payload(img, file, mi, s));
            }
        }
        pc.startup.push(per);
    }
    pc.slots(values);
    let PayloadChecker {
        slot_values,
        startup,
        ..
    } = pc;
    for (img, slot, enc) in slot_values {
        lowered.model.images[img.index()].slots[slot].value = Some(enc);
    }
    lowered.startup_types = Vec::with_capacity(startup.len());
    for (img, per) in startup.into_iter().enumerate() {
        let mut types = Vec::with_capacity(per.len());
        for (si, (ty, payload)) in per.into_iter().enumerate() {
            if let Some(p) = payload {
                lowered.model.images[img].startup[si].payload = Some(p);
            }
            types.push(ty);
        }
        lowered.startup_types.push(types);
    }
}
