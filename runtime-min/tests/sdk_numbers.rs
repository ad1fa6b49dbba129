//! The numbers the AssemblyScript SDK writes into every module, held to
//! the runtime's: the verbs and request flags (`sdk/assemblyscript/abi.ts`),
//! the errnos of the runtime's statuses and their codes (`payload.ts`),
//! and the stat record's type and kinds (`stat.ts`). A module built with
//! one number and run with another would mean one thing and be taken for
//! another; the host ABI's names and arities are held the same way by the
//! compiler's ABI check.

use othc::model::Verb;
use othismo_runtime::abi::{self, errno};

fn sdk(file: &str) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::read_to_string(root.join("sdk/assemblyscript").join(file)).unwrap()
}

/// `export const NAME: i32 = N` (in a namespace or not), as (NAME, N).
fn constants(text: &str) -> Vec<(String, i32)> {
    text.lines()
        .filter_map(|l| {
            let rest = l.trim().strip_prefix("export const ")?;
            let (name, value) = rest.split_once(": i32 = ")?;
            Some((name.to_string(), value.trim().parse().ok()?))
        })
        .collect()
}

#[test]
fn the_sdks_verbs_and_flags_are_the_runtimes() {
    let abi_ts = constants(&sdk("abi.ts"));
    for v in Verb::ALL {
        let name = v.as_str();
        let as_name = name[..1].to_uppercase() + &name[1..];
        let found = abi_ts.iter().find(|(n, _)| *n == as_name);
        assert_eq!(
            found.map(|f| f.1),
            Some(v.wire()),
            "Verb.{as_name} in abi.ts is the runtime's {name}"
        );
    }
    let flag = |n: &str| abi_ts.iter().find(|(k, _)| k == n).map(|f| f.1);
    assert_eq!(flag("FLAG_OPERATOR"), Some(abi::OPERATOR));
    assert_eq!(flag("FLAG_READONLY"), Some(abi::READONLY));
}

#[test]
fn the_sdks_statuses_are_the_runtimes_errnos_and_codes() {
    let payload_ts = sdk("payload.ts");
    let statuses: Vec<(i32, String)> = payload_ts
        .lines()
        .filter_map(|l| {
            let rest = l.split_once("= new Status(")?.1;
            let (n, code) = rest.split_once(", \"")?;
            Some((n.trim().parse().ok()?, code.split('"').next()?.to_string()))
        })
        .collect();
    assert!(
        statuses.len() >= 10,
        "payload.ts's statuses were read: {statuses:?}"
    );
    for (n, code) in &statuses {
        assert_eq!(
            errno::known(*n),
            Some(code.as_str()),
            "Status({n}) in payload.ts"
        );
    }
    // And every errno the runtime answers with has its Status there.
    for n in 1..=10 {
        assert!(
            statuses.iter().any(|(k, _)| *k == n),
            "payload.ts has no Status for errno {n} ({:?})",
            errno::known(n)
        );
    }
}

#[test]
fn the_sdks_stat_record_is_the_runtimes() {
    // The SDK's own content types are one string each, in payload.ts;
    // stat.ts names the stat record's by that string.
    let payload_ts = sdk("payload.ts");
    assert!(
        payload_ts.contains(&format!("STAT_TYPE: string = \"{}\"", abi::STAT_TYPE)),
        "payload.ts names the stat record's type {}",
        abi::STAT_TYPE
    );
    let stat_ts = sdk("stat.ts");
    assert!(
        stat_ts.contains("export const STAT: string = STAT_TYPE"),
        "stat.ts's STAT is payload.ts's STAT_TYPE"
    );
    let kinds: Vec<(String, i32)> = stat_ts
        .lines()
        .filter_map(|l| {
            let rest = l.trim().strip_prefix("export const ")?;
            let (name, value) = rest.split_once(": u8 = ")?;
            Some((name.to_string(), value.trim().parse().ok()?))
        })
        .collect();
    assert!(
        kinds.contains(&("KIND_FILE".into(), abi::KIND_FILE as i32)),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&("KIND_DIRECTORY".into(), abi::KIND_DIRECTORY as i32)),
        "{kinds:?}"
    );
}

/// A file of the Rust crate (`sdk/rust/src`).
fn crate_file(file: &str) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::read_to_string(root.join("sdk/rust/src").join(file)).unwrap()
}

#[test]
fn the_rust_crates_numbers_and_host_calls_are_the_runtimes() {
    let abi_rs = crate_file("abi.rs");
    for v in Verb::ALL {
        let name = v.as_str();
        let variant = name[..1].to_uppercase() + &name[1..];
        assert!(
            abi_rs.contains(&format!("    {variant} = {},", v.wire())),
            "Verb::{variant} in sdk/rust/src/abi.rs is the runtime's {name} ({})",
            v.wire()
        );
    }
    let lib_rs = crate_file("lib.rs");
    assert!(lib_rs.contains(&format!(
        "pub const FLAG_OPERATOR: i32 = {};",
        abi::OPERATOR
    )));
    assert!(lib_rs.contains(&format!(
        "pub const FLAG_READONLY: i32 = {};",
        abi::READONLY
    )));
    // Every status is an errno with its code, and every errno has one.
    let payload_rs = crate_file("payload.rs");
    let statuses: Vec<(i32, String)> = payload_rs
        .lines()
        .filter_map(|l| {
            let rest = l.trim().strip_prefix("Status::of(")?;
            let (n, code) = rest.split_once(", \"")?;
            Some((n.trim().parse().ok()?, code.split('"').next()?.to_string()))
        })
        .collect();
    for (n, code) in &statuses {
        assert_eq!(
            errno::known(*n),
            Some(code.as_str()),
            "Status::of({n}) in payload.rs"
        );
    }
    for n in 1..=10 {
        assert!(
            statuses.iter().any(|(k, _)| *k == n),
            "payload.rs has no status for errno {n}"
        );
    }
    assert!(crate_file("stat.rs").contains(&format!("\"{}\"", abi::STAT_TYPE)));
    // The host calls it imports, and the exports the runtime calls.
    for (module, name, _, _) in othc::abi_check::IMPORTS {
        if *module == "othismo" {
            assert!(
                abi_rs.contains(&format!("#[link_name = \"{name}\"]")),
                "sdk/rust/src/abi.rs imports `othismo.{name}`"
            );
        }
    }
    let main = format!("{}{lib_rs}", crate_file("exports.rs"));
    for (name, _, _) in othc::abi_check::EXPORTS {
        assert!(
            main.contains(&format!("extern \"C\" fn {name}(")),
            "the crate exports `{name}`"
        );
    }
}
