//! Images inside images: one that contains itself (E0517), and nesting
//! deeper than the namespace's limit (E0518). Both are marked broken, so
//! nothing looks into them again.

use super::ImageChecker;
use crate::diagnostics::{Code, Diagnostic, Label};
use crate::model::{ImageId, Shape};
use crate::namespace::MAX_DEPTH;

impl ImageChecker<'_> {
    pub(super) fn recursion(&mut self) {
        let model = self.model();
        let mut state = vec![0u8; model.images.len()]; // 0 new, 1 on path, 2 done
        for start in 0..model.images.len() {
            self.visit_image(ImageId(start as u32), &mut state);
        }
        self.nesting_depth();
    }

    /// Depth-first over "image contains an instance of image", with an
    /// explicit stack (an image chain can be as deep as the input is long).
    fn visit_image(&mut self, start: ImageId, state: &mut [u8]) {
        if state[start.index()] != 0 {
            return;
        }
        let model = self.model();
        // (image, next instance to look at); `path` holds the instances taken.
        let mut stack: Vec<(ImageId, usize)> = vec![(start, 0)];
        let mut path: Vec<(ImageId, usize)> = Vec::new();
        state[start.index()] = 1;
        while let Some(&mut (img, ref mut next)) = stack.last_mut() {
            let instances = &model.image(img).instances;
            let Some(ii) = (*next..instances.len())
                .find(|&ii| matches!(instances[ii].of, Some(Shape::Image(_))))
            else {
                state[img.index()] = 2;
                stack.pop();
                path.pop();
                continue;
            };
            *next = ii + 1;
            let Some(Shape::Image(j)) = instances[ii].of else {
                continue;
            };
            match state[j.index()] {
                1 => {
                    let mut cycle = path.clone();
                    cycle.push((img, ii));
                    let from = cycle.iter().position(|(i, _)| *i == j).unwrap_or(0);
                    self.report_recursion(&cycle[from..]);
                }
                0 => {
                    state[j.index()] = 1;
                    path.push((img, ii));
                    stack.push((j, 0));
                }
                _ => {}
            }
        }
    }

    fn report_recursion(&mut self, cycle: &[(ImageId, usize)]) {
        let model = self.model();
        let names: Vec<String> = cycle
            .iter()
            .map(|(i, _)| model.image(*i).name.clone())
            .chain(std::iter::once(model.image(cycle[0].0).name.clone()))
            .collect();
        let (last_img, last_inst) = *cycle.last().expect("a cycle has a step");
        let at = self.spans().images[last_img.index()].instances[last_inst].object;
        let message = if cycle.len() == 1 {
            format!("image `{}` instantiates itself", names[0])
        } else {
            format!("images instantiate each other: {}", names.join(" → "))
        };
        let mut d = Diagnostic::new(
            Code::E0517,
            message,
            Label::new(
                at.file,
                at.span,
                format!(
                    "`{}` makes an instance of `{}` here",
                    model.image(last_img).name,
                    names[0]
                ),
            ),
        );
        for (k, (i, ii)) in cycle[..cycle.len() - 1].iter().enumerate() {
            let s = self.spans().images[i.index()].instances[*ii].object;
            d = d.with_label(Label::new(
                s.file,
                s.span,
                format!(
                    "`{}` makes an instance of `{}` here",
                    names[k],
                    names[k + 1]
                ),
            ));
        }
        self.diags.push(d.with_help(
            "an image cannot contain itself: take the instance out, or split the image",
        ));
        for (i, _) in cycle {
            self.broken[i.index()] = true;
        }
    }

    /// How deep each image's nested images go; deeper than the limit is
    /// E0518, reported once, at the image where the chain crosses it.
    fn nesting_depth(&mut self) {
        let model = self.model();
        let n = model.images.len();
        // Images contain only earlier-finished ones once cycles are broken:
        // settle depths by repeated passes in post-order, iteratively.
        let mut depth: Vec<Option<usize>> = vec![None; n];
        for start in 0..n {
            let mut stack = vec![start];
            while let Some(&img) = stack.last() {
                if depth[img].is_some() || self.broken[img] {
                    depth[img].get_or_insert(0);
                    stack.pop();
                    continue;
                }
                let children: Vec<usize> = model.images[img]
                    .instances
                    .iter()
                    .filter_map(|i| match i.of {
                        Some(Shape::Image(j)) if !self.broken[j.index()] => Some(j.index()),
                        _ => None,
                    })
                    .collect();
                if let Some(&todo) = children.iter().find(|c| depth[**c].is_none()) {
                    stack.push(todo);
                    continue;
                }
                let d = children
                    .iter()
                    .map(|c| depth[*c].unwrap_or(0) + 1)
                    .max()
                    .unwrap_or(0);
                depth[img] = Some(d);
                stack.pop();
            }
        }
        for img in 0..n {
            let d = depth[img].unwrap_or(0);
            if d != MAX_DEPTH + 1 || self.broken[img] {
                continue;
            }
            let Some(ii) = model.images[img].instances.iter().position(
                |i| matches!(i.of, Some(Shape::Image(j)) if depth[j.index()] == Some(MAX_DEPTH)),
            ) else {
                continue;
            };
            let at = self.spans().images[img].instances[ii].object;
            self.diags.push(
                Diagnostic::new(
                    Code::E0518,
                    format!(
                        "image `{}` nests images more than {MAX_DEPTH} deep",
                        model.images[img].name
                    ),
                    Label::new(
                        at.file,
                        at.span,
                        format!("this instance holds images {MAX_DEPTH} deep"),
                    ),
                )
                .with_help(
                    "flatten the chain: instantiate the inner objects in fewer levels of images",
                ),
            );
        }
        for (broken, d) in self.broken.iter_mut().zip(&depth) {
            if d.unwrap_or(0) > MAX_DEPTH {
                *broken = true;
            }
        }
    }
}
