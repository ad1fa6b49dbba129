//! The host's wiring, held against the ABI table.

use super::*;

/// The linker provides exactly the host ABI's table of imports, with
/// its signatures: the compiler's ABI check and the runtime cannot
/// drift apart.
#[test]
fn the_linker_provides_exactly_the_abi_table() {
    let engine = Engine::default();
    let l = linker(&engine).expect("the linker builds");
    let host = Host {
        calls: Vec::new(),
        next_ticket: Ticket(0),
        view: View::default(),
        exposed: Vec::new(),
        memory_limit: 0,
        held_limit: 0,
        held_in_call: 0,
        memory_used: 0,
        table_elements: 0,
        payload_limit: 0,
        memory: None,
        last_content_type: None,
    };
    let mut store = Store::new(&engine, host);
    let defined: Vec<(String, String, wasmtime::Extern)> = l
        .iter(&mut store)
        .map(|(module, name, ext)| (module.to_string(), name.to_string(), ext))
        .collect();
    let mut provided: Vec<(String, String, usize, usize)> = defined
        .into_iter()
        .map(|(module, name, ext)| {
            let f = ext.into_func().expect("only functions");
            let ty = f.ty(&store);
            assert!(
                ty.params().chain(ty.results()).all(|t| t.is_i32()),
                "{module}.{name} takes or gives a non-i32"
            );
            (module, name, ty.params().len(), ty.results().len())
        })
        .collect();
    provided.sort();
    let mut table: Vec<(String, String, usize, usize)> = othc::abi_check::IMPORTS
        .iter()
        .map(|(m, n, p, r)| (m.to_string(), n.to_string(), *p, *r))
        .collect();
    table.sort();
    assert_eq!(provided, table);
}
