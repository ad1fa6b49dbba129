// A small BSON codec (book: reference/wire.md): a writer, a reader that checks every
// length before it reads (malformed input makes it fail, never trap), the
// Message base class generated messages extend, and Unknown for types this
// module has no class for.

import { BSON_TYPE, Payload } from "./payload"
import { Uuid } from "./box"
import { BsonWriter } from "./bson_writer"
import { NO_BYTES } from "./abi"
import { utf8String } from "./utf8"
/** The one empty buffer, which bindings start a binary field with. */
export { NO_BYTES }

export const BSON: string = BSON_TYPE

// Element types.
export const DOUBLE: u8 = 0x01
export const STRING: u8 = 0x02
export const DOCUMENT: u8 = 0x03
export const ARRAY: u8 = 0x04
export const BINARY: u8 = 0x05
export const BOOL: u8 = 0x08
export const DATETIME: u8 = 0x09
export const NULL: u8 = 0x0a
export const INT32: u8 = 0x10
export const INT64: u8 = 0x12

export { BsonWriter } from "./bson_writer"
export { mapSlots, mapEntry, entryKey, entryValue } from "./map_entries"
export { shape, enumeration, readEnum, readMessage, Helpers, HelperRead, HelperWrite } from "./shape"
import {
  known, readFields, shapeNamed, shapeOf, shapeOfClass, writeFields as writeShapeFields,
} from "./shape"

/** Whether the `len` UTF-8 bytes at `at` are `s`. An ASCII `s` is
 *  equal when its units are the bytes; one with other characters is
 *  compared as strings (the bytes decoded). */
function utf8Is(at: usize, len: i32, s: string): bool {
  const n = s.length
  const src = changetype<usize>(s)
  if (n == len) {
    for (let i = 0; i < n; i++) {
      const c = load<u16>(src + (<usize>i << 1))
      if (c >= 0x80) return String.UTF8.decodeUnsafe(at, <usize>len, false) == s
      if (<u16>load<u8>(at + <usize>i) != c) return false
    }
    return true
  }
  // More units than bytes: never equal (UTF-8 takes at least a byte a unit).
  if (n > len) return false
  for (let i = 0; i < n; i++) {
    if (load<u16>(src + (<usize>i << 1)) >= 0x80) return String.UTF8.decodeUnsafe(at, <usize>len, false) == s
  }
  return false
}

/** Readers no longer used, for the next to reuse: decoding a message
 *  reads it and each document embedded in it (each item of a list of
 *  messages, say) through a reader, and a new one each time was an object
 *  per item. Lent and given back within one decoding (`lendOf`,
 *  `lendDocument`, `giveBack`), so they nest as the documents do. */
const spareReaders = new Array<BsonReader>()
const NO_DATA = new Uint8Array(0)

/** A lent reader, done with: it lets go of the bytes it read. */
export function giveBack(r: BsonReader): void {
  r.data = NO_DATA
  spareReaders.push(r)
}

/**
 * Reads the elements of one document in order. Every length is checked
 * before it is used; anything malformed or of the wrong type sets `ok` to
 * false (and gives a default value) rather than trapping.
 */
export class BsonReader {
  ok: bool = true
  /** The current element: its type, its key, where its value is. */
  type: u8 = 0
  private keyAt: i32 = 0
  private keyLen: i32 = 0
  private at: i32 = 0
  private valueAt: i32 = 0
  private valueEnd: i32 = 0

  /** `data[start..end)` is one whole document. */
  constructor(public data: Uint8Array, private start: i32, private end: i32) {
    this.check()
  }

  /** From the start of `data[start..end)`, as a new reader of it would. */
  private reset(data: Uint8Array, start: i32, end: i32): void {
    this.data = data
    this.start = start
    this.end = end
    this.ok = true
    this.type = 0
    this.keyAt = 0
    this.keyLen = 0
    this.valueAt = 0
    this.valueEnd = 0
    this.check()
  }

  private check(): void {
    const data = this.data
    const start = this.start
    const end = this.end
    this.at = start + 4
    if (end - start < 5 || end > data.length || start < 0) {
      this.ok = false
    } else {
      const declared = load<i32>(data.dataStart + <usize>start)
      if (declared != end - start || load<u8>(data.dataStart + <usize>(end - 1)) != 0) this.ok = false
    }
  }

  /** A reader of a whole buffer, which must be exactly one document. */
  static of(buf: ArrayBuffer): BsonReader {
    const data = Uint8Array.wrap(buf)
    const end = BsonReader.wholeEnd(data)
    return new BsonReader(data, 0, end)
  }

  /** Where the one document `data` must be ends: 0 (none) unless its
   *  declared length is all of it. */
  private static wholeEnd(data: Uint8Array): i32 {
    if (data.length < 5) return 0
    const declared = load<i32>(data.dataStart)
    return declared == data.length ? declared : 0
  }

  /** As `of`, with a reader lent from the spares (`giveBack` it). */
  static lendOf(buf: ArrayBuffer): BsonReader {
    const data = Uint8Array.wrap(buf)
    return BsonReader.lend(data, 0, BsonReader.wholeEnd(data))
  }

  /** As `document`, with a reader lent from the spares (`giveBack` it). */
  lendDocument(): BsonReader {
    if (this.type != DOCUMENT && this.type != ARRAY) {
      this.ok = false
      return BsonReader.lend(this.data, 0, 0)
    }
    return BsonReader.lend(this.data, this.valueAt, this.valueEnd)
  }

  private static lend(data: Uint8Array, start: i32, end: i32): BsonReader {
    if (spareReaders.length == 0) return new BsonReader(data, start, end)
    const r = spareReaders.pop()
    r.reset(data, start, end)
    return r
  }

  fail(): void {
    this.ok = false
  }

  /** The current element's key, as a string (made when asked for). */
  get key(): string {
    return utf8String(this.data.dataStart + <usize>this.keyAt, this.keyLen)
  }

  /** Whether the current element's key is `s`, without making a string
   *  of the key: what generated readers ask for each field. */
  keyIs(s: string): bool {
    return utf8Is(this.data.dataStart + <usize>this.keyAt, this.keyLen, s)
  }

  /** Whether the current element is a string and its value is `s`,
   *  without making a string of the value. */
  stringIs(s: string): bool {
    if (this.type != STRING) return false
    const len = this.i32At(this.valueAt) - 1
    return utf8Is(this.data.dataStart + <usize>(this.valueAt + 4), len, s)
  }

  /** Whether the current element's key is the `len` UTF-8 bytes at `bytes`. */
  keyEquals(bytes: usize, len: i32): bool {
    return len == this.keyLen && memory.compare(this.data.dataStart + <usize>this.keyAt, bytes, <usize>len) == 0
  }

  // Inlined: a call here has the shadow stack save `this` around it, in
  // every element read.
  @inline private i32At(p: i32): i32 {
    return load<i32>(this.data.dataStart + <usize>p)
  }

  /** Moves to the next element; false at the end or when malformed. */
  next(): bool {
    if (!this.ok) return false
    const last = this.end - 1
    if (this.at >= last) {
      if (this.at != last) this.ok = false
      return false
    }
    // `at < last < end <= data.length` (the constructor checked `end`):
    // the bytes up to `last` are read without a bounds check each (and,
    // by the sizes checked below, those of the element found).
    const base = this.data.dataStart
    const type = load<u8>(base + <usize>this.at)
    // The key: a NUL-terminated string before the value.
    let p = this.at + 1
    while (p < last && load<u8>(base + <usize>p) != 0) p++
    if (p >= last) {
      this.ok = false
      return false
    }
    this.keyAt = this.at + 1
    this.keyLen = p - this.keyAt
    const v = p + 1
    let size: i32 = -1
    const room = last - v
    switch (type) {
      case DOUBLE: case DATETIME: case INT64: case 0x11: size = 8; break
      case INT32: size = 4; break
      case BOOL: size = 1; break
      case NULL: case 0x06: case 0x7f: case 0xff: size = 0; break
      case 0x07: size = 12; break
      case 0x13: size = 16; break
      case STRING: case 0x0d: case 0x0e: {
        if (room >= 4) {
          const n = this.i32At(v)
          if (n >= 1 && n <= room - 4 && load<u8>(base + <usize>(v + 3 + n)) == 0) size = 4 + n
        }
        break
      }
      case DOCUMENT: case ARRAY: case 0x0f: {
        if (room >= 5) {
          const n = this.i32At(v)
          if (n >= 5 && n <= room && load<u8>(base + <usize>(v + n - 1)) == 0) size = n
        }
        break
      }
      case BINARY: {
        if (room >= 5) {
          const n = this.i32At(v)
          if (n >= 0 && n <= room - 5) size = 5 + n
        }
        break
      }
      case 0x0b: {
        // Regular expression: two C strings.
        let q = v
        let strings = 0
        while (q < last && strings < 2) {
          if (load<u8>(base + <usize>q) == 0) strings++
          q++
        }
        if (strings == 2) size = q - v
        break
      }
      case 0x0c: {
        if (room >= 4) {
          const n = this.i32At(v)
          if (n >= 1 && n + 4 + 12 <= room) size = 4 + n + 12
        }
        break
      }
      default: break
    }
    if (size < 0 || size > room) {
      this.ok = false
      return false
    }
    if (type == BOOL && load<u8>(base + <usize>v) > 1) {
      this.ok = false
      return false
    }
    this.type = type
    this.valueAt = v
    this.valueEnd = v + size
    this.at = v + size
    return true
  }

  isNull(): bool {
    return this.type == NULL
  }

  string(): string {
    if (this.type != STRING) {
      this.ok = false
      return ""
    }
    const n = this.i32At(this.valueAt) - 1
    return utf8String(this.data.dataStart + <usize>(this.valueAt + 4), n)
  }

  bool(): bool {
    if (this.type != BOOL) {
      this.ok = false
      return false
    }
    // (`next` found the byte inside the document.)
    return load<u8>(this.data.dataStart + <usize>this.valueAt) == 1
  }

  /** An integer (int32 or int64) in [lo, hi]. */
  int(lo: i64, hi: i64): i64 {
    let v: i64 = 0
    if (this.type == INT32) v = <i64>this.i32At(this.valueAt)
    else if (this.type == INT64) v = load<i64>(this.data.dataStart + <usize>this.valueAt)
    else {
      this.ok = false
      return 0
    }
    if (v < lo || v > hi) {
      this.ok = false
      return 0
    }
    return v
  }

  int64(): i64 {
    return this.int(i64.MIN_VALUE, i64.MAX_VALUE)
  }

  // Each integer type of the schemas, its range checked (what generated
  // readers call).

  int8(): i8 {
    return <i8>this.int(-128, 127)
  }

  int16(): i16 {
    return <i16>this.int(-32768, 32767)
  }

  int32(): i32 {
    return <i32>this.int(-2147483648, 2147483647)
  }

  uint8(): u8 {
    return <u8>this.int(0, 255)
  }

  uint16(): u16 {
    return <u16>this.int(0, 65535)
  }

  uint32(): u32 {
    return <u32>this.int(0, 4294967295)
  }

  double(): f64 {
    if (this.type != DOUBLE) {
      this.ok = false
      return 0
    }
    return reinterpret<f64>(load<i64>(this.data.dataStart + <usize>this.valueAt))
  }

  datetime(): i64 {
    if (this.type != DATETIME) {
      this.ok = false
      return 0
    }
    return load<i64>(this.data.dataStart + <usize>this.valueAt)
  }

  /** Binary data of `subtype`. */
  binary(subtype: u8 = 0): ArrayBuffer {
    if (this.type != BINARY || load<u8>(this.data.dataStart + <usize>(this.valueAt + 4)) != subtype) {
      this.ok = false
      return new ArrayBuffer(0)
    }
    const n = this.i32At(this.valueAt)
    // An empty one is the one empty buffer (no bytes to change in it).
    if (n == 0) return NO_BYTES
    const out = new ArrayBuffer(n)
    memory.copy(changetype<usize>(out), this.data.dataStart + <usize>(this.valueAt + 5), <usize>n)
    return out
  }

  uuid(): Uuid {
    const b = this.binary(4)
    if (b.byteLength != 16) {
      this.ok = false
      return new Uuid()
    }
    return new Uuid(Uint8Array.wrap(b))
  }

  /** A reader of the embedded document (or array) that is the current value. */
  document(): BsonReader {
    if (this.type != DOCUMENT && this.type != ARRAY) {
      this.ok = false
      return new BsonReader(this.data, 0, 0)
    }
    return new BsonReader(this.data, this.valueAt, this.valueEnd)
  }

  /** The bytes of the embedded document that is the current value. */
  rawDocument(): ArrayBuffer {
    const n = this.valueEnd - this.valueAt
    const out = new ArrayBuffer(n)
    memory.copy(changetype<usize>(out), this.data.dataStart + <usize>this.valueAt, <usize>n)
    return out
  }

  /** A message of any type (an `any` field): the embedded document names it. */
  anyMessage(): Message {
    if (this.type != DOCUMENT) {
      this.ok = false
      return new Unknown("", new ArrayBuffer(0))
    }
    const m = decodeDocument(this.rawDocument())
    if (m == null) {
      this.ok = false
      return new Unknown("", new ArrayBuffer(0))
    }
    return m
  }
}

/** A message: generated classes extend this, and describe their fields
 *  with `shape` (see shape.ts), by which they are read and written. */
export class Message {
  /** The `$type` this message is written with. */
  typeName(): string {
    const s = shapeOf(this)
    return s == null ? "" : s.name
  }

  /** Writes the fields, in declaration order, into the open document. */
  writeFields(w: BsonWriter): void {
    const s = shapeOf(this)
    if (s != null) writeShapeFields(s, this, w)
  }

  /** This message as a whole document, `$type` first. */
  toBytes(): ArrayBuffer {
    const w = BsonWriter.take()
    w.string("$type", this.typeName())
    this.writeFields(w)
    return w.finish()
  }

  toPayload(): Payload {
    return new Payload(BSON, this.toBytes())
  }

  /** As the value of an `any` field: an embedded document with `$type` first. */
  writeAsAny(w: BsonWriter, key: string | null): void {
    w.startDocument(key)
    w.string("$type", this.typeName())
    this.writeFields(w)
    w.end()
  }

  /** As the value of a field of its own type: an embedded document without `$type`. */
  writeEmbedded(w: BsonWriter, key: string | null): void {
    w.startDocument(key)
    this.writeFields(w)
    w.end()
  }
}

/**
 * The message of class `T` that a payload holds; null when the payload is
 * not BSON, not of `T`'s type, or malformed. What each generated
 * `fromPayload` does.
 */
export function fromPayload<T>(p: Payload): T | null {
  if (p.mediaType() != BSON) return null
  const s = shapeOfClass<T>()
  const r = BsonReader.lendOf(p.data)
  let m: Message | null = null
  // `$type` first, compared where it lies.
  if (r.next() && r.keyIs("$type") && r.stringIs(s.name)) {
    const read = readFields(s, r)
    if (r.ok) m = read
  }
  giveBack(r)
  return changetype<T>(m)
}

/** A message of a type this module has no class for: its bytes, unchanged. */
export class Unknown extends Message {
  constructor(public type: string, public bytes: ArrayBuffer) {
    super()
  }

  typeName(): string {
    return this.type
  }

  toBytes(): ArrayBuffer {
    return this.bytes
  }

  writeAsAny(w: BsonWriter, key: string | null): void {
    w.rawDocument(key, this.bytes)
  }
}

/** The `$type` of a document: its first element, which must be a string. */
function typeOf(r: BsonReader): string | null {
  if (!r.next() || !r.keyIs("$type") || r.type != STRING) return null
  const t = r.string()
  return r.ok ? t : null
}

/** Decodes a whole document: a registered class, or Unknown; null when malformed. */
export function decodeDocument(bytes: ArrayBuffer): Message | null {
  const r = BsonReader.of(bytes)
  const t = typeOf(r)
  if (t == null) return null
  if (!known(t)) {
    // Check it is well formed all the way through before keeping it.
    while (r.next()) {}
    return r.ok ? new Unknown(t, bytes) : null
  }
  // What was read is the message only if the whole document was well
  // formed and had what the type requires.
  const m = readFields(shapeNamed(t), r)
  return r.ok ? m : null
}

/** A payload as a message: null when it is not a well-formed BSON document. */
export function decode(p: Payload): Message | null {
  if (p.mediaType() != BSON) return null
  return decodeDocument(p.data)
}
