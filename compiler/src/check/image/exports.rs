//! Exports: two at one path (E0511). Where each leads is the namespace's
//! business (see `sources` for what they must point at).

use super::ImageChecker;
use crate::diagnostics::{Code, Diagnostic, Label};
use crate::model::ImageId;

impl ImageChecker<'_> {
    pub(super) fn exports(&mut self, img: ImageId) {
        let def = self.model().image(img);
        for (ei, e) in def.exports.iter().enumerate() {
            if let Some(first) = def.exports[..ei].iter().position(|x| x.at == e.at) {
                let sp = &self.spans().images[img.index()].exports;
                self.diags.push(
                    Diagnostic::new(
                        Code::E0511,
                        format!("two exports at `{}`", e.at),
                        Label::new(sp[ei].at.file, sp[ei].at.span, "exported again here"),
                    )
                    .with_label(Label::new(
                        sp[first].at.file,
                        sp[first].at.span,
                        "first exported here",
                    ))
                    .with_help("export each at its own path"),
                );
            }
        }
    }
}
