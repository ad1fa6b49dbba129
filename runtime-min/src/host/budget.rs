//! What one instance may take: its memories and tables together
//! (`--max-memory`, a table-element cap) and what the host holds for it
//! from one call (`--max-held`), checked as it asks.

use wasmtime::ResourceLimiter;

use super::{Call, Carried, Host};

/// Table elements one instance may hold across all its tables.
const MAX_TABLE_ELEMENTS: usize = 1 << 20;

impl Host {
    /// Bytes of all its memories (which never shrink: a high-water mark).
    pub fn memory_used(&self) -> usize {
        self.memory_used
    }

    /// Records what the instance asked for, counting what the host holds
    /// for it: a module that asks for more in one call than `--max-held`
    /// (a flood of requests, payload copies or cancels) is stopped there,
    /// before the host's own memory pays for it.
    pub(super) fn hold(&mut self, call: Call) -> wasmtime::Result<()> {
        let bytes = match &call {
            Call::Request { payload, .. } | Call::Answer { payload, .. } => match payload {
                Carried::Some(p) => p.held_bytes(),
                _ => 0,
            },
            Call::Fail { failure, .. } => failure.code.len() + failure.desc.len(),
            Call::Forward { .. } | Call::Cancel { .. } => 0,
        };
        self.held_in_call = self
            .held_in_call
            .saturating_add(std::mem::size_of::<Call>() + bytes);
        if self.held_in_call > self.held_limit {
            return Err(wasmtime::Error::msg(format!(
                "it asked the host to hold more than {} MiB for it in one call (`--max-held`)",
                self.held_limit >> 20
            )));
        }
        self.calls.push(call);
        Ok(())
    }
}

impl ResourceLimiter for Host {
    /// The limit is the instance's, across all its memories: each memory
    /// growing (its first allocation included) adds what it grows by.
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if !grow(&mut self.memory_used, current, desired, self.memory_limit) {
            // Trapping, not refusing: a module told "no" would abort anyway,
            // and this way the report names the limit.
            return Err(wasmtime::Error::msg(format!(
                "it hit the memory limit of {} MiB (`--max-memory`) across its memories",
                self.memory_limit >> 20
            )));
        }
        Ok(true)
    }

    /// Likewise across all its tables.
    fn table_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if !grow(
            &mut self.table_elements,
            current,
            desired,
            MAX_TABLE_ELEMENTS,
        ) {
            return Err(wasmtime::Error::msg(format!(
                "its tables hit the limit of {MAX_TABLE_ELEMENTS} elements"
            )));
        }
        Ok(true)
    }
}

/// One memory or table of an instance going from `current` to `desired`:
/// the instance's total (`used`) moves by the difference, unless that
/// would pass `limit` (then nothing changes and the growth is refused).
fn grow(used: &mut usize, current: usize, desired: usize, limit: usize) -> bool {
    let total = used.saturating_sub(current).saturating_add(desired);
    if total > limit {
        return false;
    }
    *used = total;
    true
}
