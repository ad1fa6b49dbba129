// Rearranging this object's own view (book: reference/wire.md: bind, unmount, expose).
// Each returns 0, or the errno of why not.

import { hostBind, hostExpose, hostUnmount, utf8 } from "./abi"

/** Makes `existing` (a path in this view) visible at `at` too. */
export function bind(at: string, existing: string, flags: i32 = 0): i32 {
  const a = utf8(at)
  const e = utf8(existing)
  return hostBind(changetype<usize>(a), a.byteLength, changetype<usize>(e), e.byteLength, flags)
}

export function unmount(path: string): i32 {
  const p = utf8(path)
  return hostUnmount(changetype<usize>(p), p.byteLength)
}

/** Serves `view` (a path in this view) at `at` in this object's served tree. */
export function expose(at: string, view: string, flags: i32 = 0): i32 {
  const a = utf8(at)
  const v = utf8(view)
  return hostExpose(changetype<usize>(a), a.byteLength, changetype<usize>(v), v.byteLength, flags)
}
