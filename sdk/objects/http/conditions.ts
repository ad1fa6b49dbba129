// What a GET asks beyond the bytes (RFC 9110 §13, §14): the entity tag a
// stat record's version makes, whether a client's If-None-Match already
// has it, and the one byte range a Range header names. Pure functions of
// header text, so HttpServer's exchanges only decide what to send.

/** The ETag of a stat record's version: a strong tag, or null when the
 * server keeps no version (0). */
export function etagOf(version: i64): string | null {
  if (version == 0) return null
  // Lower-case hex between quotes, written into one string made at its
  // length (made of pieces, a GET allocated three strings here; a string
  // per digit, some thirty).
  const v = <u64>version
  let digits = 1
  while (digits < 16 && (v >>> (<u64>digits << 2)) != 0) digits++
  const tag = changetype<string>(__new(<usize>(digits + 2) << 1, idof<string>()))
  const at = changetype<usize>(tag)
  store<u16>(at, 0x22)
  for (let i = 0; i < digits; i++) {
    const d = <u32>((v >>> (<u64>(digits - 1 - i) << 2)) & 15)
    store<u16>(at + (<usize>(i + 1) << 1), <u16>(d < 10 ? 0x30 + d : 0x57 + d))
  }
  store<u16>(at + (<usize>(digits + 1) << 1), 0x22)
  return tag
}

/** Whether If-None-Match `header` names `etag` (or is `*`): the weak
 * comparison, as a GET's conditions use (a `W/` tag matches its strong
 * twin). */
export function noneMatch(header: string, etag: string): bool {
  const tags = header.split(",")
  for (let i = 0; i < tags.length; i++) {
    let t = tags[i].trim()
    if (t == "*") return true
    if (t.startsWith("W/")) t = t.substring(2)
    if (t == etag) return true
  }
  return false
}

/** A span of bytes, first to last inclusive. */
export class Span {
  constructor(public first: i64, public last: i64) {}

  get length(): i64 {
    return this.last - this.first + 1
  }
}

/** A Range that no byte of the entity satisfies: answered 416. */
export const UNSATISFIABLE = new Span(-1, -1)

/** Decimal digits as a number; -1 if `s` is not one (or too long to be a
 * length). */
function count(s: string): i64 {
  if (s.length == 0 || s.length > 18) return -1
  let n: i64 = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 48 || c > 57) return -1
    n = n * 10 + <i64>(c - 48)
  }
  return n
}

/**
 * The single byte range of Range `header` over `length` bytes (RFC 9110
 * §14.1.2: `bytes=FIRST-LAST`, `bytes=FIRST-`, `bytes=-SUFFIX`), clipped
 * to the entity; UNSATISFIABLE when it starts past the end (or asks for a
 * suffix of nothing); null when the header is to be ignored and the whole
 * entity sent: another unit, several ranges, or not a range at all.
 */
export function byteRange(header: string, length: i64): Span | null {
  const h = header.trim()
  if (!h.startsWith("bytes=")) return null
  const spec = h.substring(6).trim()
  if (spec.indexOf(",") >= 0) return null
  const dash = spec.indexOf("-")
  if (dash < 0) return null
  const a = spec.substring(0, dash).trim()
  const b = spec.substring(dash + 1).trim()
  if (a.length == 0) {
    const suffix = count(b)
    if (suffix < 0) return null
    if (suffix == 0 || length == 0) return UNSATISFIABLE
    return new Span(suffix >= length ? 0 : length - suffix, length - 1)
  }
  const first = count(a)
  if (first < 0) return null
  let last: i64 = length - 1
  if (b.length > 0) {
    last = count(b)
    if (last < 0 || last < first) return null
    if (last > length - 1) last = length - 1
  }
  if (first >= length) return UNSATISFIABLE
  return new Span(first, last)
}
