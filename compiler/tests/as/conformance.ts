// The AssemblyScript side of the BSON conformance test (tests/bson_conformance.rs),
// built with the bindings of fixtures/codegen/everything.oth.
//
// - `decode(len)`: the document written at `input()` is decoded with
//   `bson.decode` and re-encoded; 1 when it decoded to a generated class,
//   2 when it was kept as Unknown, 0 when it was rejected.
// - `make(i)`: encodes the i-th value built here, for the Rust side to decode.
// The result of either is at `outputPtr()`, `outputLen()` bytes.

import { bson, Box, Payload, Uuid } from "othismo"
import { NumberTable } from "othismo/table"
import { Scalars, Optionals, Nested, Inner, Note, Mood, Containers } from "./everything.oth"

let inputBuf = new ArrayBuffer(0)
let output = new ArrayBuffer(0)

export function input(len: i32): usize {
  inputBuf = new ArrayBuffer(len)
  return changetype<usize>(inputBuf)
}

export function outputPtr(): usize {
  return changetype<usize>(output)
}

export function outputLen(): i32 {
  return output.byteLength
}

export function decode(len: i32): i32 {
  const bytes = inputBuf.slice(0, len)
  const m = bson.decodeDocument(bytes)
  if (m == null) {
    output = new ArrayBuffer(0)
    return 0
  }
  output = m.toBytes()
  return m instanceof bson.Unknown ? 2 : 1
}

function uuid(last: u8): Uuid {
  const b = new Uint8Array(16)
  for (let i = 0; i < 16; i++) b[i] = <u8>(i * 17)
  b[15] = last
  return new Uuid(b)
}

function bytes(s: string): ArrayBuffer {
  return String.UTF8.encode(s, false)
}

export function makeCount(): i32 {
  return 5
}

export function make(i: i32): i32 {
  if (i == 0) {
    const s = new Scalars()
    s.b = true
    s.s = "héllo, wörld 😀"
    s.raw = bytes("raw\u0000bytes")
    s.i8v = -128
    s.i16v = 32767
    s.i32v = -2147483648
    s.i64v = i64.MAX_VALUE
    s.u8v = 255
    s.u16v = 65535
    s.u32v = 4294967295
    s.f32v = 1.5
    s.f64v = -2.5e-300
    s.when = 1792756800000
    s.id = uuid(0xab)
    const n = new Note()
    n.text = "inside any"
    s.extra = n
    output = s.toBytes()
  } else if (i == 1) {
    const o = new Optionals()
    o.b = new Box<bool>(false)
    o.n = new Box<i32>(-7)
    o.mood = new Box<Mood>(Mood.class_)
    const inner = new Inner()
    inner.label = "x"
    inner.default_ = 3
    o.inner = inner
    const list = new Array<string>()
    list.push("a")
    list.push("")
    o.list = list
    // Replaced and deleted entries: the writers walk the map's own storage,
    // where a deleted entry keeps its slot.
    const map = new Map<string, i64>()
    map.set("z", 0)
    map.set("gone", 5)
    map.set("a", -1)
    map.delete("gone")
    map.set("z", 1)
    map.set("b", 2)
    o.map = map
    output = o.toBytes()
  } else if (i == 2) {
    output = new Optionals().toBytes()
  } else if (i == 4) {
    output = containers().toBytes()
  } else {
    const n = new Nested()
    const inner = new Inner()
    inner.label = "one"
    n.inner = inner
    n.inners.push(inner)
    n.inners.push(new Inner())
    const row = new Array<i32>()
    row.push(1)
    row.push(2)
    n.grid.push(row)
    n.grid.push(new Array<i32>())
    n.byName.set("gone", new Inner())
    n.byName.set("k", inner)
    n.byName.delete("gone")
    const tags = new Array<string>()
    tags.push("t")
    n.tags.set("tagged", tags)
    n.moods.push(Mood.busy)
    n.moods.push(Mood.calm)
    const note = new Note()
    note.text = "n"
    n.anything.push(note)
    n.anything.push(new bson.Unknown("Elsewhere", elsewhere()))
    output = n.toBytes()
  }
  return output.byteLength
}

/** A message of a type this module has no class for. */
function elsewhere(): ArrayBuffer {
  const w = new bson.BsonWriter()
  w.string("$type", "Elsewhere")
  w.int32("x", 1)
  return w.finish()
}

function note(text: string): Note {
  const n = new Note()
  n.text = text
  return n
}

function inner(label: string, d: i32): Inner {
  const m = new Inner()
  m.label = label
  m.default_ = d
  return m
}

function one<T>(k: string, v: T): Map<string, T> {
  const m = new Map<string, T>()
  m.set(k, v)
  return m
}

/** The value of `containers()` in tests/bson_conformance.rs. */
function containers(): Containers {
  const c = new Containers()
  c.bools = [true, false]
  c.strings = ["a", "ü"]
  c.blobs = [bytes("x"), bytes("")]
  c.i8s = [-128, 127]
  c.i16s = [-32768]
  c.i32s = [2147483647]
  c.i64s = [i64.MIN_VALUE, 0]
  c.u8s = [255]
  c.u16s = [65535]
  c.u32s = [4294967295]
  c.f32s = [0.5]
  c.f64s = [-0.25]
  c.times = [0, 1792756800000]
  c.ids = [uuid(1)]
  c.anys = [note("in a list")]
  c.moods = [Mood.class_]
  c.inners = [inner("l", 1)]
  c.boolMap = one<bool>("t", true)
  c.stringMap = one<string>("ключ 😀", "v")
  c.blobMap = one<ArrayBuffer>("b", bytes("\u0001"))
  c.i8Map = one<i8>("k", -1)
  c.i16Map = one<i16>("k", 2)
  c.i32Map = one<i32>("k", 3)
  c.i64Map = one<i64>("k", 4)
  c.u8Map = one<u8>("k", 5)
  c.u16Map = one<u16>("k", 6)
  c.u32Map = one<u32>("k", 7)
  c.f32Map = one<f32>("k", 8.5)
  c.f64Map = one<f64>("k", 9.25)
  c.timeMap = one<i64>("k", 10)
  c.idMap = one<Uuid>("k", uuid(2))
  c.anyMap = one<bson.Message>("k", note("in a map"))
  c.moodMap = one<Mood>("k", Mood.busy)
  c.innerMap = one<Inner>("k", inner("m", 2))
  c.i64Grid = [[11], []]
  c.timeGrid = [[12], []]
  c.i64Lists = one<Array<i64>>("k", [13])
  c.timeLists = one<Array<i64>>("k", [14])
  c.i64Maps = [one<i64>("k", 15)]
  c.timeMaps = [one<i64>("k", 16)]
  c.timeCube = [[[17]]]
  c.someTimes = [18]
  c.someI64s = [19]
  c.someTimeMap = one<i64>("k", 20)
  c.someGrid = [[21]]
  return c
}

/** Describes `Note` with a field its class does not have: the SDK must
 *  stop rather than read or write at offsets the class does not have. */
export function mismatchedShape(): void {
  bson.shape<Note>("Note", "text s extra i")
}

/** Decodes the input `n` times while the collector runs, and counts the
 *  decodes whose message, re-encoded after more garbage was made, differs
 *  from the first one's bytes. The heap stays small, so the collector's
 *  cycles are short and many end in the middle of a decode. The SDK holds
 *  the message it fills, and stores its fields through their offsets: an
 *  object it failed to keep reachable would be freed mid-decode, and its
 *  memory reused by the garbage made here. */
export function stress(len: i32, n: i32): i32 {
  const bytes = inputBuf.slice(0, len)
  const first = bson.decodeDocument(bytes)
  if (first == null) return -1
  const want = Uint8Array.wrap(first.toBytes())
  let differ = 0
  for (let i = 0; i < n; i++) {
    const m = bson.decodeDocument(bytes)
    if (m == null) return -1
    for (let j = 0; j < 20; j++) new ArrayBuffer(16 + ((i * 7 + j * 13) & 127))
    const got = Uint8Array.wrap(m.toBytes())
    if (got.length != want.length) {
      differ++
      continue
    }
    for (let k = 0; k < got.length; k++) {
      if (got[k] != want[k]) {
        differ++
        break
      }
    }
  }
  output = want.buffer
  return differ
}

/** The SDK's table of requests by number (`othismo/table`) beside the
 *  standard Map, through 200,000 random steps: mostly consecutive new
 *  keys, as tickets and request ids are, some from a small range (so
 *  entries collide, wrap around the slots and are removed from the middle
 *  of a run), values kept only by the table while garbage is made. The
 *  number of steps at which they disagree. */
export function numberTable(): i32 {
  const t = new NumberTable<Box<i32> | null>()
  // The value of each key: the step that set it, or -1 for null.
  const m = new Map<i32, i32>()
  let seed: u32 = 12345
  let next = 1
  let differ = 0
  for (let step = 0; step < 200000; step++) {
    seed = seed * 1664525 + 1013904223
    const r = seed >>> 8
    const small = <i32>((r >>> 5) % 48)
    const recent = next - 1 - <i32>((r >>> 12) % 40)
    const op = r % 5
    if (op < 2) {
      const key = (r & 16) != 0 ? small : next++
      const none = (r & 32) != 0
      t.set(key, none ? null : new Box<i32>(step))
      m.set(key, none ? -1 : step)
    } else if (op < 4) {
      const key = (r & 16) != 0 ? small : recent
      t.delete(key)
      if (m.has(key)) m.delete(key)
    } else {
      const key = (r & 16) != 0 ? small : recent
      const at = t.find(key)
      if ((at >= 0) != m.has(key)) differ++
      else if (at >= 0) {
        const v = t.at(at)
        if ((v == null ? -1 : v.value) != m.get(key)) differ++
      }
    }
    if (t.size != m.size) differ++
    new ArrayBuffer(64 + (step & 255))
  }
  const keys = m.keys()
  for (let i = 0; i < keys.length; i++) {
    const at = t.find(keys[i])
    if (at < 0) {
      differ++
      continue
    }
    const v = t.at(at)
    if ((v == null ? -1 : v.value) != m.get(keys[i])) differ++
  }
  return differ
}

/** `fromPayload` takes a payload of its own type only, by its `$type`
 *  (compared where it lies): the number of answers that were wrong. */
export function fromPayloadChecksType(): i32 {
  let wrong = 0
  const n = new Note()
  n.text = "x"
  const p = n.toPayload()
  const back = Note.fromPayload(p)
  if (back == null || back.text != "x") wrong++
  if (Scalars.fromPayload(p) != null) wrong++
  if (Inner.fromPayload(p) != null) wrong++
  // A `$type` one byte longer, or shorter, than the class's name.
  for (let i = 0; i < 2; i++) {
    const w = bson.BsonWriter.take()
    w.string("$type", i == 0 ? "Notes" : "Not")
    w.string("text", "y")
    if (Note.fromPayload(new Payload(bson.BSON, w.finish())) != null) wrong++
  }
  return wrong
}
