// An exchange's request as HttpServer uses it, read straight from the Http
// object's `HttpRequest` message: its id, method, target and body, and of
// its headers only the five HttpServer looks at. Decoding the whole message
// made an object, a reader and two strings of every header (a browser sends
// a dozen), most of what such a request cost the module.
//
// As strict as the generated decoder: every field of `HttpRequest` and of
// each `HttpHeader` must be there with its type, or the message is not one.

import { Payload, bson } from "othismo"

/** The headers read, by their names (the Http object gives them in lower
 *  case), in the order of `Asked.wanted`. */
const WANTED = ["accept", "content-type", "if-none-match", "range", "if-range"]

export class Asked {
  id: i64 = 0
  method: string = ""
  target: string = ""
  body: ArrayBuffer = bson.NO_BYTES
  /** The first value of each header of `WANTED`, or null. */
  wanted: StaticArray<string | null> = new StaticArray<string | null>(5)

  get accept(): string | null {
    return unchecked(this.wanted[0])
  }

  get contentType(): string | null {
    return unchecked(this.wanted[1])
  }

  get ifNoneMatch(): string | null {
    return unchecked(this.wanted[2])
  }

  get range(): string | null {
    return unchecked(this.wanted[3])
  }

  get ifRange(): string | null {
    return unchecked(this.wanted[4])
  }
}

/** The request `p` holds; null when it is not a whole, well-formed
 *  `HttpRequest`. */
export function askedOf(p: Payload): Asked | null {
  if (p.mediaType() != bson.BSON) return null
  const r = bson.BsonReader.lendOf(p.data)
  const a = read(r)
  bson.giveBack(r)
  return a
}

const ID = 1
const METHOD = 2
const TARGET = 4
const HEADERS = 8
const BODY = 16
const ALL = 31

function read(r: bson.BsonReader): Asked | null {
  if (!r.next() || !r.keyIs("$type") || !r.stringIs("HttpRequest")) return null
  const a = new Asked()
  let seen = 0
  while (r.next()) {
    if (r.keyIs("id")) {
      a.id = r.int64()
      seen |= ID
    } else if (r.keyIs("method")) {
      a.method = r.string()
      seen |= METHOD
    } else if (r.keyIs("target")) {
      a.target = r.string()
      seen |= TARGET
    } else if (r.keyIs("headers")) {
      if (r.type != bson.ARRAY) r.fail()
      else readHeaders(r, a)
      seen |= HEADERS
    } else if (r.keyIs("body")) {
      a.body = r.binary(0)
      seen |= BODY
    }
  }
  return r.ok && seen == ALL ? a : null
}

/** The headers array that is `r`'s current element, into `a`. */
function readHeaders(r: bson.BsonReader, a: Asked): void {
  const list = r.lendDocument()
  while (list.next()) {
    if (list.type != bson.DOCUMENT) {
      list.fail()
      break
    }
    const h = list.lendDocument()
    readHeader(h, a)
    if (!h.ok) list.fail()
    bson.giveBack(h)
  }
  if (!list.ok) r.fail()
  bson.giveBack(list)
}

/** One `HttpHeader`: a value kept only when its name is wanted (and the
 *  first of that name); the name compared where it lies. */
function readHeader(h: bson.BsonReader, a: Asked): void {
  // -2: no name yet; -1: a name not wanted.
  let which = -2
  let value: string | null = null
  let valued = false
  while (h.next()) {
    if (h.keyIs("name")) {
      if (h.type != bson.STRING) {
        h.fail()
        return
      }
      which = -1
      for (let i = 0; i < WANTED.length; i++) {
        if (h.stringIs(unchecked(WANTED[i]))) {
          which = i
          break
        }
      }
    } else if (h.keyIs("value")) {
      // Made only when the name (if it came first) is wanted.
      if (which == -1) {
        if (h.type != bson.STRING) h.fail()
      } else {
        value = h.string()
      }
      valued = true
    }
  }
  if (which == -2 || !valued) {
    h.fail()
    return
  }
  if (which >= 0 && unchecked(a.wanted[which]) == null) unchecked((a.wanted[which] = value))
}
