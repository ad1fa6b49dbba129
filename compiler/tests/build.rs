//! `othc build`, for real: the pinned AssemblyScript compiler, the ABI check,
//! the sections, the cache.
//!
//! - each `fixtures/build/err/*/App.oth` (`# expect: CODE`) builds with
//!   exactly those errors;
//! - the hello example builds; two builds into two folders give the same
//!   bytes, and the second compiles nothing; a changed source compiles again,
//!   and so does a changed `asconfig.json`;
//! - the sections read back (by othc, and by node's
//!   `WebAssembly.Module.customSections`) give the header the source has;
//! - an image that has its objects only as `.wasm` checks clean;
//! - a module with a corrupted header is refused (E0209).

mod common;
use common::building::{Disk, build, copy_dir, scratch};
use common::root;
use std::path::PathBuf;
use std::process::Command;

use othc::{Code, Diagnostics};
use othc_driver::build::{Options, build_images, build_objects};
use othc_driver::toolchain::Profile;

#[test]
fn each_build_fixture_reports_exactly_its_codes() {
    let dir = root().join("fixtures/build/err");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    cases.sort();
    assert!(cases.len() >= 3);
    for case in cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let work = scratch(&format!("err_{name}"));
        copy_dir(&case, &work);
        let src = std::fs::read_to_string(work.join("App.oth")).unwrap();
        let want: Vec<&str> = src
            .lines()
            .find_map(|l| l.strip_prefix("# expect:"))
            .expect("# expect:")
            .split_whitespace()
            .collect();
        let (_, built, diags) = build(
            &work.join("App.oth"),
            &work.join("out"),
            &work.join("cache"),
        );
        let got: Vec<&str> = diags.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(
            got,
            want,
            "{name}: {:?}",
            diags
                .iter()
                .map(|d| (&d.message, &d.help))
                .collect::<Vec<_>>()
        );
        assert!(built.is_empty(), "{name}: nothing is written");
    }
}

#[test]
fn hello_builds_the_same_bytes_twice_and_the_second_time_from_the_cache() {
    let work = scratch("hello");
    copy_dir(&root().join("examples/hello"), &work.join("hello"));
    let cache = work.join("cache");
    let hello = work.join("hello/Hello.oth");
    let (_, first, diags) = build(&hello, &work.join("out1"), &cache);
    assert!(
        !diags.has_errors(),
        "{:?}",
        diags
            .iter()
            .map(|d| (&d.message, &d.help))
            .collect::<Vec<_>>()
    );
    let names: Vec<&str> = first.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["Greeter", "Shouter"]);
    assert!(
        first.iter().all(|b| !b.cached),
        "a fresh cache compiles everything"
    );
    let (_, second, _) = build(&hello, &work.join("out2"), &cache);
    assert!(
        second.iter().all(|b| b.cached),
        "nothing changed: nothing is compiled"
    );
    for (a, b) in first.iter().zip(&second) {
        assert_eq!(
            std::fs::read(&a.path).unwrap(),
            std::fs::read(&b.path).unwrap(),
            "{}",
            a.name
        );
        assert_eq!(a.sha256, b.sha256);
    }
    // The bundles: the same bytes from both builds, and they read back.
    let bundle = |out: &str, built: &[othc::bundle::Built]| {
        let c = othc::compile(&Disk, std::slice::from_ref(&hello), &Default::default()).unwrap();
        let mut opts = Options::new(work.join(out), Profile::Release);
        opts.cache = cache.clone();
        let paths = build_images(&c, built, &opts).expect("bundles");
        assert_eq!(paths.len(), 1);
        std::fs::read(&paths[0]).unwrap()
    };
    let b1 = bundle("out1", &first);
    let b2 = bundle("out2", &second);
    assert_eq!(b1, b2, "Hello.othimg is the same bytes");
    let (json, modules) = othc::bundle::read(&b1).expect("the bundle reads back");
    assert_eq!(json.image, "Hello");
    assert_eq!(
        modules.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
        ["modules/Greeter.wasm", "modules/Shouter.wasm"]
    );
    let greeter = json.instances.iter().find(|i| i.name == "greeter").unwrap();
    assert_eq!(
        greeter
            .view
            .iter()
            .map(|v| (v.at.as_str(), v.target.as_str(), v.path.as_str()))
            .collect::<Vec<_>>(),
        [("/dev/cons", "cons", "/"), ("/shouter", "loud", "/")]
    );
    let start = &json.startup[0];
    assert_eq!(
        (start.target.as_str(), start.path.as_str()),
        ("greeter", "/greeting")
    );
    // Corrupted bundles are refused, saying why.
    use othc::bundle::BundleError;
    let err = othc::bundle::read(&b1[..b1.len() / 3]).unwrap_err();
    assert_eq!(err, BundleError::CutShort);
    assert!(err.to_string().contains("the bundle is cut short"), "{err}");
    let err = othc::bundle::read(b"image Hello {}\n").unwrap_err();
    assert_eq!(err, BundleError::NotABundle);
    assert!(
        err.to_string()
            .contains("not a bundle: it does not begin as one"),
        "{err}"
    );
    let mut tampered = b1.clone();
    let at = tampered.len() - 2000;
    tampered[at] ^= 0xff;
    let err = othc::bundle::read(&tampered).unwrap_err();
    assert!(
        matches!(err, BundleError::WrongHash { .. } | BundleError::Damaged(_)),
        "{err}"
    );
    // A change to an implementation compiles that module again.
    let shouter = work.join("hello/Shouter.ts");
    let text = std::fs::read_to_string(&shouter).unwrap();
    std::fs::write(
        &shouter,
        text.replace("toUpperCase()", "toUpperCase() + \"!\""),
    )
    .unwrap();
    let (_, third, _) = build(&hello, &work.join("out3"), &cache);
    let recompiled: Vec<&str> = third
        .iter()
        .filter(|b| !b.cached)
        .map(|b| b.name.as_str())
        .collect();
    assert_eq!(recompiled, ["Shouter"]);
    // An `asconfig.json` beside the implementations (the compiler reads it)
    // compiles them again, with the collector it asks for: another module.
    // (Both implementations are in one folder here, so both.)
    let before: Vec<Vec<u8>> = third
        .iter()
        .map(|b| std::fs::read(&b.path).unwrap())
        .collect();
    std::fs::write(
        work.join("hello/asconfig.json"),
        r#"{ "options": { "runtime": "minimal" } }"#,
    )
    .unwrap();
    let (_, fourth, _) = build(&hello, &work.join("out4"), &cache);
    for (b, old) in fourth.iter().zip(&before) {
        assert!(!b.cached, "{}: built again", b.name);
        assert_ne!(
            &std::fs::read(&b.path).unwrap(),
            old,
            "{}: another module",
            b.name
        );
    }
    // Any change to the file is another module's input (the compiler reads
    // all of it).
    std::fs::write(
        work.join("hello/asconfig.json"),
        r#"{ "options": { "runtime": "minimal", "shrinkLevel": 1 } }"#,
    )
    .unwrap();
    let (_, fifth, _) = build(&hello, &work.join("out5"), &cache);
    assert!(fifth.iter().all(|b| !b.cached), "built again");
}

#[test]
fn sections_read_back_as_the_source_header_and_images_can_use_modules_alone() {
    let work = scratch("sections");
    copy_dir(&root().join("examples/hello"), &work.join("hello"));
    let (c, built, diags) = build(
        &work.join("hello/Hello.oth"),
        &work.join("out"),
        &work.join("cache"),
    );
    assert!(!diags.has_errors());
    let greeter = built.iter().find(|b| b.name == "Greeter").unwrap();
    let bytes = std::fs::read(&greeter.path).unwrap();
    // othc reads the sections back into the same object and types.
    let from_source = othc::sections::sections_of(&c.checked.model, greeter.object);
    let mut l = othc::loader::MemoryLoader::new();
    l.add("Greeter.wasm", bytes.clone());
    l.add(
        "Shouter.wasm",
        std::fs::read(&built.iter().find(|b| b.name == "Shouter").unwrap().path).unwrap(),
    );
    l.add(
        "Uses.oth",
        r#"import { Console } from "othismo:env"
import { Greeter, Greeting } from "Greeter.wasm"
import { Shouter } from "Shouter.wasm"

export image FromModules {
  require greeting : Greeting = Greeting { prefix: "Hi, ", excited: false }
  instance cons = Console
  instance loud = Shouter { mount /dev/cons /cons }
  instance greeter = Greeter {
    mount /dev/cons /cons
    mount /shouter  /loud
  }
  write /greeter/greeting greeting
}
"#,
    );
    let uses = othc::compile(&l, &[PathBuf::from("Uses.oth")], &Default::default()).unwrap();
    assert!(
        uses.front.diags.iter().next().is_none(),
        "{}",
        othc::diagnostics::render::human(&uses.front.sources, &uses.front.diags, false)
    );
    let model = &uses.checked.model;
    let again = model
        .objects
        .iter()
        .position(|o| o.name == "Greeter")
        .unwrap();
    let read_back = othc::sections::sections_of(model, othc::model::ObjectId(again as u32));
    assert_eq!(
        read_back, from_source,
        "build, read back, and print again: the same sections"
    );
    // node sees the same sections.
    let script = format!(
        "const m = new WebAssembly.Module(require('fs').readFileSync({:?})); \
         for (const n of ['othismo:header', 'othismo:schemas:application/bson']) \
         process.stdout.write(Buffer.from(WebAssembly.Module.customSections(m, n)[0]).toString() + '\\u0000')",
        greeter.path
    );
    let out = common::succeed(Command::new("node").args(["-e", &script]));
    let text = String::from_utf8(out.stdout).unwrap();
    let seen: Vec<&str> = text.split('\0').filter(|s| !s.is_empty()).collect();
    let want: Vec<&str> = from_source.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(seen, want);
    assert!(seen[0].starts_with("# othismo header 1\n"));
    // What `othc inspect` prints of it is the source, formatted (comments aside).
    let source = std::fs::read_to_string(work.join("hello/Greeter.oth")).unwrap();
    let formatted = othc::printer::format_file(&source).ok().unwrap();
    let without_comments: String = formatted
        .lines()
        .filter(|l| !l.starts_with('#') || l.starts_with("##"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(
        othc::wasm::header_for_reading(&bytes).unwrap(),
        without_comments
    );
    // And bindings generated from the module are those of the source.
    let from_wasm = othc::backends::assemblyscript::generate(
        model,
        othc::model::FileIx(model.objects[again].file.0),
        "",
    );
    let src_model = &c.checked.model;
    let from_src = othc::backends::assemblyscript::generate(
        src_model,
        src_model.objects[greeter.object.index()].file,
        "",
    );
    let body = |t: &str| t.lines().skip(2).collect::<Vec<_>>().join("\n");
    assert_eq!(from_wasm.file_name, "Greeter.wasm.ts");
    assert_eq!(body(&from_wasm.text), body(&from_src.text));
}

#[test]
fn a_corrupted_header_section_is_refused() {
    let work = scratch("corrupt");
    copy_dir(&root().join("examples/hello"), &work.join("hello"));
    let (_, built, _) = build(
        &work.join("hello/Hello.oth"),
        &work.join("out"),
        &work.join("cache"),
    );
    let bytes = std::fs::read(&built[0].path).unwrap();
    let broken = othc::sections::append(
        &bytes,
        &[(
            "othismo:header".to_string(),
            "# othismo header 1\nexport object Greeter { serves { /x reed } }".to_string(),
        )],
    )
    .unwrap();
    let no_magic = othc::sections::append(
        &bytes,
        &[("othismo:header".to_string(), "object X {}".to_string())],
    )
    .unwrap();
    let mut l = othc::loader::MemoryLoader::new();
    l.add("broken.wasm", broken).add("nomagic.wasm", no_magic);
    l.add(
        "a.oth",
        r#"import { Greeter } from "broken.wasm" import { X } from "nomagic.wasm""#,
    );
    let c = othc::compile(&l, &[PathBuf::from("a.oth")], &Default::default()).unwrap();
    let codes: Vec<Code> = c.front.diags.iter().map(|d| d.code).collect();
    assert_eq!(codes, [Code::E0209, Code::E0209]);
}

#[test]
fn nested_images_are_flattened_into_one_bundle() {
    let work = scratch("nested");
    copy_dir(&root().join("examples/hello"), &work.join("hello"));
    std::fs::write(
        work.join("hello/Nested.oth"),
        r#"import { Console } from "othismo:env"
import { Greeter, Greeting } from "Greeter.oth"
import { Shouter } from "Shouter.oth"

## Shouts at whatever console the enclosing image gives it.
export image Loud {
  needs /console {
    /  write text/plain
  }
  instance loud = Shouter { mount /dev/cons /console }
  export /loud /loud
}

export image Outer {
  instance cons = Console
  instance inner = Loud { mount /console /cons }
  instance greeter = Greeter {
    mount /dev/cons /cons
    mount /shouter  /inner/loud
  }
  write /greeter/greeting Greeting { prefix: "Yo ", excited: true }
}
"#,
    )
    .unwrap();
    let nested = work.join("hello/Nested.oth");
    let cache = work.join("cache");
    let (c, built, diags) = build(&nested, &work.join("out"), &cache);
    assert!(!diags.has_errors());
    let mut opts = Options::new(work.join("out"), Profile::Release);
    opts.cache = cache;
    let paths = build_images(&c, &built, &opts).expect("bundles");
    // `Loud` needs a console of whatever runs it: only `Outer` is bundled.
    assert_eq!(paths.len(), 1);
    let (json, _) = othc::bundle::read(&std::fs::read(&paths[0]).unwrap()).unwrap();
    let names: Vec<&str> = json.instances.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["cons", "inner.loud", "greeter"]);
    let loud = &json.instances[1];
    assert_eq!(
        (loud.view[0].target.as_str(), loud.view[0].path.as_str()),
        ("cons", "/")
    );
    let greeter = &json.instances[2];
    let shouter = greeter.view.iter().find(|v| v.at == "/shouter").unwrap();
    assert_eq!(
        (
            shouter.target.as_str(),
            shouter.path.as_str(),
            shouter.readonly
        ),
        ("inner.loud", "/", false)
    );
}

/// An image whose objects come as `.wasm` files (no source at hand) builds:
/// the modules go into the bundle as they are.
#[test]
fn objects_imported_from_modules_are_bundled_as_they_are() {
    let work = scratch("prebuilt");
    copy_dir(&root().join("examples/hello"), &work.join("hello"));
    let (first, built, diags) = build(
        &work.join("hello/Hello.oth"),
        &work.join("out"),
        &work.join("cache"),
    );
    assert!(!diags.has_errors());
    let uses = work.join("uses");
    std::fs::create_dir_all(&uses).unwrap();
    for b in &built {
        std::fs::copy(&b.path, uses.join(format!("{}.wasm", b.name))).unwrap();
    }
    let hello = std::fs::read_to_string(work.join("hello/Hello.oth"))
        .unwrap()
        .replace("\"Greeter.oth\"", "\"Greeter.wasm\"")
        .replace("\"Shouter.oth\"", "\"Shouter.wasm\"");
    std::fs::write(uses.join("Hello.oth"), hello).unwrap();
    let (c, again, diags) = build(
        &uses.join("Hello.oth"),
        &uses.join("out"),
        &work.join("cache"),
    );
    assert!(
        !diags.has_errors(),
        "{:?}",
        diags.iter().map(|d| &d.message).collect::<Vec<_>>()
    );
    assert_eq!(again.len(), 2);
    let mut opts = Options::new(uses.join("out"), Profile::Release);
    opts.cache = work.join("cache");
    let bundles = othc_driver::build::build_images(&c, &again, &opts).unwrap();
    let (_, modules) = othc::bundle::read(&std::fs::read(&bundles[0]).unwrap()).unwrap();
    for b in &built {
        let inside = &modules
            .iter()
            .find(|(n, _)| *n == format!("modules/{}.wasm", b.name))
            .unwrap()
            .1;
        assert_eq!(
            *inside,
            std::fs::read(&b.path).unwrap(),
            "{} as it was",
            b.name
        );
    }
    // One that carries its header but breaks the host ABI is refused.
    let shouter = built.iter().find(|b| b.name == "Shouter").unwrap();
    let sections = othc::sections::sections_of(&first.checked.model, shouter.object);
    let empty = othc::sections::append(b"\0asm\x01\0\0\0", &sections).unwrap();
    std::fs::write(uses.join("Shouter.wasm"), empty).unwrap();
    let mut c = othc::compile(&Disk, &[uses.join("Hello.oth")], &Default::default()).unwrap();
    assert!(!c.front.diags.has_errors());
    let mut diags = Diagnostics::new();
    build_objects(&mut c, &opts, &mut diags);
    let codes: Vec<Code> = diags.iter().map(|d| d.code).collect();
    assert_eq!(codes, [Code::E0702]);
}

/// A bind whose source lies under itself (`bind /data /data/sub`) means
/// what was at `/data/sub` before the bind, for the checker and the bundle
/// alike.
#[test]
fn a_bind_over_its_own_source_resolves_as_the_checker_says() {
    let mut l = othc::loader::MemoryLoader::new();
    l.add(
        "App.oth",
        r#"import { Files } from "othismo:env"

object Reader {
  needs /data {
    /  read -> */**
  }
}

image App {
  instance fs = Files
  instance r = Reader {
    mount /data /fs
    bind /data /data/sub
  }
}
"#,
    );
    let c = othc::compile(&l, &[PathBuf::from("App.oth")], &Default::default()).unwrap();
    assert!(
        !c.front.diags.has_errors(),
        "{}",
        othc::diagnostics::render::human(&c.front.sources, &c.front.diags, false)
    );
    let model = &c.checked.model;
    let reader = model
        .objects
        .iter()
        .position(|o| o.name == "Reader")
        .unwrap();
    let built = [othc::bundle::Built {
        object: othc::model::ObjectId(reader as u32),
        name: "Reader".into(),
        path: PathBuf::from("Reader.wasm"),
        sha256: "0".repeat(64),
        cached: false,
    }];
    let json = othc::bundle::image_json(&c.checked, othc::model::ImageId(0), &built).unwrap();
    let r = json.instances.iter().find(|i| i.name == "r").unwrap();
    let data: Vec<(&str, &str, &str)> = r
        .view
        .iter()
        .map(|v| (v.at.as_str(), v.target.as_str(), v.path.as_str()))
        .collect();
    // Before this test, the bundle chased the bind into itself and failed.
    assert_eq!(data, [("/data", "fs", "/sub")]);
}
