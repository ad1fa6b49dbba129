//! Does a compiled module keep the host ABI (book: reference/wire.md)? Its exports, their
//! signatures, and every import (E0702).

use wasmparser::{Parser, Payload, TypeRef, ValType};

/// The host ABI, as one table: what a module exports, with the number of
/// i32 params and results each must have. The runtime calls exactly these.
pub const EXPORTS: &[(&str, usize, usize)] = &[
    ("othismo_alloc", 1, 1),
    ("othismo_start", 0, 0),
    ("othismo_serve", 9, 0),
    ("othismo_answer", 6, 0),
    ("othismo_error", 6, 0),
    ("othismo_cancel", 1, 0),
    ("_start", 0, 0),
];

/// Exports a module may have, each checked like the others when it is
/// there: the runtime uses it if it is, and does without it if not.
/// `othismo_scratch` names 256 bytes of the module's memory where the
/// runtime may put a delivery's path and content type.
pub const OPTIONAL_EXPORTS: &[(&str, usize, usize)] = &[("othismo_scratch", 0, 1)];

/// The imports a module may have: module, name, params, results (all
/// i32). The runtime's linker provides exactly these, and the SDK's
/// `abi.ts` declares exactly the `othismo` ones (both tested).
pub const IMPORTS: &[(&str, &str, usize, usize)] = &[
    ("othismo", "request", 7, 1),
    ("othismo", "cancel", 1, 0),
    ("othismo", "answer", 6, 0),
    ("othismo", "fail", 6, 0),
    ("othismo", "forward", 3, 0),
    ("othismo", "bind", 5, 1),
    ("othismo", "unmount", 2, 1),
    ("othismo", "expose", 5, 1),
    ("env", "abort", 4, 0),
];

fn all_i32(types: &[ValType]) -> bool {
    types.iter().all(|t| *t == ValType::I32)
}

/// What is wrong with import `imp`, if anything, given the module's
/// function types so far (`types`).
fn import_problem(
    imp: &wasmparser::Import<'_>,
    types: &[(Vec<ValType>, Vec<ValType>)],
) -> Option<String> {
    let (module, name) = (imp.module, imp.name);
    let TypeRef::Func(t) = imp.ty else {
        return Some(format!(
            "it imports `{module}.{name}`, which is not a function the runtime provides"
        ));
    };
    let Some((_, _, p, r)) = IMPORTS
        .iter()
        .find(|(m, n, _, _)| *m == module && *n == name)
    else {
        return Some(format!(
            "it imports `{module}.{name}`, which the runtime does not provide"
        ));
    };
    match types.get(t as usize) {
        Some((params, results))
            if params.len() == *p && results.len() == *r && all_i32(params) && all_i32(results) =>
        {
            None
        }
        _ => Some(format!(
            "its import `{module}.{name}` has the wrong signature (wants {p} i32 parameters and {r} i32 results)"
        )),
    }
}

/// Every way the module breaks the ABI, one line each; empty when it keeps it.
pub fn problems(module: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut types: Vec<(Vec<ValType>, Vec<ValType>)> = Vec::new();
    let mut funcs: Vec<u32> = Vec::new(); // type index of each function, imports first
    let mut exports: Vec<(String, wasmparser::ExternalKind, u32)> = Vec::new();
    for payload in Parser::new(0).parse_all(module) {
        let payload = match payload {
            Ok(p) => p,
            Err(e) => return vec![format!("it is not a valid module: {e}")],
        };
        match payload {
            Payload::TypeSection(r) => {
                for ty in r.into_iter_err_on_gc_types() {
                    match ty {
                        Ok(f) => types.push((f.params().to_vec(), f.results().to_vec())),
                        Err(e) => return vec![format!("it is not a valid module: {e}")],
                    }
                }
            }
            Payload::ImportSection(r) => {
                for imp in r.into_imports().flatten() {
                    if let TypeRef::Func(t) = imp.ty {
                        funcs.push(t);
                    }
                    out.extend(import_problem(&imp, &types));
                }
            }
            Payload::FunctionSection(r) => {
                for f in r.into_iter().flatten() {
                    funcs.push(f);
                }
            }
            Payload::ExportSection(r) => {
                for e in r.into_iter().flatten() {
                    exports.push((e.name.to_string(), e.kind, e.index));
                }
            }
            _ => {}
        }
    }
    if !exports
        .iter()
        .any(|(n, k, _)| n == "memory" && *k == wasmparser::ExternalKind::Memory)
    {
        out.push("it exports no `memory`".into());
    }
    let optional = OPTIONAL_EXPORTS.iter().map(|e| (e, false));
    for ((name, p, r), required) in EXPORTS.iter().map(|e| (e, true)).chain(optional) {
        match exports.iter().find(|(n, _, _)| n == name) {
            None if required => out.push(format!("it does not export `{name}`")),
            None => {}
            Some((_, kind, index)) => {
                let sig = (*kind == wasmparser::ExternalKind::Func)
                    .then(|| funcs.get(*index as usize))
                    .flatten()
                    .and_then(|t| types.get(*t as usize));
                match sig {
                    Some((params, results))
                        if params.len() == *p && results.len() == *r && all_i32(params) && all_i32(results) => {}
                    _ => out.push(format!(
                        "its export `{name}` has the wrong signature (wants a function of {p} i32 parameters and {r} i32 results)"
                    )),
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_module_breaks_it_every_way() {
        let bare = b"\0asm\x01\0\0\0";
        let p = problems(bare);
        assert!(p.iter().any(|l| l == "it exports no `memory`"));
        assert!(p.iter().any(|l| l == "it does not export `othismo_serve`"));
        assert_eq!(p.len(), 1 + EXPORTS.len());
        let junk = problems(b"junk");
        assert_eq!(junk.len(), 1);
        assert!(junk[0].starts_with("it is not a valid module"), "{junk:?}");
    }

    /// The SDK's `abi.ts` declares exactly the table's `othismo` imports
    /// (name, number of params, a result or not), and its `exports.ts`
    /// exports exactly the table's `othismo_*` functions.
    #[test]
    fn the_sdk_declares_exactly_the_abi_table() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../sdk/assemblyscript");
        let abi = std::fs::read_to_string(root.join("abi.ts")).expect("abi.ts");
        let mut declared: Vec<(String, usize, usize)> = Vec::new();
        let mut lines = abi.lines();
        while let Some(line) = lines.next() {
            let Some(rest) = line.strip_prefix("@external(\"othismo\", \"") else {
                continue;
            };
            let name = rest.split('"').next().unwrap_or_default().to_string();
            let decl = lines.next().unwrap_or_default();
            let params = decl
                .split_once('(')
                .and_then(|(_, r)| r.rsplit_once(')'))
                .map(|(p, _)| p.split(',').filter(|a| !a.trim().is_empty()).count())
                .unwrap_or(usize::MAX);
            let results = usize::from(!decl.trim_end().ends_with(": void"));
            declared.push((name, params, results));
        }
        declared.sort();
        let mut table: Vec<(String, usize, usize)> = IMPORTS
            .iter()
            .filter(|(m, ..)| *m == "othismo")
            .map(|(_, n, p, r)| (n.to_string(), *p, *r))
            .collect();
        table.sort();
        assert_eq!(declared, table);

        let exports = std::fs::read_to_string(root.join("exports.ts")).expect("exports.ts");
        let mut named: Vec<&str> = exports
            .split(['{', '}', ',', '\n'])
            .map(str::trim)
            .filter(|w| w.starts_with("othismo_"))
            .collect();
        named.sort_unstable();
        let mut want: Vec<&str> = EXPORTS
            .iter()
            .chain(OPTIONAL_EXPORTS)
            .map(|(n, ..)| *n)
            .filter(|n| n.starts_with("othismo_"))
            .collect();
        want.sort_unstable();
        assert_eq!(named, want);
    }
}
