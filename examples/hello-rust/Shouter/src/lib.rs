//! Shouter, written in Rust: writes whatever it is sent to the console, in
//! capitals. Its bindings are `Shouter.oth.rs`, beside its header, written
//! by `othc build` (or `othc gen --lang rust Shouter.oth`).

#[path = "../../Shouter.oth.rs"]
mod bindings;

use bindings::{cons, ShouterObject, ShouterServer};
use othismo::Request;

struct Shouter;

impl ShouterServer for Shouter {
    // write / text/plain
    fn write(&mut self, req: Request, text: String) {
        cons().write(&text.to_uppercase(), |_| {});
        req.end();
    }
}

othismo::main!(ShouterObject(Shouter));
