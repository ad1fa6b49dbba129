//! What a placement must be to run: it is for this image, it names only
//! the image's instances, every instance runs somewhere, and what only one
//! node can run (the console, a listener's address) runs on one.

use super::{PlacedImage, Placement, PlacementError};
use crate::natives::Native;

/// Every way `placement` cannot run `image`.
pub fn check(placement: &Placement, image: &PlacedImage) -> Vec<PlacementError> {
    let mut errors = Vec::new();
    let Some(named) = &placement.image else {
        errors.push(PlacementError::NoImageLine {
            at: placement.start,
            images: vec![image.name.clone()],
        });
        return errors;
    };
    if named.name != image.name {
        errors.push(PlacementError::UnknownImage {
            at: named.at,
            name: named.name.clone(),
            images: vec![image.name.clone()],
        });
        return errors;
    }
    let names: Vec<String> = image.instances.iter().map(|i| i.name.clone()).collect();
    let meant = unknown_instances(placement, image, &names, &mut errors);
    // With no node at all, that one error says it.
    if placement.nodes.is_empty() {
        return errors;
    }
    let first_node = placement
        .nodes
        .first()
        .map(|n| (n.name.name.clone(), n.list_end));
    for inst in &image.instances {
        let places: Vec<(String, crate::source::FileSpan)> = placement
            .nodes
            .iter()
            .filter_map(|n| {
                let at = n.instances.iter().find(|i| i.name == inst.name)?.at;
                Some((n.name.name.clone(), at))
            })
            .collect();
        if places.is_empty() {
            if !placement.complete || meant.contains(&inst.name.as_str()) {
                continue;
            }
            errors.push(PlacementError::PlacedNowhere {
                instance: inst.name.clone(),
                image: image.name.clone(),
                image_at: named.at,
                declared: inst.declared,
                first_node: first_node.clone(),
            });
            continue;
        }
        if let Some(native) = inst.native.as_deref().and_then(Native::named)
            && native.one_node_only()
            && places.len() > 1
        {
            errors.push(PlacementError::OneNodeOnly {
                instance: inst.name.clone(),
                native,
                listen: inst.listen.clone(),
                places,
                declared: inst.declared,
            });
        }
    }
    errors
}

/// The names `placement` places that are no instance of `image`, each
/// an error; what they were likely meant for is returned: said once, by
/// the unknown name's "did you mean", not again as placed nowhere.
fn unknown_instances<'n>(
    placement: &Placement,
    image: &PlacedImage,
    names: &'n [String],
    errors: &mut Vec<PlacementError>,
) -> Vec<&'n str> {
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut meant = Vec::new();
    for inst in placement.nodes.iter().flat_map(|n| &n.instances) {
        if !names.contains(&inst.name) {
            meant.extend(crate::diagnostics::suggest::closest(&inst.name, &refs));
            errors.push(PlacementError::UnknownInstance {
                at: inst.at,
                name: inst.name.clone(),
                image: image.name.clone(),
                instances: names.to_vec(),
            });
        }
    }
    meant
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::placement::{Placeable, parse};
    use crate::source::FileId;

    fn image() -> PlacedImage {
        let inst = |name: &str, native: Option<&str>| Placeable {
            name: name.into(),
            native: native.map(str::to_string),
            listen: None,
            declared: None,
        };
        PlacedImage {
            name: "Site".into(),
            instances: vec![
                inst("web", Some("Http")),
                inst("cons", Some("Console")),
                inst("site", None),
                inst("files", Some("Files")),
            ],
        }
    }

    fn codes(text: &str) -> Vec<String> {
        let (p, mut errors) = parse(FileId(0), text);
        errors.extend(check(&p, &image()));
        errors
            .iter()
            .map(|e| {
                use crate::diagnostics::ToDiagnostic;
                e.to_diagnostic().code.to_string()
            })
            .collect()
    }

    #[test]
    fn a_placement_that_runs_everything_once_is_clean() {
        let ok = "image Site\nnode a: web, cons\nnode b: site, files\nnode c: site, files\n";
        assert_eq!(codes(ok), Vec::<String>::new());
    }

    #[test]
    fn each_rule_has_its_code() {
        assert_eq!(codes("image Other\nnode a: web\n"), ["E0802"]);
        assert_eq!(
            codes("image Site\nnode a: web, cons, site, files, nope\n"),
            ["E0802"]
        );
        assert_eq!(codes("image Site\nnode a: web, cons, site\n"), ["E0803"]);
        assert_eq!(
            codes("image Site\nnode a: web, cons, site, files\nnode b: web\n"),
            ["E0805"]
        );
        assert_eq!(
            codes("image Site\nnode a: web, cons, site, files\nnode b: cons\n"),
            ["E0805"]
        );
        assert_eq!(codes("node a: web, cons, site, files\n"), ["E0801"]);
    }
}
