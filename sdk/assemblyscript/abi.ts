// The host ABI (book: reference/wire.md), declared once. Strings and byte runs are
// (pointer, length) in this module's memory; a payload is four arguments
// (type pointer, type length, data pointer, data length), 0,0,0,0 for none.

import { utf8Into, utf8String } from "./utf8"

@external("othismo", "request")
export declare function hostRequest(verb: i32, pathPtr: usize, pathLen: i32, typePtr: usize, typeLen: i32, dataPtr: usize, dataLen: i32): i32

@external("othismo", "cancel")
export declare function hostCancel(ticket: i32): void

@external("othismo", "answer")
export declare function hostAnswer(requestId: i32, done: i32, typePtr: usize, typeLen: i32, dataPtr: usize, dataLen: i32): void

@external("othismo", "fail")
export declare function hostFail(requestId: i32, errno: i32, codePtr: usize, codeLen: i32, descPtr: usize, descLen: i32): void

@external("othismo", "forward")
export declare function hostForward(requestId: i32, pathPtr: usize, pathLen: i32): void

@external("othismo", "bind")
export declare function hostBind(newPtr: usize, newLen: i32, oldPtr: usize, oldLen: i32, flags: i32): i32

@external("othismo", "unmount")
export declare function hostUnmount(pathPtr: usize, pathLen: i32): i32

@external("othismo", "expose")
export declare function hostExpose(atPtr: usize, atLen: i32, viewPtr: usize, viewLen: i32, flags: i32): i32

/** Verbs (book: reference/wire.md). */
export namespace Verb {
  export const Read: i32 = 1
  export const Watch: i32 = 2
  export const List: i32 = 3
  export const Stat: i32 = 4
  export const Write: i32 = 5
  export const Create: i32 = 6
  export const Remove: i32 = 7
}

/** Request flags (book: reference/wire.md). */
export const FLAG_OPERATOR: i32 = 1

/** View flags for bind and expose. */
export const FLAG_READONLY: i32 = 1

/** UTF-8 bytes of a string, for passing to the host. */
export function utf8(s: string): ArrayBuffer {
  return String.UTF8.encode(s, false)
}

/** The last content type sent, and its bytes: a module sends the same few
 * types over and over, and a repeat is those bytes again, not new ones. */
let lastSentType = ""
let lastSentTypeBytes = new ArrayBuffer(0)

/** UTF-8 bytes of a content type, for passing to the host. */
export function typeBytes(contentType: string): ArrayBuffer {
  if (contentType != lastSentType) {
    lastSentTypeBytes = String.UTF8.encode(contentType, false)
    lastSentType = contentType
  }
  return lastSentTypeBytes
}

/** The length of the scratch region, fixed by the ABI. */
export const SCRATCH_LEN: i32 = 256

/** Where the host may put a delivery's path and content type instead of
 *  allocating them (`othismo_scratch`): read before anything else. */
export const scratch: usize = memory.data(SCRATCH_LEN)

/** Whether bytes the host passed are in the scratch region (copied or
 *  decoded at once, never kept), not a buffer of their own. */
export function inScratch(ptr: usize): bool {
  return ptr >= scratch && ptr < scratch + <usize>SCRATCH_LEN
}

/** A path being sent: its UTF-8 bytes, in the scratch region when they fit
 *  (the host reads them during the call that sends them, and nothing else
 *  is in the region by then: a delivery's bytes there are read before any
 *  of the module's code runs), else in a buffer of their own. */
export class Sent {
  ptr: usize = 0
  len: i32 = 0
  /** The buffer, when the bytes did not fit: kept alive until sent. */
  buffer: ArrayBuffer | null = null
}

/** One `Sent`, reused: a module sends one path at a time. */
const sent = new Sent()

/** The UTF-8 bytes of `s`, for the host to read in the call made next. */
export function sendable(s: string): Sent {
  const units = s.length
  // At most 3 bytes a UTF-16 unit: only long strings need measuring.
  if (units * 3 <= SCRATCH_LEN || String.UTF8.byteLength(s, false) <= SCRATCH_LEN) {
    sent.ptr = scratch
    sent.len = utf8Into(changetype<usize>(s), units, scratch)
    sent.buffer = null
  } else {
    const b = utf8(s)
    sent.ptr = changetype<usize>(b)
    sent.len = b.byteLength
    sent.buffer = b
  }
  return sent
}

/** The one empty buffer: an empty payload or field is this, not a buffer
 *  of its own (no bytes can be changed in it). */
export const NO_BYTES = new ArrayBuffer(0)

/** A buffer the host filled through `othismo_alloc`: now ours, unpinned;
 *  or a copy of bytes it put in the scratch region. */
export function takeBuffer(ptr: usize, len: i32): ArrayBuffer {
  if (ptr == 0 || len == 0) return NO_BYTES
  if (inScratch(ptr)) {
    const copy = new ArrayBuffer(len)
    memory.copy(changetype<usize>(copy), ptr, <usize>len)
    return copy
  }
  const buf = changetype<ArrayBuffer>(ptr)
  __unpin(ptr)
  return buf
}

/** A string the host passed (in the scratch region, or as a filled buffer). */
export function takeString(ptr: usize, len: i32): string {
  if (ptr == 0 || len == 0) return ""
  // Read before a buffer of the runtime's is taken (and unpinned).
  const s = utf8String(ptr, len)
  if (!inScratch(ptr)) takeBuffer(ptr, len)
  return s
}
