//! Slot values: each slot's default, then value files, then `--set`, the
//! last one given winning (E0514 for a slot of a root image left without
//! one, E0610 for a value that names no slot).

use std::collections::HashSet;

use oth_syntax::ast::{self, ImagePart};

use super::{PayloadChecker, SlotValue};
use crate::check::matching::describe;
use crate::formats::ValueError;
use crate::model::*;
use crate::source::{FileId, FileSpan};

impl PayloadChecker<'_> {
    pub(super) fn slots(&mut self, values: &[SlotValue]) {
        let model = self.model();
        let roots: HashSet<usize> = self
            .front
            .program
            .roots
            .iter()
            .map(|m| m.0 as usize)
            .collect();
        let root_images: Vec<ImageId> = (0..model.images.len())
            .map(|i| ImageId(i as u32))
            .filter(|i| roots.contains(&model.image(*i).file.index()))
            .collect();
        for v in values {
            let takers: Vec<ImageId> = root_images
                .iter()
                .copied()
                .filter(|i| model.image(*i).slots.iter().any(|s| s.name == v.slot.name))
                .collect();
            if takers.is_empty() {
                self.diags.report(ValueError::NoSlot {
                    name: v.slot.name.clone(),
                    at: FileSpan::new(v.file, v.slot.span),
                    slots: root_images
                        .iter()
                        .flat_map(|i| model.image(*i).slots.iter().map(|s| s.name.clone()))
                        .collect(),
                });
            }
        }
        for img in 0..model.images.len() {
            let img = ImageId(img as u32);
            let (ast_img, file, mi) = self.image_ast(img);
            let is_root = root_images.contains(&img);
            let mut si = 0;
            for part in &ast_img.parts {
                let ImagePart::Slot(s) = part else { continue };
                // Duplicates were dropped from the model (E0204).
                let Some(idx) = model
                    .image(img)
                    .slots
                    .iter()
                    .position(|x| x.name == s.name.name)
                else {
                    continue;
                };
                if idx != si {
                    continue;
                }
                si += 1;
                let ty = model.image(img).slots[idx].ty.clone();
                let mut winner: Option<Option<Encoded>> = None;
                if let Some(d) = &s.default {
                    winner = Some(self.slot_value(file, mi, &ty, d));
                }
                if is_root {
                    for v in values.iter().filter(|v| v.slot.name == s.name.name) {
                        winner = Some(self.slot_value(v.file, mi, &ty, &v.value));
                    }
                }
                match winner {
                    Some(Some(enc)) => self.slot_values.push((img, idx, enc)),
                    Some(None) => {}
                    None if is_root => {
                        let at = self.spans().images[img.index()].slots[idx].name;
                        self.diags.report(ValueError::SlotWithoutValue {
                            slot: s.name.name.clone(),
                            ty: describe(model, &ty),
                            at,
                        });
                    }
                    None => {}
                }
            }
        }
    }

    fn slot_value(
        &mut self,
        file: FileId,
        mi: usize,
        ty: &PayloadType,
        v: &ast::Value,
    ) -> Option<Encoded> {
        match ty {
            PayloadType::Unknown => None,
            PayloadType::Message(id) => self.encode(file, mi, Some(*id), v),
            PayloadType::Content(ct) => match &v.kind {
                ast::ValueKind::Str(s) => Some(Encoded {
                    content_type: ct.text.clone(),
                    message: None,
                    bytes: s.clone().into_bytes(),
                }),
                ast::ValueKind::Error => None,
                _ => {
                    self.diags.report(ValueError::NotAString {
                        content_type: ct.text.clone(),
                        at: FileSpan::new(file, v.span),
                    });
                    None
                }
            },
        }
    }
}
