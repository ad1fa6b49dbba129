//! Large synthetic inputs for the benches (see `check.rs` for the shapes).

use std::fmt::Write as _;

/// Exactly the shape other schema compilers were measured on here.
pub fn schemas(n: usize) -> String {
    let mut s = String::with_capacity(n * 170);
    s.push_str("export schemas application/bson {\n  message Leaf {\n    id: i32\n  }\n");
    for i in 0..n {
        let parent = if i == 0 {
            "Leaf".to_string()
        } else {
            format!("M{}", (i - 1) / 2)
        };
        let _ = write!(
            s,
            "  message M{i} {{\n    name: string\n    flag: bool\n    count: i32\n    total: i64\n    ratio: f64\n    tags: [string]\n    parent: {parent}\n    opt_val?: i32\n  }}\n"
        );
    }
    for e in 0..n / 10 {
        let _ = writeln!(
            s,
            "  enum E{e} {{\n    a{e}\n    b{e}\n    c{e}\n    d{e}\n  }}"
        );
    }
    s.push_str("}\n");
    s
}

/// The types, and one object per ten messages serving and needing them.
pub fn objects(n: usize) -> String {
    let mut s = schemas(n);
    for o in 0..n / 10 {
        let _ = writeln!(s, "export object O{o} {{\n  serves {{");
        for i in o * 10..o * 10 + 10 {
            let _ = writeln!(s, "    /m{i}/{{id}}  write M{i} -> text/plain");
            let _ = writeln!(s, "    /m{i}  read -> M{i}");
        }
        let _ = writeln!(s, "  }}\n  needs /next {{");
        for i in o * 10..o * 10 + 10 {
            let _ = writeln!(s, "    /m{i}/{{id}}  write M{i} -> text/*");
        }
        s.push_str("  }\n}\n");
    }
    s
}

/// The objects, wired into one image: two instances of each object, each
/// one's `/next` mounted at the other.
pub fn image(n: usize) -> String {
    let mut s = objects(n);
    s.push_str("export image Big {\n");
    for o in 0..n / 10 {
        let _ = writeln!(s, "  instance a{o} = O{o} {{ mount /next /b{o} }}");
        let _ = writeln!(s, "  instance b{o} = O{o} {{ mount /next /a{o} }}");
    }
    s.push_str("}\n");
    s
}

/// The `schemas` shape in WIT, for `wasm-tools component wit`: the same N
/// records of the same 8 fields (`option<s32>` for the optional one) and
/// N/10 enums of 4 cases, in one interface.
pub fn wit_schemas(n: usize) -> String {
    let mut s = String::with_capacity(n * 190);
    s.push_str("package bench:schema;\n\ninterface types {\n  record leaf {\n    id: s32,\n  }\n");
    for i in 0..n {
        let parent = if i == 0 {
            "leaf".to_string()
        } else {
            format!("m{}", (i - 1) / 2)
        };
        let _ = write!(
            s,
            "  record m{i} {{\n    name: string,\n    flag: bool,\n    count: s32,\n    total: s64,\n    ratio: f64,\n    tags: list<string>,\n    parent: {parent},\n    opt-val: option<s32>,\n  }}\n"
        );
    }
    for e in 0..n / 10 {
        let _ = writeln!(
            s,
            "  enum e{e} {{\n    a{e},\n    b{e},\n    c{e},\n    d{e},\n  }}"
        );
    }
    s.push_str("}\n");
    s
}
