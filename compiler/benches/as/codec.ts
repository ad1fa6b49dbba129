// The AssemblyScript side of the codec bench (benches/codec.rs), built with
// the bindings of fixtures/codegen/everything.oth: a ~1 KB `Nested` message,
// encoded and decoded `n` times.

import { bson } from "othismo"
import { Nested, Inner, Note, Mood } from "./everything.oth"

function value(): Nested {
  const n = new Nested()
  const inner = new Inner()
  inner.label = "the inner one"
  inner.default_ = 1
  n.inner = inner
  for (let i = 0; i < 8; i++) {
    const g = new Inner()
    g.label = "guest number " + i.toString()
    g.default_ = i
    n.inners.push(g)
  }
  for (let r = 0; r < 4; r++) {
    const row = new Array<i32>()
    for (let c = 0; c < 10; c++) row.push(r * 10 + c)
    n.grid.push(row)
  }
  for (let i = 0; i < 6; i++) {
    const g = new Inner()
    g.label = "by name"
    g.default_ = i
    n.byName.set("key" + i.toString(), g)
  }
  const tags = new Array<string>()
  tags.push("alpha")
  tags.push("beta")
  tags.push("gamma")
  tags.push("delta")
  tags.push("epsilon")
  n.tags.set("greek", tags)
  n.moods.push(Mood.busy)
  for (let i = 0; i < 5; i++) n.moods.push(Mood.calm)
  const note = new Note()
  note.text = "a note carried in an any field"
  n.anything.push(note)
  return n
}

let encoded = new ArrayBuffer(0)

export function outputPtr(): usize {
  return changetype<usize>(encoded)
}

export function outputLen(): i32 {
  return encoded.byteLength
}

/** Encodes the value `n` times; leaves the bytes for `outputPtr`. */
export function benchEncode(n: i32): i32 {
  const v = value()
  let total = 0
  for (let i = 0; i < n; i++) {
    encoded = v.toBytes()
    total += encoded.byteLength
  }
  return total
}

/** Decodes the encoded value `n` times. */
export function benchDecode(n: i32): i32 {
  const p = value().toPayload()
  let ok = 0
  for (let i = 0; i < n; i++) {
    if (Nested.fromPayload(p) != null) ok++
  }
  return ok
}
