//! Does a compiled module keep the host ABI (abi.md §5)? Its exports, their
//! signatures, and every import (E0702).

use wasmparser::{Parser, Payload, TypeRef, ValType};

/// What the module exports, with the signature each must have (params, results).
const EXPORTS: &[(&str, usize, usize)] = &[
    ("othismo_alloc", 1, 1),
    ("othismo_start", 0, 0),
    ("othismo_serve", 9, 0),
    ("othismo_answer", 6, 0),
    ("othismo_error", 6, 0),
    ("othismo_cancel", 1, 0),
    ("_start", 0, 0),
];

/// The imports a module may have: module, name, params, results (all i32).
const IMPORTS: &[(&str, &str, usize, usize)] = &[
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
                for imp in r.into_imports() {
                    let Ok(imp) = imp else { continue };
                    match imp.ty {
                        TypeRef::Func(t) => {
                            funcs.push(t);
                            let sig = types.get(t as usize);
                            match IMPORTS.iter().find(|(m, n, _, _)| *m == imp.module && *n == imp.name) {
                                None => out.push(format!(
                                    "it imports `{}.{}`, which the runtime does not provide",
                                    imp.module, imp.name
                                )),
                                Some((_, _, p, r)) => match sig {
                                    Some((params, results))
                                        if params.len() == *p && results.len() == *r && all_i32(params) && all_i32(results) => {}
                                    _ => out.push(format!(
                                        "its import `{}.{}` has the wrong signature (wants {p} i32 parameters and {r} i32 results)",
                                        imp.module, imp.name
                                    )),
                                },
                            }
                        }
                        _ => out.push(format!(
                            "it imports `{}.{}`, which is not a function the runtime provides",
                            imp.module, imp.name
                        )),
                    }
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
    for (name, p, r) in EXPORTS {
        match exports.iter().find(|(n, _, _)| n == name) {
            None => out.push(format!("it does not export `{name}`")),
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
}
