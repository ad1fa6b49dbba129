//! Bundles the runtime refuses to load, each by whose fault it is
//! (`LoadError`): not a bundle, damaged, holding what a bundle may not,
//! a module tampered with, swapped or without its hash, a module that
//! breaks the host ABI.

mod common;

use common::bundle;
use othc::bundle::BundleError;
use othismo_runtime::LoadError;

#[test]
fn a_broken_bundle_is_refused() {
    assert!(common::load_error(b"not a bundle").is_some());
}

/// A 1.5 KB bundle whose one entry declares 8 GiB is refused without
/// reading it (it used to be read until memory ran out).
#[test]
fn a_sparse_entry_in_a_bundle_is_refused_unread() {
    let e = common::load_error(&test_support::sparse_bomb_tar("image.json")).expect("refused");
    assert!(e.to_string().contains("not a plain file"), "{e}");
    assert!(
        matches!(e, LoadError::Bundle(BundleError::NotAFile { .. })),
        "{e:?}"
    );
}

/// A bundle holds plain files, once each: a link, or a second
/// `image.json` or module of one name, is refused.
#[test]
fn a_bundle_with_a_link_or_a_repeated_entry_is_refused() {
    let b = bundle("entries", "examples/hello", "Hello.oth", &[]);
    let (json, modules) = othc::bundle::read(&b).unwrap();
    let mut twice = modules.clone();
    twice.push(modules[0].clone());
    let e = common::load_error(&rewrite(&json, &twice)).expect("refused");
    assert!(e.to_string().contains("twice"), "{e}");
    let mut with_link = tar::Builder::new(Vec::new());
    let mut h = tar::Header::new_ustar();
    h.set_entry_type(tar::EntryType::Symlink);
    h.set_size(0);
    h.set_cksum();
    with_link
        .append_link(&mut h, "image.json", "/etc/passwd")
        .unwrap();
    let e = common::load_error(&with_link.into_inner().unwrap()).expect("refused");
    assert!(e.to_string().contains("not a plain file"), "{e}");
}

/// A bundle whose module bytes changed after it was written is refused: the
/// hash in image.json no longer matches.
#[test]
fn a_tampered_module_is_refused() {
    let mut b = bundle("tampered", "examples/hello", "Hello.oth", &[]);
    let at = b
        .windows(4)
        .position(|w| w == b"\0asm")
        .expect("a module in the bundle");
    b[at + 100] ^= 0xff;
    let e = common::load_error(&b).expect("refused");
    assert!(
        e.to_string().contains("sha256") || e.to_string().contains("hash"),
        "{e}"
    );
    assert!(
        matches!(e, LoadError::Bundle(BundleError::WrongHash { .. })),
        "{e:?}"
    );
}

/// The bundle's entries written back as a plain archive, exactly as given
/// (unlike `othc::bundle::write`, which fills in header digests).
fn rewrite(json: &othc::bundle::ImageJson, modules: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    let mut entries = vec![("image.json".to_string(), serde_json::to_vec(json).unwrap())];
    entries.extend(modules.iter().cloned());
    for (name, data) in &entries {
        let mut h = tar::Header::new_ustar();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append_data(&mut h, name, data.as_slice()).unwrap();
    }
    b.into_inner().unwrap()
}

/// Another object's module put in place of Shouter's, with its hash (and
/// even its header digest) updated in image.json, is refused: the module
/// must be the object the image was checked with.
#[test]
fn a_swapped_module_is_refused_naming_the_instance() {
    let b = bundle("swapped", "examples/hello", "Hello.oth", &[]);
    let (json, modules) = othc::bundle::read(&b).unwrap();
    let greeter = modules
        .iter()
        .find(|(n, _)| n.ends_with("Greeter.wasm"))
        .unwrap()
        .1
        .clone();
    let swapped: Vec<(String, Vec<u8>)> = modules
        .iter()
        .map(|(n, d)| {
            let d = if n.ends_with("Shouter.wasm") {
                greeter.clone()
            } else {
                d.clone()
            };
            (n.clone(), d)
        })
        .collect();
    let mut j = json.clone();
    for inst in &mut j.instances {
        if inst.module.as_deref() == Some("modules/Shouter.wasm") {
            inst.sha256 = Some(othc::bundle::sha256_hex(&greeter));
        }
    }
    let e = common::load_error(&rewrite(&j, &swapped)).expect("refused");
    assert!(
        e.to_string().contains("`loud`") && e.to_string().contains("declares `Greeter`"),
        "{e}"
    );
    assert!(
        matches!(e, LoadError::Image(_)),
        "a fault of image.json: {e:?}"
    );
    // With the header digest updated too, the object's name still tells.
    for inst in &mut j.instances {
        if inst.module.as_deref() == Some("modules/Shouter.wasm") {
            inst.header_sha256 = Some(othc::bundle::header_sha256(&greeter).unwrap());
        }
    }
    let e = common::load_error(&rewrite(&j, &swapped)).expect("refused");
    assert!(e.to_string().contains("`loud`"), "{e}");
    // A header changed under the same object name: the digest tells.
    let mut j = json.clone();
    for inst in &mut j.instances {
        if inst.name == "loud" {
            inst.header_sha256 = Some("0".repeat(64));
        }
    }
    let e = common::load_error(&rewrite(&j, &modules)).expect("refused");
    assert!(
        e.to_string().contains("`loud`") && e.to_string().contains("header"),
        "{e}"
    );
    // The untouched bundle, rewritten the same way, still loads.
    assert!(common::load_error(&rewrite(&json, &modules)).is_none());
}

/// A module whose hash was deleted from image.json is refused like one
/// whose hash is wrong.
#[test]
fn a_module_without_its_hash_is_refused() {
    let b = bundle("unhashed", "examples/hello", "Hello.oth", &[]);
    let (mut json, modules) = othc::bundle::read(&b).unwrap();
    for inst in &mut json.instances {
        inst.sha256 = None;
    }
    let e = common::load_error(&rewrite(&json, &modules)).expect("refused");
    assert!(e.to_string().contains("sha256"), "{e}");
}

/// A module whose host calls have the wrong signatures is refused at load
/// in the ABI's own words (what it wants), not wasmtime's.
#[test]
fn a_module_breaking_the_abi_is_refused_in_its_words() {
    let b = bundle("abi_broken", "examples/hello", "Hello.oth", &[]);
    let (mut json, modules) = othc::bundle::read(&b).unwrap();
    let broken = wat::parse_str(
        r#"(module
             (import "othismo" "request" (func (param i32 i32) (result i32)))
             (memory (export "memory") 1))"#,
    )
    .unwrap();
    let modules: Vec<(String, Vec<u8>)> = modules
        .into_iter()
        .map(|(n, d)| {
            let d = if n.ends_with("Shouter.wasm") {
                broken.clone()
            } else {
                d
            };
            (n, d)
        })
        .collect();
    for inst in &mut json.instances {
        if inst.module.as_deref() == Some("modules/Shouter.wasm") {
            inst.sha256 = Some(othc::bundle::sha256_hex(&broken));
        }
    }
    let e = common::load_error(&rewrite(&json, &modules)).expect("refused");
    assert!(
        e.to_string().contains("`modules/Shouter.wasm` breaks the host ABI: its import `othismo.request` has the wrong signature (wants 7 i32 parameters and 1 i32 results)"),
        "{e}"
    );
    assert!(matches!(e, LoadError::BreaksAbi { .. }), "{e:?}");
}
