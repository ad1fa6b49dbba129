//! Exports: two at one path (E0511). Where each leads is the namespace's
//! business (see `sources` for what they must point at).

use super::ImageChecker;
use super::wiring_errors::WiringError;
use crate::model::ImageId;

impl ImageChecker<'_> {
    pub(super) fn exports(&mut self, img: ImageId) {
        let def = self.model().image(img);
        for (ei, e) in def.exports.iter().enumerate() {
            if let Some(first) = def.exports[..ei].iter().position(|x| x.at == e.at) {
                let sp = &self.spans().images[img.index()].exports;
                let (at, first) = (sp[ei].at, sp[first].at);
                self.report(WiringError::DuplicateExport {
                    at_path: e.at.to_string(),
                    at,
                    first,
                });
            }
        }
    }
}
