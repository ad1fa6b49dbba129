//! Images inside images: one that contains itself (E0517), and nesting
//! deeper than the namespace's limit (E0518). Both are marked broken, so
//! nothing looks into them again.

use super::ImageChecker;
use super::wiring_errors::WiringError;
use crate::model::{ImageId, Shape};
use crate::namespace::MAX_DEPTH;

/// Where the depth-first walk is with an image.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Visit {
    New,
    /// On the path being walked: reaching it again is a cycle.
    OnPath,
    Done,
}

impl ImageChecker<'_> {
    pub(super) fn recursion(&mut self) {
        let model = self.model();
        let mut state = vec![Visit::New; model.images.len()];
        for start in 0..model.images.len() {
            self.visit_image(ImageId(start as u32), &mut state);
        }
        self.nesting_depth();
    }

    /// Depth-first over "image contains an instance of image", with an
    /// explicit stack (an image chain can be as deep as the input is long).
    fn visit_image(&mut self, start: ImageId, state: &mut [Visit]) {
        if state[start.index()] != Visit::New {
            return;
        }
        let model = self.model();
        // (image, next instance to look at); `path` holds the instances taken.
        let mut stack: Vec<(ImageId, usize)> = vec![(start, 0)];
        let mut path: Vec<(ImageId, usize)> = Vec::new();
        state[start.index()] = Visit::OnPath;
        while let Some(&mut (img, ref mut next)) = stack.last_mut() {
            let instances = &model.image(img).instances;
            let Some(ii) = (*next..instances.len())
                .find(|&ii| matches!(instances[ii].of, Some(Shape::Image(_))))
            else {
                state[img.index()] = Visit::Done;
                stack.pop();
                path.pop();
                continue;
            };
            *next = ii + 1;
            let Some(Shape::Image(j)) = instances[ii].of else {
                continue;
            };
            match state[j.index()] {
                Visit::OnPath => {
                    let mut cycle = path.clone();
                    cycle.push((img, ii));
                    let from = cycle.iter().position(|(i, _)| *i == j).unwrap_or(0);
                    self.report_recursion(&cycle[from..]);
                }
                Visit::New => {
                    state[j.index()] = Visit::OnPath;
                    path.push((img, ii));
                    stack.push((j, 0));
                }
                Visit::Done => {}
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
        let steps = cycle
            .iter()
            .zip(&names)
            .map(|((i, ii), name)| {
                (
                    name.clone(),
                    self.spans().images[i.index()].instances[*ii].object,
                )
            })
            .collect();
        self.report(WiringError::Recursion { steps });
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
            self.report(WiringError::NestTooDeep {
                image: model.images[img].name.clone(),
                at,
            });
        }
        for (broken, d) in self.broken.iter_mut().zip(&depth) {
            if d.unwrap_or(0) > MAX_DEPTH {
                *broken = true;
            }
        }
    }
}
