//! A server built on the generated Rust `KitchenServer`
//! (fixtures/codegen/everything.oth), the twin of `tests/as/routing.ts`:
//! the same methods implemented, each answering with its name (as the
//! AssemblyScript bindings spell it) and its arguments, so
//! `tests/codegen_routing.rs` holds both generated servers to one table.

#[path = "../everything.oth.rs"]
mod bindings;

use bindings::{KitchenObject, KitchenServer, Nested, Note};
use othismo::{Payload, Request};

struct Kitchen;

impl KitchenServer for Kitchen {
    fn read(&mut self, req: Request) {
        req.answer_text("read");
    }

    fn read_items(&mut self, req: Request, id: String) {
        req.answer_text(&format!("readItems {id}"));
    }

    fn read_items_special(&mut self, req: Request) {
        req.answer_text("readItemsSpecial");
    }

    fn read_files(&mut self, req: Request, rest: String) {
        req.answer_text(&format!("readFiles {rest}"));
    }

    fn write_items_with_note(&mut self, req: Request, id: String, body: Note) {
        req.answer_text(&format!("writeItemsWithNote {id} {}", body.text));
    }

    fn write_items_with_nested(&mut self, req: Request, id: String, body: Nested) {
        req.answer_text(&format!("writeItemsWithNested {id} {}", body.inner.label));
    }

    fn remove_items_tags(&mut self, req: Request, id: String, tag: String) {
        req.answer_text(&format!("removeItemsTags {id} {tag}"));
    }

    fn write_raw(&mut self, req: Request, body: Payload) {
        req.answer_text(&format!("writeRaw {}", body.content_type));
    }

    fn read_ticks(&mut self, req: Request) {
        req.answer(Some(&Payload::text("tick 1")), false);
        req.answer(Some(&Payload::text("tick 2")), true);
    }
}

othismo::main!(KitchenObject(Kitchen));
