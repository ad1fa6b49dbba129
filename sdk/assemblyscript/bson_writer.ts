// The BSON writer (book: reference/wire.md): one document, nested
// documents and arrays begun and ended, written straight into one buffer.

import { Uuid } from "./box"
import { utf8Into } from "./utf8"
import { ARRAY, BINARY, BOOL, DATETIME, DOCUMENT, DOUBLE, INT32, INT64, STRING } from "./bson"

/** The last writer that finished, for the next one to reuse. */
let spare: BsonWriter | null = null

/** Writes one document; nested documents and arrays are begun and ended. */
export class BsonWriter {
  private buf: Uint8Array
  /** `buf.length`, kept beside it: checked before every element. */
  private cap: i32
  private len: i32 = 0
  /** For each open document or array, from the outermost: where it starts
   *  and, for an array, the index of its next element (two slots each). */
  private stack: StaticArray<i32>
  private depth: i32 = 0

  constructor() {
    this.buf = new Uint8Array(512)
    this.cap = 512
    this.stack = new StaticArray<i32>(32)
    this.open()
  }

  /** A writer of a new document: the last one that finished, emptied, or
   *  a new one (encoding a message then allocates only its result). */
  static take(): BsonWriter {
    const w = spare
    if (w == null) return new BsonWriter()
    spare = null
    w.len = 0
    w.depth = 0
    w.open()
    return w
  }

  // Each element is one `ensure` for all it needs, then stores straight
  // into the buffer: no bounds check per byte. `key`, `open` and `end`
  // (every element, document and array passes through them) are inlined:
  // about a tenth of an encode's time on the codec bench. Binaryen inlines
  // them anyway in a module with few messages; a large one grows a little.

  @inline private ensure(n: i32): void {
    if (this.len + n > this.cap) this.grow(this.len + n)
  }

  private grow(need: i32): void {
    let cap = this.cap << 1
    while (cap < need) cap <<= 1
    const grown = new Uint8Array(cap)
    memory.copy(grown.dataStart, this.buf.dataStart, <usize>this.len)
    this.buf = grown
    this.cap = cap
  }

  /** Where the next byte goes. */
  @inline private get tail(): usize {
    return this.buf.dataStart + <usize>this.len
  }

  /** A byte into room already ensured (by `head`, for a value). */
  @inline put(b: u8): void {
    store<u8>(this.tail, b)
    this.len++
  }

  @inline put32(v: i32): void {
    store<i32>(this.tail, v)
    this.len += 4
  }

  @inline put64(v: i64): void {
    store<i64>(this.tail, v)
    this.len += 8
  }

  /** The type and key of the next element, the key given as its UTF-8
   *  bytes (`keyLen` at `key`), with room ensured for `value` more bytes:
   *  what message shapes write their fields with (their keys are encoded
   *  once); the value follows with `put`, `put32`, `put64`, `stringValue`. */
  @inline head(type: u8, key: usize, keyLen: i32, value: i32): void {
    this.ensure(keyLen + 2 + value)
    this.put(type)
    const dst = this.tail
    for (let i = 0; i < keyLen; i++) store<u8>(dst + <usize>i, load<u8>(key + <usize>i))
    this.len += keyLen
    this.put(0)
  }

  /** The room a string value takes at most (for `head`). */
  @inline static stringRoom(v: string): i32 {
    return BsonWriter.room(v) + 5
  }

  /** A string value, after its `head`. */
  stringValue(v: string): void {
    const at = this.len
    this.len += 4
    const n = this.utf8Into(v)
    this.put(0)
    store<i32>(this.buf.dataStart + <usize>at, n + 1)
  }

  /** The most bytes `s` takes in UTF-8: 3 per UTF-16 unit bounds it; a long
   *  string is measured instead, so the buffer does not grow threefold. */
  private static room(s: string): i32 {
    return s.length <= 1024 ? s.length * 3 : <i32>String.UTF8.byteLength(s, false)
  }

  /** `s` as UTF-8 into room already ensured (`room(s)`). Returns its
   *  length. */
  private utf8Into(s: string): i32 {
    const written = utf8Into(changetype<usize>(s), s.length, this.tail)
    this.len += written
    return written
  }

  /** An array index of two digits or more as a key: its decimal digits,
   *  then NUL, into room already ensured (11 bytes). (`key` writes the
   *  one-digit ones itself.) */
  private indexKey(i: i32): void {
    let digits = 0
    for (let v = i; v > 0; v /= 10) digits++
    let at = this.tail + <usize>(digits - 1)
    for (let v = i; v > 0; v /= 10) {
      store<u8>(at--, <u8>(48 + (v % 10)))
    }
    this.len += digits
    this.put(0)
  }

  /** Opens a document or array; its 4-byte length is room already
   *  ensured (a new writer's buffer always has it; after a `head`, room
   *  for 4 bytes asked for). */
  @inline open(): void {
    const d = this.depth << 1
    if (d + 2 > this.stack.length) {
      const grown = new StaticArray<i32>(this.stack.length << 1)
      memory.copy(changetype<usize>(grown), changetype<usize>(this.stack), <usize>(d << 2))
      this.stack = grown
    }
    unchecked((this.stack[d] = this.len))
    unchecked((this.stack[d + 1] = 0))
    this.depth++
    this.len += 4
  }

  /** The type and key of the next element (the caller's, or the array
   *  index), with room ensured for `value` more bytes after them. */
  @inline private key(type: u8, key: string | null, value: i32): void {
    // (Compared as a pointer: `==` on strings would compare contents.)
    if (changetype<usize>(key) == 0) {
      this.ensure(12 + value)
      this.put(type)
      const i = (this.depth << 1) - 1
      const n = unchecked(this.stack[i])
      // Most arrays are short: their one-digit keys are written here,
      // longer ones by `indexKey`.
      if (n < 10) {
        this.put(<u8>(48 + n))
        this.put(0)
      } else {
        this.indexKey(n)
      }
      unchecked((this.stack[i] = n + 1))
    } else {
      const k = changetype<string>(key)
      this.ensure(BsonWriter.room(k) + 2 + value)
      this.put(type)
      this.utf8Into(k)
      this.put(0)
    }
  }

  /** Ends the innermost document or array. */
  @inline end(): void {
    if (this.depth == 0) return
    this.ensure(1)
    this.put(0)
    this.depth--
    const start = unchecked(this.stack[this.depth << 1])
    store<i32>(this.buf.dataStart + <usize>start, this.len - start)
  }

  // Each writer takes the key, or null for the next element of an array.

  string(key: string | null, v: string): void {
    this.key(STRING, key, BsonWriter.room(v) + 5)
    this.stringValue(v)
  }

  int32(key: string | null, v: i32): void {
    this.key(INT32, key, 4)
    this.put32(v)
  }

  int64(key: string | null, v: i64): void {
    this.key(INT64, key, 8)
    this.put64(v)
  }

  double(key: string | null, v: f64): void {
    this.key(DOUBLE, key, 8)
    this.put64(reinterpret<i64>(v))
  }

  bool(key: string | null, v: bool): void {
    this.key(BOOL, key, 1)
    this.put(v ? 1 : 0)
  }

  datetime(key: string | null, ms: i64): void {
    this.key(DATETIME, key, 8)
    this.put64(ms)
  }

  binary(key: string | null, data: ArrayBuffer, subtype: u8 = 0): void {
    const n = data.byteLength
    this.key(BINARY, key, 5 + n)
    this.put32(n)
    this.put(subtype)
    memory.copy(this.tail, changetype<usize>(data), <usize>n)
    this.len += n
  }

  uuid(key: string | null, v: Uuid): void {
    this.binary(key, v.bytes.buffer, 4)
  }

  startDocument(key: string | null): void {
    this.key(DOCUMENT, key, 4)
    this.open()
  }

  startArray(key: string | null): void {
    this.key(ARRAY, key, 4)
    this.open()
  }

  /** An embedded document given as its bytes (an Unknown message passed on). */
  rawDocument(key: string | null, doc: ArrayBuffer): void {
    const n = doc.byteLength
    this.key(DOCUMENT, key, n)
    memory.copy(this.tail, changetype<usize>(doc), <usize>n)
    this.len += n
  }

  /** Ends the outer document and gives its bytes. */
  finish(): ArrayBuffer {
    while (this.depth > 0) this.end()
    const out = new ArrayBuffer(this.len)
    memory.copy(changetype<usize>(out), this.buf.dataStart, <usize>this.len)
    spare = this
    return out
  }
}
