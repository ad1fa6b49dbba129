//! The checker and the runtime agree on what every need reaches.
//!
//! Thousands of random images (objects with random serves and needs,
//! mounts, binds, read-only links, a nested image with its own needs and
//! read-only exports) are checked; each is then flattened as its bundle
//! would be, and for every need entry of every instance the checker
//! resolved, the runtime's own routing (`route::probe`) is asked for the
//! matching concrete request. The checker's verdict and the runtime's
//! answer must agree: the same receiver and serves entry when the need is
//! met, `read_only` through a read-only way for an unsafe verb, `forbidden`
//! for an operator-only entry, `not_found` or `not_supported` when nothing
//! or the wrong verb is served there.
//!
//! And `othc ns` says the same: a need the runtime delivers goes through a
//! line of the view that reaches its receiver; one nothing is mounted for
//! is listed as unmet.
//!
//! And what `othc test --image` sends through the image's exports (each
//! exported entry, as the namespace lists them) reaches, by the namespace's
//! rules, what the runtime's routing from outside reaches.
//!
//! Seeded: a failure prints the seed and the image's source.

use std::path::PathBuf;

use othc::model::{ImageId, Seg, Shape};
use othc::namespace::NeedOutcome;
use othc::wiring::ShapeKind;
use othismo_runtime::abi::{Errno, errno};
use othismo_runtime::route::probe;
use test_support::Rng;

const SERVE_PATHS: &[&str] = &["/", "/a", "/b", "/a/x", "/{id}", "/**", "/a/{id}", "/a/**"];
const NEED_PATHS: &[&str] = &["/", "/a", "/b", "/a/x", "/{id}"];
const VERBS: &[&str] = &["read", "watch", "list", "stat", "write", "create", "remove"];
/// Most entries use these, so needs and serves meet often enough.
const COMMON_VERBS: &[&str] = &["read", "write", "stat"];
const NEED_MOUNTS: &[&str] = &["/n0", "/n1", "/n2"];
const WIRE_ATS: &[&str] = &["/n0", "/n1", "/n2", "/n0/a", "/n1/a", "/m", "/m/x"];

fn object(rng: &mut Rng, name: &str) -> String {
    let mut serves: Vec<(String, String, bool)> = Vec::new();
    for _ in 0..2 + rng.below(5) {
        let verbs = if rng.chance(70) { COMMON_VERBS } else { VERBS };
        let (p, v) = (rng.pick(SERVE_PATHS), rng.pick(verbs));
        if !serves.iter().any(|(q, w, _)| q == p && w == v) {
            serves.push((p.into(), v.into(), rng.chance(10)));
        }
    }
    let mut needs: Vec<(String, String)> = Vec::new();
    for _ in 0..1 + rng.below(2) {
        let verbs = if rng.chance(70) { COMMON_VERBS } else { VERBS };
        let (p, v) = (rng.pick(NEED_PATHS), rng.pick(verbs));
        if !needs.iter().any(|(q, w)| q == p && w == v) {
            needs.push((p.into(), v.into()));
        }
    }
    let serves: String = serves
        .iter()
        .map(|(p, v, op)| format!("    {p} {}{v}\n", if *op { "operator " } else { "" }))
        .collect();
    let needs: String = needs
        .iter()
        .map(|(p, v)| format!("    {p} {v}\n"))
        .collect();
    format!(
        "object {name} {{\n  serves {{\n{serves}  }}\n  needs {} {{\n{needs}  }}\n}}\n",
        rng.pick(NEED_MOUNTS)
    )
}

/// Mounts and binds for one instance; mount sources are drawn from `sources`.
fn wiring(rng: &mut Rng, sources: &[String]) -> String {
    let mut out = String::new();
    for _ in 0..1 + rng.below(4) {
        let at = if rng.chance(60) {
            rng.pick(NEED_MOUNTS)
        } else {
            rng.pick(WIRE_ATS)
        };
        let ro = if rng.chance(25) { " readonly" } else { "" };
        if rng.chance(20) {
            let from = rng.pick(WIRE_ATS);
            if from != at {
                out.push_str(&format!("    bind {at} {from}{ro}\n"));
            }
        } else {
            let from = &sources[rng.below(sources.len())];
            out.push_str(&format!("    mount {at} {from}{ro}\n"));
        }
    }
    out
}

fn image(rng: &mut Rng) -> String {
    let mut src = String::new();
    let objects = ["O0", "O1", "O2", "O3"];
    for o in objects {
        src.push_str(&object(rng, o));
    }
    let nested = rng.chance(50);
    if nested {
        // An inner image: one instance wired to the image's own need, and
        // exports (some read-only) of what it serves.
        let o = rng.pick(&objects);
        let need_verb = rng.pick(VERBS);
        let need_path = rng.pick(NEED_PATHS);
        src.push_str(&format!(
            "image Inner {{\n  needs /up {{\n    {need_path} {need_verb}\n  }}\n  instance w = {o} {{\n"
        ));
        let inner_sources = ["/up".to_string(), "/w".to_string(), "/w/a".to_string()];
        src.push_str(&wiring(rng, &inner_sources));
        src.push_str("  }\n");
        src.push_str(&format!("  export /e {}\n", rng.pick(&["/w", "/w/a"])));
        if rng.chance(60) {
            src.push_str(&format!(
                "  export /f {} readonly\n",
                rng.pick(&["/w", "/w/a", "/up"])
            ));
        }
        src.push_str("}\n");
    }
    let names: Vec<String> = (0..2 + rng.below(3)).map(|i| format!("i{i}")).collect();
    let mut sources: Vec<String> = Vec::new();
    for n in &names {
        sources.push(format!("/{n}"));
        sources.push(format!("/{n}/a"));
        if rng.chance(30) {
            sources.push(format!("/{n}/a/x"));
        }
    }
    if nested {
        sources.extend(["/inner/e".to_string(), "/inner/f".to_string()]);
    }
    src.push_str("export image Outer {\n");
    for n in &names {
        src.push_str(&format!("  instance {n} = {} {{\n", rng.pick(&objects)));
        src.push_str(&wiring(rng, &sources));
        src.push_str("  }\n");
    }
    if nested {
        let from = &names[rng.below(names.len())];
        let ro = if rng.chance(25) { " readonly" } else { "" };
        src.push_str(&format!(
            "  instance inner = Inner {{\n    mount /up /{from}{ro}\n  }}\n"
        ));
    }
    // What `othc test --image` sends to: the image's own exports.
    for k in 0..rng.below(3) {
        let ro = if rng.chance(30) { " readonly" } else { "" };
        let from = &sources[rng.below(sources.len())];
        src.push_str(&format!("  export /x{k} {from}{ro}\n"));
    }
    src.push_str("}\n");
    src
}

/// The concrete request for a need entry: its mount point and its path,
/// a capture filled with a name no literal in the image uses.
fn concrete(mount: &[Seg], path: &[Seg]) -> String {
    let segs: Vec<String> = mount
        .iter()
        .chain(path)
        .map(|s| match s {
            Seg::Literal(l) => l.clone(),
            Seg::Capture(_) => "zz".into(),
            Seg::Rest => "zz".into(),
        })
        .collect();
    format!("/{}", segs.join("/"))
}

#[derive(Default)]
struct Tally {
    images: usize,
    flattened: usize,
    compared: usize,
    met: usize,
    refused: usize,
    /// Needs whose `othc ns` line was held to the runtime's receiver, and
    /// needs `othc ns` had to list as unmet.
    ns_reached: usize,
    ns_unmet: usize,
    /// Exported entries sent to from outside, as `othc test --image` does.
    exported: usize,
}

fn one(seed: u64, tally: &mut Tally) -> Result<(), String> {
    let mut rng = Rng::new(seed);
    let src = image(&mut rng);
    let mut l = othc::loader::MemoryLoader::new();
    l.add("Image.oth", src.clone());
    let c = othc::compile(&l, &[PathBuf::from("Image.oth")], &Default::default())
        .map_err(|e| e.to_string())?;
    let syntax = c.front.diags.iter().find(|d| {
        let code = d.code.as_str();
        code.starts_with("E01") || code.starts_with("E02")
    });
    if let Some(d) = syntax {
        return Err(format!("the generator wrote a broken file: {}", d.message));
    }
    tally.images += 1;
    let model = &c.checked.model;
    let outer = ImageId(
        model
            .images
            .iter()
            .position(|i| i.name == "Outer")
            .ok_or("no Outer")? as u32,
    );
    // Flattened as the bundle would be, whatever else the checker said.
    let tree = othc::namespace::tree::Tree::new(model, vec![false; model.images.len()]);
    let Ok(flat) = othc::namespace::flatten::flatten(&tree, &c.checked.namespace.wires, outer)
    else {
        return Ok(());
    };
    tally.flattened += 1;
    let mut checked = othc::check::Checked {
        model: model.clone(),
        spans: c.checked.spans.clone(),
        namespace: c.checked.namespace.clone(),
        names: Default::default(),
    };
    checked.namespace.flat = othc::model::PerImage::new(model, |_, _| None);
    checked.namespace.flat[outer] = Some(flat);
    let built: Vec<othc::bundle::Built> = (0..model.objects.len())
        .map(|o| othc::bundle::Built {
            object: othc::model::ObjectId(o as u32),
            name: model.objects[o].name.clone(),
            path: PathBuf::from("unused.wasm"),
            sha256: String::new(),
            cached: false,
        })
        .collect();
    let json = othc::bundle::image_json(&checked, outer, &built)?;
    // What `othc ns` reports of the same image.
    let report = othc::wiring::of_image(&c, outer);
    exports_agree(&checked, outer, &json, tally)?;
    for nc in &c.checked.namespace.needs {
        let inst = &model.image(nc.image).instances[nc.instance];
        if nc.image != outer || !matches!(inst.of, Some(Shape::Object(_))) {
            continue;
        }
        let Some(Shape::Object(o)) = inst.of else {
            continue;
        };
        let need = model.entry(nc.need);
        let block = model
            .object(o)
            .needs
            .iter()
            .find(|b| b.entries.contains(&nc.need))
            .ok_or("a need entry outside its object's needs")?;
        let path = concrete(&block.mount.segs, &need.path.segs);
        let got = probe(&json, model, &inst.name, need.verb, &path)
            .map_err(|e| format!("the image.json made does not describe the model: {e}"))?;
        let want: Result<Option<othc::model::EntryId>, Errno> = match &nc.outcome {
            NeedOutcome::Unresolved => continue,
            NeedOutcome::NothingMounted => Err(errno::NOT_FOUND),
            // A read-only way answers an unsafe verb before the receiver's
            // serves are looked at (the server never sees it).
            NeedOutcome::NothingServed { readonly } | NeedOutcome::OtherVerbs { readonly }
                if *readonly && !need.verb.is_safe() =>
            {
                Err(errno::READ_ONLY)
            }
            NeedOutcome::NothingServed { .. } => Err(errno::NOT_FOUND),
            NeedOutcome::OtherVerbs { .. } => Err(errno::NOT_SUPPORTED),
            NeedOutcome::Reached { serve, readonly } => {
                if *readonly && !need.verb.is_safe() {
                    Err(errno::READ_ONLY)
                } else if model.entry(*serve).operator {
                    Err(errno::FORBIDDEN)
                } else {
                    Ok(Some(*serve))
                }
            }
        };
        tally.compared += 1;
        let agree = match (&want, &got) {
            (Ok(Some(e)), Ok((_, _, got_e))) => e == got_e,
            (Err(w), Err(r)) => *w == r.errno,
            _ => false,
        };
        if !agree {
            return Err(format!(
                "`{}` needs `{} {path}`: the checker says {:?}, the runtime {:?}\n\nimage.json:\n{}",
                inst.name,
                need.verb.as_str(),
                nc.outcome,
                got,
                serde_json::to_string_pretty(&json).unwrap_or_default()
            ));
        }
        let full = block.mount.join(&need.path.segs);
        ns_agrees(&report, &inst.name, &full, need, &got, tally)?;
        if want.is_ok() {
            tally.met += 1;
        } else {
            tally.refused += 1;
        }
    }
    Ok(())
}

/// What `othc test --image` sends through the exports of image `outer`
/// (each exported entry, `Flat::exported_entries`, at a concrete path)
/// reaches what the namespace says it reaches (`Flat::export_for`, then the
/// receiver's `route::select`), and the runtime routes it there too
/// (`route::probe_export`): the same entry, or the same refusal.
fn exports_agree(
    checked: &othc::check::Checked,
    outer: ImageId,
    json: &othc::bundle::ImageJson,
    tally: &mut Tally,
) -> Result<(), String> {
    use othc::namespace::route::{Route, select};
    let model = &checked.model;
    let Some(flat) = checked.namespace.flat(outer) else {
        return Ok(());
    };
    for x in flat.exported_entries(model) {
        let verb = model.entry(x.entry).verb;
        let path = concrete(&[], &x.pattern.segs);
        let segs = othc::namespace::path::parse_request(&path).ok_or("a concrete path parses")?;
        let (link, rest) = flat.export_for(&segs).ok_or("an exported path enters")?;
        let o = flat
            .object_of(model, &link.target)
            .ok_or("an export reaches an object")?;
        let there = link.path.join(rest);
        let want: Result<othc::model::EntryId, Errno> = if link.readonly && !verb.is_safe() {
            Err(errno::READ_ONLY)
        } else {
            match select(model, &model.object(o).serves, verb, &there.segs) {
                Route::Entry(e) if model.entry(e).operator => Err(errno::FORBIDDEN),
                Route::Entry(e) => Ok(e),
                Route::OtherVerbs(_) => Err(errno::NOT_SUPPORTED),
                Route::Nothing => Err(errno::NOT_FOUND),
            }
        };
        let got = othismo_runtime::route::probe_export(json, model, verb, &path)
            .map_err(|e| format!("the image.json made does not describe the model: {e}"))?;
        let agree = match (&want, &got) {
            (Ok(e), Ok((_, _, g))) => e == g,
            (Err(w), Err(r)) => *w == r.errno,
            _ => false,
        };
        if !agree {
            return Err(format!(
                "`{} {path}` through the exports: the namespace says {want:?}, the runtime {got:?}",
                verb.as_str()
            ));
        }
        tally.exported += 1;
    }
    Ok(())
}

/// `othc ns` says of instance `inst`'s need `need` (at `full` in its view)
/// what the runtime did with it (`got`): a need the runtime delivered to a
/// top-level instance is used by a line of the view that reaches that
/// instance (or a nested image, whose exports lead on); one the runtime refused `not_found` because nothing in the view
/// covers it is listed as unmet.
fn ns_agrees(
    report: &othc::wiring::ImageWiring,
    inst: &str,
    full: &othc::model::PathPattern,
    need: &othc::model::EntryDef,
    got: &Result<(String, String, othc::model::EntryId), othismo_runtime::route::Refusal>,
    tally: &mut Tally,
) -> Result<(), String> {
    let Some(wiring) = report.instances.iter().find(|i| i.name == inst) else {
        return Err(format!("`othc ns` shows no instance `{inst}`"));
    };
    let text = format!("{full} {}", need.verb.as_str());
    let mine = |u: &String| u.starts_with(&text) && !u.ends_with("(not met)");
    match got {
        Ok((receiver, _, _)) if !receiver.contains('.') => {
            let through = wiring.view.iter().find(|l| l.used_by.iter().any(mine));
            let reaches = through
                .and_then(|l| l.reaches.as_ref())
                .map(|r| r.target.as_str());
            // A line to a nested image reaches what that image exports,
            // which may lead on (to one of its instances, or back out
            // through what it needs): the report shows the line's own end.
            let into_image = report
                .instances
                .iter()
                .any(|i| Some(i.name.as_str()) == reaches && i.kind == ShapeKind::Image);
            if !into_image {
                tally.ns_reached += 1;
            }
            if !into_image && reaches != Some(receiver.as_str()) {
                return Err(format!(
                    "the runtime delivers `{inst}`'s `{text}` to `{receiver}`; `othc ns` shows it \
                     through {:?}, reaching {reaches:?}",
                    through.map(|l| &l.line)
                ));
            }
        }
        Err(r) if r.errno == errno::NOT_FOUND && r.desc.starts_with("nothing is mounted") => {
            tally.ns_unmet += 1;
            if !wiring.unmet.iter().any(|u| u.starts_with(&text)) {
                return Err(format!(
                    "the runtime finds nothing for `{inst}`'s `{text}` ({}); `othc ns` does \
                     not list it as unmet: {:?}",
                    r.desc, wiring.unmet
                ));
            }
        }
        _ => {}
    }
    Ok(())
}

#[test]
fn the_checker_and_the_runtime_agree_on_every_need() {
    let cases: u64 = std::env::var("OTH_NAMESPACE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    let mut tally = Tally::default();
    for seed in 0..cases {
        if let Err(e) = one(seed, &mut tally) {
            let mut rng = Rng::new(seed);
            panic!("seed {seed}: {e}\n\nthe image:\n{}", image(&mut rng));
        }
    }
    eprintln!(
        "{} images, {} flattened, {} needs compared ({} met, {} refused; othc ns: {} reached, {} unmet); {} exported entries",
        tally.images,
        tally.flattened,
        tally.compared,
        tally.met,
        tally.refused,
        tally.ns_reached,
        tally.ns_unmet,
        tally.exported
    );
    // The generator must exercise both sides, or the test proves nothing.
    assert!(
        tally.flattened * 4 >= tally.images,
        "too few images flatten"
    );
    assert!(
        tally.met >= 400 && tally.refused >= 400,
        "too few of one kind"
    );
    assert!(
        tally.exported >= 400,
        "too few exported entries: {}",
        tally.exported
    );
    assert!(
        tally.ns_reached >= 400 && tally.ns_unmet >= 100,
        "too few needs held to `othc ns`: {} reached, {} unmet",
        tally.ns_reached,
        tally.ns_unmet
    );
}
