//! The buffers a delivery's bytes go into. Each is a buffer the module
//! allocates (`othismo_alloc`) and owns once the call is made; but the
//! path, the content type and a small payload's data (a stat record, a
//! short message), which nearly every delivery carries, go into the
//! module's scratch region if it has one (`othismo_scratch`) and they fit:
//! no call into the module to allocate for them (the module copies what
//! it keeps). The
//! module reads them from there before anything else, and nothing else
//! writes there while it does: deliveries never overlap, and a host call
//! never writes into a module (book: reference/wire.md).

use wasmtime::{Memory, Store, TypedFunc};

use super::{Host, Wasm};
use crate::Payload;

/// The scratch region's length, fixed by the ABI.
pub(super) const SCRATCH_LEN: usize = 256;

/// Where a module's scratch region starts in its memory.
#[derive(Clone, Copy)]
pub(super) struct Scratch {
    at: usize,
}

/// What is left of the scratch region during one delivery.
pub(super) struct Room {
    next: usize,
    end: usize,
}

impl Scratch {
    /// The region `othismo_scratch` names, asked once the module has
    /// started; none if the module exports no such function. It must lie
    /// inside the module's memory (which never shrinks).
    pub fn find(
        export: Option<TypedFunc<(), i32>>,
        store: &mut Store<Host>,
        memory: &Memory,
    ) -> wasmtime::Result<Option<Scratch>> {
        let Some(export) = export else {
            return Ok(None);
        };
        let at = export.call(&mut *store, ())?;
        let size = memory.data_size(&*store);
        let inside = usize::try_from(at)
            .ok()
            .filter(|&a| a != 0)
            .and_then(|a| a.checked_add(SCRATCH_LEN))
            .is_some_and(|end| end <= size);
        if !inside {
            return Err(wasmtime::Error::msg(format!(
                "its `othismo_scratch` returned {at}, not {SCRATCH_LEN} bytes inside its memory of {size} bytes"
            )));
        }
        Ok(Some(Scratch { at: at as usize }))
    }

    /// The whole region, for a delivery.
    pub fn room(self) -> Room {
        Room {
            next: self.at,
            end: self.at + SCRATCH_LEN,
        }
    }
}

impl Wasm {
    /// A buffer from `othismo_alloc`, filled: (ptr, len), or (0, 0) for nothing.
    pub(super) fn put(&mut self, data: &[u8]) -> wasmtime::Result<(i32, i32)> {
        if data.is_empty() {
            return Ok((0, 0));
        }
        let ptr = self.alloc.call(&mut self.store, data.len() as i32)?;
        let size = self.memory.data_size(&self.store);
        let fits = usize::try_from(ptr)
            .ok()
            .and_then(|p| p.checked_add(data.len()))
            .is_some_and(|end| end <= size);
        if !fits {
            // The module's allocator is wrong: say so, rather than report a
            // bare out-of-bounds write.
            return Err(wasmtime::Error::msg(format!(
                "its `othismo_alloc` returned {ptr} for {} bytes, outside its memory of {size} bytes",
                data.len()
            )));
        }
        self.memory.write(&mut self.store, ptr as usize, data)?;
        Ok((ptr, data.len() as i32))
    }

    /// `data` in what is left of the scratch region if it fits there, else
    /// in a buffer of its own ([`Wasm::put`]).
    pub(super) fn put_small(
        &mut self,
        data: &[u8],
        room: &mut Option<Room>,
    ) -> wasmtime::Result<(i32, i32)> {
        match room {
            Some(r) if !data.is_empty() && data.len() <= r.end - r.next => {
                let at = r.next;
                self.memory.write(&mut self.store, at, data)?;
                r.next += data.len();
                Ok((at as i32, data.len() as i32))
            }
            _ => self.put(data),
        }
    }

    /// A payload's type and data, each in the scratch region if it fits.
    pub(super) fn put_payload(
        &mut self,
        p: &Option<Payload>,
        room: &mut Option<Room>,
    ) -> wasmtime::Result<(i32, i32, i32, i32)> {
        match p {
            None => Ok((0, 0, 0, 0)),
            Some(p) => {
                let (tp, tl) = self.put_small(p.content_type.as_bytes(), room)?;
                let (dp, dl) = self.put_small(&p.data, room)?;
                Ok((tp, tl, dp, dl))
            }
        }
    }
}
