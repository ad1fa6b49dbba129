// The functions behind the module's exports (book: reference/wire.md). `exports.ts`
// re-exports them from the package, so they share the SDK's state.

import { inScratch, scratch, takeBuffer, takeString, SCRATCH_LEN } from "./abi"
import { utf8String } from "./utf8"
import { ownType, Payload, Status } from "./payload"
import { finish, pending, Request, serving } from "./request"
import { theServer } from "./server"
import { delivered } from "./collector"

/** The content types delivered lately, and their bytes: a module is sent
 * the same few types over and over (a web server, say, a request message,
 * a stat record and a file's type in turn), and a repeat is that string
 * again rather than a new one decoded. */
const TYPES_KEPT = 4
const recentTypes = new Array<string>()
const recentTypeBytes = new Array<ArrayBuffer>()
/** Where the next type not kept goes (the oldest, once all are used). */
let nextType = 0

/** The kept type whose bytes are the `len` at `ptr`, or -1. */
function keptType(ptr: usize, len: i32): i32 {
  for (let i = 0; i < recentTypeBytes.length; i++) {
    const b = unchecked(recentTypeBytes[i])
    if (b.byteLength == len && memory.compare(ptr, changetype<usize>(b), <usize>len) == 0) return i
  }
  return -1
}

function typeOf(ptr: usize, len: i32): string {
  // Compared where the runtime put it (the scratch region, or a buffer of
  // its own, which is taken either way); a repeat in the region costs nothing.
  const kept = len > 0 ? keptType(ptr, len) : -1
  if (kept >= 0 && inScratch(ptr)) return unchecked(recentTypes[kept])
  const bytes = takeBuffer(ptr, len)
  if (kept >= 0) return unchecked(recentTypes[kept])
  const decoded = utf8String(changetype<usize>(bytes), len)
  const own = ownType(decoded)
  const type = own != null ? own : decoded
  if (recentTypes.length < TYPES_KEPT) {
    recentTypes.push(type)
    recentTypeBytes.push(bytes)
  } else {
    unchecked(recentTypes[nextType] = type)
    unchecked(recentTypeBytes[nextType] = bytes)
    nextType = (nextType + 1) % TYPES_KEPT
  }
  return type
}

/** The last path a request was delivered with, and its bytes: an object
 * is asked of the same path several times in a row (a stat, then the read
 * it announces), and a repeat is that string again, not a new one decoded. */
let lastPath = ""
let lastPathBytes = new ArrayBuffer(0)

function pathOf(ptr: usize, len: i32): string {
  const kept = lastPathBytes
  if (len > 0 && kept.byteLength == len && memory.compare(ptr, changetype<usize>(kept), <usize>len) == 0) {
    // Taken either way (a buffer of its own is the module's to keep).
    if (!inScratch(ptr)) takeBuffer(ptr, len)
    return lastPath
  }
  if (len == 0 || len > SCRATCH_LEN) return takeString(ptr, len)
  // The bytes kept first, while a buffer of the runtime's is still pinned.
  const bytes = new ArrayBuffer(len)
  memory.copy(changetype<usize>(bytes), ptr, <usize>len)
  const path = takeString(ptr, len)
  lastPath = path
  lastPathBytes = bytes
  return path
}

function payloadOf(typePtr: usize, typeLen: i32, dataPtr: usize, dataLen: i32): Payload | null {
  if (typeLen == 0 && dataLen == 0) return null
  return new Payload(typeOf(typePtr, typeLen), takeBuffer(dataPtr, dataLen))
}

/** The scratch region (`SCRATCH_LEN` bytes of static memory): where the
 *  runtime may put a delivery's path and content type. */
export function othismo_scratch(): usize {
  return scratch
}

/** A buffer the runtime fills; pinned until the delivery takes it. */
export function othismo_alloc(len: i32): usize {
  const ptr = __new(<usize>len, idof<ArrayBuffer>())
  __pin(ptr)
  return ptr
}

function start(): void {
  const s = theServer()
  if (s != null) s.start()
}

function serve(
  id: i32, verb: i32, flags: i32, pathPtr: usize, pathLen: i32,
  typePtr: usize, typeLen: i32, dataPtr: usize, dataLen: i32,
): void {
  const path = pathOf(pathPtr, pathLen)
  const req = new Request(id, verb, flags, path, payloadOf(typePtr, typeLen, dataPtr, dataLen))
  const s = theServer()
  if (s == null) {
    req.fail(Status.NotFound, "this module serves nothing")
    return
  }
  serving.set(id, req)
  s.serve(req)
}

function answer(ticket: i32, done: i32, typePtr: usize, typeLen: i32, dataPtr: usize, dataLen: i32): void {
  const payload = payloadOf(typePtr, typeLen, dataPtr, dataLen)
  const at = pending.find(ticket)
  if (at < 0) return
  const answers = pending.at(at)
  if (done != 0) pending.removeAt(at)
  if (answers != null) answers.deliver(payload, done != 0)
}

function error(ticket: i32, errno: i32, codePtr: usize, codeLen: i32, descPtr: usize, descLen: i32): void {
  const code = takeString(codePtr, codeLen)
  const desc = takeString(descPtr, descLen)
  const at = pending.find(ticket)
  if (at < 0) return
  const answers = pending.at(at)
  pending.removeAt(at)
  if (answers != null) answers.error(new Status(errno, code), desc)
}

function cancel(id: i32): void {
  const at = serving.find(id)
  if (at < 0) return
  const req = serving.at(at)
  finish(req)
  const s = theServer()
  if (s != null) s.cancelled(req)
}

// The deliveries: each ends by letting the collector run (it may, now
// that none of the module's code is running).

export function othismo_start(): void {
  start()
  delivered()
}

export function othismo_serve(
  id: i32, verb: i32, flags: i32, pathPtr: usize, pathLen: i32,
  typePtr: usize, typeLen: i32, dataPtr: usize, dataLen: i32,
): void {
  serve(id, verb, flags, pathPtr, pathLen, typePtr, typeLen, dataPtr, dataLen)
  delivered()
}

export function othismo_answer(ticket: i32, done: i32, typePtr: usize, typeLen: i32, dataPtr: usize, dataLen: i32): void {
  answer(ticket, done, typePtr, typeLen, dataPtr, dataLen)
  delivered()
}

export function othismo_error(ticket: i32, errno: i32, codePtr: usize, codeLen: i32, descPtr: usize, descLen: i32): void {
  error(ticket, errno, codePtr, codeLen, descPtr, descLen)
  delivered()
}

export function othismo_cancel(id: i32): void {
  cancel(id)
  delivered()
}
