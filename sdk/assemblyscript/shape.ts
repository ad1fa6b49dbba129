// Message shapes (book: reference/sdk.md, "How a message class is read and
// written"): a generated class is its fields and one line that describes them;
// reading and writing every class is done here, from that description.
//
// A shape's descriptor lists each field as `key type`, separated by spaces,
// in the class's declaration order. Types: `b` bool, `s` string, `y` bytes,
// `1` i8, `2` i16, `i` i32, `l` i64, `3` u8, `4` u16, `u` u32, `f` f32, `d`
// f64, `t` time, `g` uuid, `a` any, `%Name` the enum of that wire name,
// `@Name` the message of that wire name, `#n` the file's n-th list or map
// helper; `?` before a type makes the field optional.
//
// Fields are reached by their offset in the object. AssemblyScript lays out a
// class's fields in declaration order, each aligned to its own size, after its
// base class's (bson.Message has none); the offsets are computed that way and
// the total checked against the compiler's own size of the class when the
// shape is made, so bindings and SDK that disagreed would stop at start-up,
// never read or write the wrong bytes.

import { Runtime } from "~lib/shared/runtime"
import { Box, Uuid } from "./box"
import {
  BsonReader, BsonWriter, giveBack, Message, BOOL, DATETIME, DOCUMENT, DOUBLE, INT32, INT64, STRING,
} from "./bson"

/** Reads the current element of a reader as a list or map (a generated
 *  helper); the result is the new object's address. */
export type HelperRead = (r: BsonReader) => usize
/** Writes a list or map (at the address given) under a key. */
export type HelperWrite = (w: BsonWriter, key: string | null, v: usize) => void

/** The list and map helpers of one bindings file, by number. */
export class Helpers {
  constructor(public read: StaticArray<HelperRead>, public write: StaticArray<HelperWrite>) {}
}

const K_BOOL: u8 = 1
const K_STRING: u8 = 2
const K_BYTES: u8 = 3
const K_I8: u8 = 4
const K_I16: u8 = 5
const K_I32: u8 = 6
const K_I64: u8 = 7
const K_U8: u8 = 8
const K_U16: u8 = 9
const K_U32: u8 = 10
const K_F32: u8 = 11
const K_F64: u8 = 12
const K_TIME: u8 = 13
const K_UUID: u8 = 14
const K_ANY: u8 = 15
const K_ENUM: u8 = 16
const K_MESSAGE: u8 = 17
const K_HELPER: u8 = 18

/** The bytes a field of a kind takes in its object (a reference: a pointer). */
function sizeOf(kind: u8): usize {
  switch (kind) {
    case K_BOOL: case K_I8: case K_U8: return 1
    case K_I16: case K_U16: return 2
    case K_I32: case K_U32: case K_F32: case K_ENUM: return 4
    case K_I64: case K_F64: case K_TIME: return 8
    default: return sizeof<usize>()
  }
}

/** A generated enum's name ↔ value functions (`nameOfX`, `parseX`): its
 *  fields are read and written through them, so the names are written once. */
export class Enumeration {
  constructor(public nameOf: (v: i32) => string, public parse: (s: string) => i32) {}
}

/** The value of an enum (given its `parseX`) that the current element
 *  names; fails the reader when it names none. */
export function readEnum(r: BsonReader, parse: (s: string) => i32): i32 {
  const v = parse(r.string())
  if (v >= 0) return v
  r.fail()
  return 0
}

class Field {
  kind: u8 = 0
  optional: bool = false
  /** An optional field of a type that cannot be null: a `Box` or null. */
  boxed: bool = false
  offset: usize = 0
  /** The key's UTF-8 bytes (`keyLen` at `keyAt`, kept alive by
   *  `keyBytes`): compared with each element's key in place, and copied
   *  as they are into what is written. */
  keyBytes: ArrayBuffer
  keyAt: usize
  keyLen: i32
  /** `@Name` / `%Name`: found by name when first used (the type may be
   *  declared later in the file, or in another file). */
  target: string = ""
  message: Shape | null = null
  enumeration: Enumeration | null = null
  /** `#n`: the file's helpers that read and write it. */
  helperRead: HelperRead | null = null
  helperWrite: HelperWrite | null = null

  constructor(public key: string) {
    this.keyBytes = String.UTF8.encode(key, false)
    this.keyAt = changetype<usize>(this.keyBytes)
    this.keyLen = this.keyBytes.byteLength
  }

  shape(): Shape {
    let s = this.message
    if (s == null) {
      s = shapeNamed(this.target)
      this.message = s
    }
    return s
  }

  enumType(): Enumeration {
    let e = this.enumeration
    if (e == null) {
      if (!enums.has(this.target)) abort("othismo: no enum " + this.target + " is registered")
      e = enums.get(this.target)
      this.enumeration = e
    }
    return e
  }
}

/** How one message class is read and written. */
export class Shape {
  fields: StaticArray<Field>
  /** Bit `i % 64` of word `i / 64` set for each required field `i`. */
  required: StaticArray<u64>

  constructor(
    public name: string,
    public make: () => Message,
    descriptor: string,
    helpers: Helpers | null,
    /** The compiler's size of the class (`offsetof<T>()`). */
    size: usize,
  ) {
    // Scanned by hand (no `split`, no number parsing: every module that
    // has a message carries this code).
    const len = descriptor.length
    let spaces = 0
    for (let j = 0; j < len; j++) if (descriptor.charCodeAt(j) == 0x20) spaces++
    const n = len == 0 ? 0 : (spaces + 1) >> 1
    this.fields = new StaticArray<Field>(n)
    this.required = new StaticArray<u64>((n + 63) >> 6)
    let offset: usize = 0
    let at = 0
    for (let i = 0; i < n; i++) {
      let end = at
      while (end < len && descriptor.charCodeAt(end) != 0x20) end++
      const f = new Field(descriptor.substring(at, end))
      at = end + 1
      end = at
      while (end < len && descriptor.charCodeAt(end) != 0x20) end++
      if (descriptor.charCodeAt(at) == 0x3f /* ? */) {
        f.optional = true
        at++
      } else {
        unchecked((this.required[i >> 6] |= (<u64>1) << (<u64>(i & 63))))
      }
      const c = descriptor.charCodeAt(at)
      if (c == 0x40 /* @ */ || c == 0x25 /* % */) {
        f.kind = c == 0x40 ? K_MESSAGE : K_ENUM
        f.target = descriptor.substring(at + 1, end)
      } else if (c == 0x23 /* # */) {
        f.kind = K_HELPER
        let h = 0
        for (let j = at + 1; j < end; j++) h = h * 10 + (descriptor.charCodeAt(j) - 0x30)
        if (helpers == null || h >= helpers.read.length) {
          abort("othismo: " + name + " names a list or map helper its file lacks")
        }
        f.helperRead = unchecked(helpers!.read[h])
        f.helperWrite = unchecked(helpers!.write[h])
      } else {
        f.kind = kindOf(c)
        if (f.kind == 0) abort("othismo: " + name + " has a field of an unknown type")
      }
      at = end + 1
      f.boxed = f.optional && !isReference(f.kind)
      const width = f.optional ? sizeof<usize>() : sizeOf(f.kind)
      offset = (offset + width - 1) & ~(width - 1)
      f.offset = offset
      offset += width
      unchecked((this.fields[i] = f))
    }
    if (offset != size) {
      abort("othismo: the bindings' class " + name + " does not match this SDK; regenerate them with this othc")
    }
  }
}

/** Whether a kind's values are objects (an optional one is null or the
 *  object; the others are boxed). */
function isReference(kind: u8): bool {
  return kind == K_STRING || kind == K_BYTES || kind == K_UUID || kind == K_ANY
    || kind == K_MESSAGE || kind == K_HELPER
}

function kindOf(c: i32): u8 {
  switch (c) {
    case 0x62: return K_BOOL // b
    case 0x73: return K_STRING // s
    case 0x79: return K_BYTES // y
    case 0x31: return K_I8 // 1
    case 0x32: return K_I16 // 2
    case 0x69: return K_I32 // i
    case 0x6c: return K_I64 // l
    case 0x33: return K_U8 // 3
    case 0x34: return K_U16 // 4
    case 0x75: return K_U32 // u
    case 0x66: return K_F32 // f
    case 0x64: return K_F64 // d
    case 0x74: return K_TIME // t
    case 0x67: return K_UUID // g
    case 0x61: return K_ANY // a
    default: return 0
  }
}

/** A new object of `size` bytes and class `id`, every byte 0: the
 *  incremental collector's `__new` zeroes what it hands out, the minimal
 *  one's does not (book: reference/collectors.md). */
@inline
function zeroed(size: usize, id: u32): usize {
  const ptr = __new(size, id)
  if (ASC_RUNTIME != Runtime.Incremental) memory.fill(ptr, 0, size)
  return ptr
}

const byName = new Map<string, Shape>()
/** Shapes by class id (what an object's header says it is). */
let byId = new StaticArray<Shape | null>(0)
const enums = new Map<string, Enumeration>()

/** Registers message class `T`, of wire name `name`, described by
 *  `descriptor`; what each generated class does once. */
export function shape<T extends Message>(name: string, descriptor: string, helpers: Helpers | null = null): void {
  // What a decoding fills, made without its fields' starting values: every
  // field the document must have is written by `readFields` (or the
  // decoding fails and the message is dropped), and an optional one left
  // out is null, as zeroed memory is; a number or flag not read is 0 or
  // false, its starting value. So a decoded `HttpRequest` costs no empty
  // list and no empty body that its fields' values then replace.
  const s = new Shape(name, (): Message => changetype<T>(zeroed(offsetof<T>(), idof<T>())), descriptor, helpers, offsetof<T>())
  byName.set(name, s)
  const id = <i32>idof<T>()
  if (id >= byId.length) {
    const grown = new StaticArray<Shape | null>(max(id + 1, byId.length << 1))
    for (let i = 0; i < byId.length; i++) unchecked((grown[i] = byId[i]))
    byId = grown
  }
  unchecked((byId[id] = s))
}

/** Registers an enum of wire name `name` by its generated `nameOfX` and
 *  `parseX`. */
export function enumeration(name: string, nameOf: (v: i32) => string, parse: (s: string) => i32): void {
  enums.set(name, new Enumeration(nameOf, parse))
}

/** Whether a message of this wire name has a class in this module. */
export function known(name: string): bool {
  return byName.has(name)
}

export function shapeNamed(name: string): Shape {
  if (!byName.has(name)) abort("othismo: no message " + name + " is registered")
  return byName.get(name)
}

/** The shape of a generated message object; null for any other (Unknown). */
export function shapeOf(m: Message): Shape | null {
  // The object's header holds its class id just before its fields' start:
  // AssemblyScript's runtime layout, not a language guarantee, so it is
  // tied to the pinned compiler (driver/src/toolchain.rs, ASC_VERSION):
  // moving the pin fails a test until this read is checked again and the
  // new version written on the next line.
  // Layout checked with assemblyscript 0.28.20.
  const id = <i32>load<u32>(changetype<usize>(m) - 8)
  return id < byId.length ? unchecked(byId[id]) : null
}

/** The shape of class `T`. */
export function shapeOfClass<T>(): Shape {
  const id = <i32>idof<T>()
  const s = id < byId.length ? unchecked(byId[id]) : null
  if (s == null) abort("othismo: a message class was used before its module registered it")
  return s!
}

/** Stores a reference into a field, telling the collector (the write
 *  barrier the compiler puts after every reference field assignment). The
 *  objects filled here are new and reached only from the stack, which the
 *  incremental collector scans in one piece at the end of its marking, so
 *  they are not marked before the store; the barrier keeps that from being a
 *  rule this code relies on. The message being filled is held as a `Message`
 *  (a reference the stack keeps), never only as its address. */
@inline function setRef(m: usize, p: usize, v: usize): void {
  store<usize>(p, v)
  __link(m, v, false)
}

/** Reads the remaining elements of `r` as the fields of a new message of
 *  shape `s`; `r` fails when a required field is missing or any is malformed. */
export function readFields(s: Shape, r: BsonReader): Message {
  const obj = s.make()
  const m = changetype<usize>(obj)
  const fields = s.fields
  const n = fields.length
  // Which fields were read: one word inline, more words beside it.
  let seen: u64 = 0
  const more = n > 64 ? new StaticArray<u64>((n + 63) >> 6) : null
  // Documents usually come in declaration order (as written here): the
  // field after the last one read is tried first.
  let at = 0
  while (r.next()) {
    let i = at
    let found = -1
    for (let k = 0; k < n; k++) {
      const f = unchecked(fields[i])
      if (r.keyEquals(f.keyAt, f.keyLen)) {
        found = i
        break
      }
      if (++i == n) i = 0
    }
    if (found < 0) continue
    readField(unchecked(fields[found]), r, m)
    if (more != null) unchecked((more[found >> 6] |= (<u64>1) << (<u64>(found & 63))))
    else seen |= (<u64>1) << (<u64>found)
    at = found + 1 == n ? 0 : found + 1
  }
  const required = s.required
  if (more == null) {
    if (required.length > 0 && (seen & unchecked(required[0])) != unchecked(required[0])) r.fail()
  } else {
    for (let w = 0; w < required.length; w++) {
      if ((unchecked(more[w]) & unchecked(required[w])) != unchecked(required[w])) r.fail()
    }
  }
  return obj
}

/** The embedded document that is the current element of `r`, as a message
 *  of shape `s`; a malformed one fails `r`. */
export function readEmbedded(s: Shape, r: BsonReader): Message {
  // (`lendDocument` fails `r` for an element that is no document or array.)
  const d = r.lendDocument()
  if (r.type != DOCUMENT) r.fail()
  const m = readFields(s, d)
  if (!d.ok) r.fail()
  giveBack(d)
  return m
}

function readField(f: Field, r: BsonReader, m: usize): void {
  const p = m + f.offset
  if (f.optional) {
    if (r.isNull()) return
    if (f.boxed) {
      setRef(m, p, readBox(f, r))
      return
    }
  }
  switch (f.kind) {
    case K_BOOL: store<bool>(p, r.bool()); break
    case K_I8: store<i8>(p, r.int8()); break
    case K_I16: store<i16>(p, r.int16()); break
    case K_I32: store<i32>(p, r.int32()); break
    case K_I64: store<i64>(p, r.int64()); break
    case K_U8: store<u8>(p, r.uint8()); break
    case K_U16: store<u16>(p, r.uint16()); break
    case K_U32: store<u32>(p, r.uint32()); break
    case K_F32: store<f32>(p, <f32>r.double()); break
    case K_F64: store<f64>(p, r.double()); break
    case K_TIME: store<i64>(p, r.datetime()); break
    case K_ENUM: store<i32>(p, readEnum(r, f.enumType().parse)); break
    case K_STRING: setRef(m, p, changetype<usize>(r.string())); break
    case K_BYTES: setRef(m, p, changetype<usize>(r.binary(0))); break
    case K_UUID: setRef(m, p, changetype<usize>(r.uuid())); break
    case K_ANY: setRef(m, p, changetype<usize>(r.anyMessage())); break
    case K_MESSAGE: setRef(m, p, changetype<usize>(readEmbedded(f.shape(), r))); break
    case K_HELPER: {
      const read = f.helperRead!
      setRef(m, p, read(r))
      break
    }
    default: break
  }
}

/** An optional value of a type that cannot be null, boxed. */
function readBox(f: Field, r: BsonReader): usize {
  switch (f.kind) {
    case K_BOOL: return changetype<usize>(new Box<bool>(r.bool()))
    case K_I8: return changetype<usize>(new Box<i8>(r.int8()))
    case K_I16: return changetype<usize>(new Box<i16>(r.int16()))
    case K_I32: return changetype<usize>(new Box<i32>(r.int32()))
    case K_I64: return changetype<usize>(new Box<i64>(r.int64()))
    case K_U8: return changetype<usize>(new Box<u8>(r.uint8()))
    case K_U16: return changetype<usize>(new Box<u16>(r.uint16()))
    case K_U32: return changetype<usize>(new Box<u32>(r.uint32()))
    case K_F32: return changetype<usize>(new Box<f32>(<f32>r.double()))
    case K_F64: return changetype<usize>(new Box<f64>(r.double()))
    case K_TIME: return changetype<usize>(new Box<i64>(r.datetime()))
    default: return changetype<usize>(new Box<i32>(readEnum(r, f.enumType().parse)))
  }
}

/** Writes the fields of message `obj` (of shape `s`) into the open document. */
export function writeFields(s: Shape, obj: Message, w: BsonWriter): void {
  const m = changetype<usize>(obj)
  const fields = s.fields
  for (let i = 0; i < fields.length; i++) {
    const f = unchecked(fields[i])
    let p = m + f.offset
    if (f.optional) {
      const v = load<usize>(p)
      if (v == 0) continue
      // A box's value is its only field.
      if (f.boxed) p = v
    }
    const k = f.keyAt
    const kn = f.keyLen
    switch (f.kind) {
      case K_BOOL: w.head(BOOL, k, kn, 1); w.put(load<bool>(p) ? 1 : 0); break
      case K_I8: w.head(INT32, k, kn, 4); w.put32(<i32>load<i8>(p)); break
      case K_I16: w.head(INT32, k, kn, 4); w.put32(<i32>load<i16>(p)); break
      case K_I32: w.head(INT32, k, kn, 4); w.put32(load<i32>(p)); break
      case K_I64: w.head(INT64, k, kn, 8); w.put64(load<i64>(p)); break
      case K_U8: w.head(INT32, k, kn, 4); w.put32(<i32>load<u8>(p)); break
      case K_U16: w.head(INT32, k, kn, 4); w.put32(<i32>load<u16>(p)); break
      case K_U32: w.head(INT64, k, kn, 8); w.put64(<i64>load<u32>(p)); break
      case K_F32: w.head(DOUBLE, k, kn, 8); w.put64(reinterpret<i64>(<f64>load<f32>(p))); break
      case K_F64: w.head(DOUBLE, k, kn, 8); w.put64(load<i64>(p)); break
      case K_TIME: w.head(DATETIME, k, kn, 8); w.put64(load<i64>(p)); break
      case K_ENUM: {
        const nameOf = f.enumType().nameOf
        writeString(w, k, kn, nameOf(load<i32>(p)))
        break
      }
      case K_STRING: writeString(w, k, kn, changetype<string>(load<usize>(p))); break
      case K_BYTES: w.binary(f.key, changetype<ArrayBuffer>(load<usize>(p)), 0); break
      case K_UUID: w.uuid(f.key, changetype<Uuid>(load<usize>(p))); break
      case K_ANY: changetype<Message>(load<usize>(p)).writeAsAny(w, f.key); break
      case K_MESSAGE: {
        w.head(DOCUMENT, k, kn, 4)
        w.open()
        writeFields(f.shape(), changetype<Message>(load<usize>(p)), w)
        w.end()
        break
      }
      case K_HELPER: {
        const write = f.helperWrite!
        write(w, f.key, load<usize>(p))
        break
      }
      default: break
    }
  }
}

@inline function writeString(w: BsonWriter, k: usize, kn: i32, v: string): void {
  w.head(STRING, k, kn, BsonWriter.stringRoom(v))
  w.stringValue(v)
}

/** Reads a message of class `T` from the embedded document that is the
 *  current element of `r` (what list and map helpers call). */
export function readMessage<T>(r: BsonReader): T {
  return changetype<T>(readEmbedded(shapeOfClass<T>(), r))
}
