// HttpServer: takes each request of the Http object mounted at /http and
// makes it a request under /site; its answers become the response (book:
// reference/objects.md).
//
//   GET, HEAD   read            (GET ?list: list, GET ?stat: stat,
//   PUT         write            GET accepting only text/event-stream: watch)
//   POST        create
//   DELETE      remove
//
// One answer is one response with a Content-Length; a stream of answers is
// one chunked response, each answer a part as it comes. Errors become the
// status their errno maps to, with the error's code in `Othismo-Error`.
//
// A GET or HEAD that reads is preceded by a stat of its path (if the site
// serves one): a directory named without its slash is redirected (301) to
// the slash form, so the page's relative links work; a file gets an ETag
// from its version (304 when the client has it), its length as
// Content-Length, and a single byte range (206, or 416 past its end).

import { Answers, Box, Client, OnDone, OnMessage, OnStat, Payload, Request, Status, StatRecord, Ticket, Verb, bson, run, send } from "othismo"
import { HttpHeader, HttpRequest, HttpResponse, HttpServerConfig, HttpServerServer, http } from "./HttpServer.oth"
import { Asked, askedOf } from "./asked"
import { Span, UNSATISFIABLE, byteRange, etagOf, noneMatch } from "./conditions"

const SITE = "/site"

/** The query words that make a GET a list or a stat (HttpServerConfig). */
let listWord = "list"
let statWord = "stat"
/** The Cache-Control of successful responses, if configured. */
let cacheControl: string | null = null

/** Whether `s` can be an HTTP header value: visible ASCII, spaces and tabs. */
function headerValueOk(s: string): bool {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if ((c < 32 && c != 9) || c >= 127) return false
  }
  return true
}

class HttpServer extends HttpServerServer {
  start(): void {
    http.watchRequests(new OnHttpRequest())
  }

  write(req: Request, config: HttpServerConfig): void {
    const list = config.list
    const stat = config.stat
    const cache = config.cacheControl
    if (cache != null && !headerValueOk(cache)) {
      req.fail(Status.Invalid, "cacheControl is not an HTTP header value: " + cache)
      return
    }
    if (list != null) listWord = list
    if (stat != null) statWord = stat
    if (cache != null) cacheControl = cache
    req.end()
  }
}

/** The HTTP status for an errno. */
export function statusOf(errno: i32): i32 {
  if (errno == Status.NotFound.errno) return 404
  if (errno == Status.Forbidden.errno) return 403
  if (errno == Status.ReadOnly.errno || errno == Status.NotSupported.errno) return 405
  if (errno == Status.Invalid.errno) return 400
  if (errno == Status.UnsupportedType.errno) return 415
  if (errno == Status.TooLarge.errno) return 413
  if (errno == Status.Unavailable.errno) return 503
  if (errno == Status.Exists.errno || errno == Status.NotEmpty.errno) return 409
  return 500
}

function header(name: string, value: string): HttpHeader {
  const h = new HttpHeader()
  h.name = name
  h.value = value
  return h
}

function hexValue(c: i32): i32 {
  if (c >= 48 && c <= 57) return c - 48
  if (c >= 97 && c <= 102) return c - 87
  if (c >= 65 && c <= 70) return c - 55
  return -1
}

/** Where the first unit `c` of `s` is, or -1. (`String#indexOf` compares
 *  a one-unit string at every place, a call each: some twenty calls for
 *  the two scans of a short GET's target.) */
function unitAt(s: string, c: u16): i32 {
  const at = changetype<usize>(s)
  for (let i = 0; i < s.length; i++) {
    if (load<u16>(at + (<usize>i << 1)) == c) return i
  }
  return -1
}

/** The length of the UTF-8 sequence at `at` if it is a well-formed one
 * (RFC 3629: no overlong form, no surrogate, nothing past U+10FFFF), else 0. */
function utf8Length(b: Uint8Array, at: i32, n: i32): i32 {
  const c = <i32>b[at]
  if (c < 0x80) return 1
  let len = 0
  let lo = 0x80
  let hi = 0xbf
  if (c >= 0xc2 && c <= 0xdf) len = 2
  else if (c == 0xe0) { len = 3; lo = 0xa0 }
  else if (c == 0xed) { len = 3; hi = 0x9f }
  else if (c >= 0xe1 && c <= 0xef) len = 3
  else if (c == 0xf0) { len = 4; lo = 0x90 }
  else if (c == 0xf4) { len = 4; hi = 0x8f }
  else if (c >= 0xf1 && c <= 0xf3) len = 4
  else return 0
  if (at + len > n) return 0
  const second = <i32>b[at + 1]
  if (second < lo || second > hi) return 0
  for (let i = 2; i < len; i++) {
    const k = <i32>b[at + i]
    if (k < 0x80 || k > 0xbf) return 0
  }
  return len
}

/**
 * A request target's path, percent-decoded (RFC 3986) and read as strict
 * UTF-8; null when it is not one. Refused, never repaired: a `%` without
 * two hex digits after it, bytes that are not UTF-8 (overlong forms and
 * surrogates included), an encoded `/` (it would make one path of two
 * spellings) and NUL. So one path has one spelling, and what reaches the
 * host is always text.
 */
export function percentDecoded(s: string): string | null {
  // Nothing encoded: the target is already the path (it came as ASCII).
  if (unitAt(s, 0x25) < 0) return s
  const raw = Uint8Array.wrap(String.UTF8.encode(s, false))
  const out = new Uint8Array(raw.length)
  let n = 0
  for (let i = 0; i < raw.length; i++) {
    const c = <i32>raw[i]
    if (c != 37) {
      out[n++] = <u8>c
      continue
    }
    if (i + 2 >= raw.length) return null
    const hi = hexValue(<i32>raw[i + 1])
    const lo = hexValue(<i32>raw[i + 2])
    if (hi < 0 || lo < 0) return null
    const b = (hi << 4) | lo
    if (b == 0x2f || b == 0) return null
    out[n++] = <u8>b
    i += 2
  }
  for (let i = 0; i < n; ) {
    const len = utf8Length(out, i, n)
    if (len == 0) return null
    i += len
  }
  return String.UTF8.decode(out.slice(0, n).buffer, false)
}

/** A string as a JSON string literal. */
function jsonString(s: string): string {
  let out = "\""
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c == 34) out += "\\\""
    else if (c == 92) out += "\\\\"
    else if (c < 32) out += "\\u00" + (c < 16 ? "0" : "") + c.toString(16)
    else out += String.fromCharCode(c)
  }
  return out + "\""
}

/** A stat record as a JSON object. */
export function statJson(s: StatRecord): string {
  return "{\"name\":" + jsonString(s.name)
    + ",\"kind\":\"" + (s.isDirectory() ? "directory" : "file") + "\""
    + ",\"length\":" + s.length.toString()
    + ",\"type\":" + jsonString(s.type)
    + ",\"version\":" + s.version.toString() + "}"
}

/** The site's paths are made by a client of it, which keeps the last one
 * made: a site's clients ask for the same few paths over and over. */
const site = new Client(SITE)

/** What the answers of an exchange are turned into. */
const PLAIN = 0
const LISTING = 1
const STAT_ONE = 2
const EVENTS = 3

/** Each request from the Http object, read as HttpServer uses it
 *  (`asked`), not decoded whole. */
class OnHttpRequest extends OnMessage<HttpRequest> {
  deliver(payload: Payload | null, done: bool): void {
    if (payload == null) {
      if (done) this.finished()
      return
    }
    const r = askedOf(payload)
    if (r == null) this.error(Status.Invalid, "the answer is not the expected message")
    else this.asked(r)
  }

  asked(r: Asked): void {
    const id = r.id.toString()
    const q = unitAt(r.target, 0x3f)
    const rawPath = q < 0 ? r.target : r.target.substring(0, q)
    const query = q < 0 ? "" : r.target.substring(q + 1)
    const decoded = percentDecoded(rawPath)
    if (decoded == null || !decoded.startsWith("/")) {
      fail(id, 400, "invalid", "the request target is not a path")
      return
    }
    // `/docs/` and `/docs` are the same path of the site.
    let path = decoded
    if (path.length > 1 && path.endsWith("/")) path = path.substring(0, path.length - 1)
    const full = site.at(path)
    let verb = Verb.Read
    let kind = PLAIN
    let payload: Payload | null = null
    const method = r.method
    if (method == "GET" || method == "HEAD") {
      const accept = r.accept
      if (query == listWord) {
        verb = Verb.List
        kind = LISTING
      } else if (query == statWord) {
        verb = Verb.Stat
        kind = STAT_ONE
      } else if (method == "GET" && accept != null && accept.trim() == "text/event-stream") {
        verb = Verb.Watch
        kind = EVENTS
      }
    } else if (method == "PUT" || method == "POST") {
      verb = method == "PUT" ? Verb.Write : Verb.Create
      const type = r.contentType
      payload = new Payload(type != null ? type : "application/octet-stream", r.body)
    } else if (method == "DELETE") {
      verb = Verb.Remove
    } else {
      fail(id, 405, "not_supported", method + " is not a method this server maps onto a verb", METHODS)
      return
    }
    if (verb == Verb.Read) {
      send(Verb.Stat, full, null, new Looked(id, full, r, rawPath, query))
      return
    }
    const ex = new Exchange(id, kind, method)
    ex.ticket = send(verb, full, payload, ex)
  }
}

/** The methods this server maps onto verbs (a 405's `Allow`). */
const METHODS = "GET, HEAD, PUT, POST, DELETE"

/** The methods this server maps, but `method`: what a 405 can say of a
 * path whose serves it cannot see. */
function allowedBut(method: string): string {
  const all = METHODS.split(", ")
  const rest: string[] = []
  for (let i = 0; i < all.length; i++) {
    if (all[i] != method && !(method == "GET" && all[i] == "HEAD")) rest.push(all[i])
  }
  return rest.join(", ")
}

/** Responds to exchange `id` at once, with an error (a 405 says what the
 * path allows, as `allow`). */
function fail(id: string, status: i32, code: string, description: string, allow: string | null = null): void {
  const headers = [header("othismo-error", code)]
  if (allow != null) headers.push(header("allow", allow))
  bare(id, status, headers, code + ": " + description)
}

/** Responds to exchange `id` at once: `status`, `headers` (and
 * Cache-Control, if configured, for a success or redirect), and `text`, if
 * any, as a plain-text body. */
function bare(id: string, status: i32, headers: HttpHeader[], text: string): void {
  const res = new HttpResponse()
  res.status = status
  const cache = cacheControl
  if (cache != null && status < 400) res.headers.push(header("cache-control", cache))
  for (let i = 0; i < headers.length; i++) res.headers.push(headers[i])
  if (text.length > 0) {
    res.headers.push(header("content-type", "text/plain; charset=utf-8"))
    res.body = String.UTF8.encode(text + "\n", false)
  }
  http.writeExchanges(id, res, null)
}

/** The last version made an ETag, and the ETag: a busy site serves the
 * same file many times over, and a repeat makes nothing new. */
let lastVersion: i64 = 0
let lastEtag: string | null = null

function etagFor(version: i64): string | null {
  if (version != lastVersion) {
    lastVersion = version
    lastEtag = etagOf(version)
  }
  return lastEtag
}

/** The last header of one name made, handed out again for the very same
 * value string (an ETag from `etagFor`, a type the SDK kept), never for
 * an equal one made apart: so it is right whatever came in between. */
class LastHeader {
  private kept: HttpHeader | null = null

  constructor(public name: string) {}

  of(value: string): HttpHeader {
    const kept = this.kept
    if (kept != null && kept.value === value) return kept
    const h = header(this.name, value)
    this.kept = h
    return h
  }
}

const ETAG = new LastHeader("etag")
const CONTENT_TYPE = new LastHeader("content-type")

/** A file's headers: Accept-Ranges, its ETag if it has one, a range's
 * Content-Range if there is one. */
function pushFileHeaders(to: HttpHeader[], etag: string | null, contentRange: string | null): void {
  to.push(ACCEPT_RANGES)
  if (etag != null) to.push(ETAG.of(etag))
  if (contentRange != null) to.push(header("content-range", contentRange))
}

function fileHeaders(etag: string | null, contentRange: string | null): HttpHeader[] {
  const headers: HttpHeader[] = []
  pushFileHeaders(headers, etag, contentRange)
  return headers
}

/** Every file's `Accept-Ranges`, made once (headers are only read once made). */
const ACCEPT_RANGES = header("accept-ranges", "bytes")

/** The response each exchange's head is written with: refilled for each
 * (it is encoded by the write that sends it, and kept by nobody), so a
 * response costs no object, list or list buffer of its own. */
const RESPONSE = new HttpResponse()

/** `RESPONSE`, emptied, with `status`. */
function response(status: i32): HttpResponse {
  const res = RESPONSE
  res.status = status
  res.headers.length = 0
  res.body = bson.NO_BYTES
  res.streamed = null
  res.length = null
  return res
}

/** The stat a GET or HEAD takes before it reads: decides a redirect, a
 * 304 or 416, or the read and what its response says of the file. */
class Looked extends OnStat {
  constructor(
    public id: string,
    public full: string,
    public r: Asked,
    public rawPath: string,
    public query: string,
  ) {
    super()
  }

  stat(s: StatRecord, done: bool): void {
    if (s.isDirectory()) {
      // `/notes` names a directory: its page's relative links need
      // `/notes/`. (`//x` would be a link to another host: never made.)
      if (!this.rawPath.endsWith("/") && !this.rawPath.startsWith("//")) {
        const to = this.rawPath + "/" + (this.query.length > 0 ? "?" + this.query : "")
        bare(this.id, 301, [header("location", to)], "moved to " + to)
        return
      }
      this.read(new Exchange(this.id, PLAIN, this.r.method))
      return
    }
    const etag = etagFor(s.version)
    const inm = this.r.ifNoneMatch
    if (etag != null && inm != null && noneMatch(inm, etag)) {
      bare(this.id, 304, fileHeaders(etag, null), "")
      return
    }
    const ex = new Exchange(this.id, PLAIN, this.r.method)
    ex.file = true
    ex.etag = etag
    ex.length = s.length
    const range = this.r.range
    const ifRange = this.r.ifRange
    // If-Range: the range only if the client's copy is this version.
    if (range != null && (ifRange == null || (etag != null && ifRange.trim() == etag))) {
      const span = byteRange(range, s.length)
      if (span === UNSATISFIABLE) {
        const range = "bytes */" + s.length.toString()
        bare(this.id, 416, fileHeaders(etag, range), "range_not_satisfiable: the file is " + s.length.toString() + " bytes")
        return
      }
      if (span != null) ex.range(span, s.length)
    }
    this.read(ex)
  }

  /** No stat (the site serves none there, or it failed): the read says. */
  error(status: Status, description: string): void {
    this.read(new Exchange(this.id, PLAIN, this.r.method))
  }

  read(ex: Exchange): void {
    ex.ticket = send(Verb.Read, this.full, null, ex)
  }
}

/** One HTTP exchange: the answers of the request made for it. */
class Exchange extends Answers {
  started: bool = false
  finished: bool = false
  ticket: Ticket | null = null
  /** The body's length if known (a file's), else -1. */
  length: i64 = -1
  /** A range: bytes still to skip before it, and to send of it (-1: all). */
  skip: i64 = 0
  left: i64 = -1
  status: i32 = 200

  /** What the stat decided: a file's headers (Accept-Ranges, and its
   *  ETag if it has one), and a range's Content-Range. */
  file: bool = false
  etag: string | null = null
  contentRange: string | null = null

  constructor(
    public id: string,
    public kind: i32,
    public method: string,
  ) {
    super()
  }

  /** Sends only `span` of the `total` bytes, as a 206. */
  range(span: Span, total: i64): void {
    this.skip = span.first
    this.left = span.length
    this.length = span.length
    this.status = 206
    this.contentRange = "bytes " + span.first.toString() + "-" + span.last.toString() + "/" + total.toString()
  }

  /** The part of `b` that is in the range. */
  private cut(b: Payload): Payload {
    const n = <i64>b.data.byteLength
    let from: i64 = 0
    if (this.skip > 0) {
      from = this.skip < n ? this.skip : n
      this.skip -= from
    }
    let to = n
    if (this.left >= 0) {
      if (to - from > this.left) to = from + this.left
      this.left -= to - from
    }
    if (from == 0 && to == n) return b
    return new Payload(b.contentType, b.data.slice(<i32>from, <i32>to))
  }

  /** The answer's payload as response bytes, and their type. */
  private body(p: Payload | null): Payload | null {
    if (p == null) return null
    if (this.kind == LISTING || this.kind == STAT_ONE) {
      const s = StatRecord.fromPayload(p)
      if (s == null) return p
      const type = this.kind == LISTING ? "application/x-ndjson" : "application/json"
      return Payload.text(statJson(s) + "\n", type)
    }
    if (this.kind == EVENTS) {
      // Each line a `data:` line, in one pass: a string grown line by
      // line would make garbage of the square of the lines' count, and
      // this module collects only between deliveries.
      return Payload.text("data: " + p.asText().replaceAll("\n", "\ndata: ") + "\n\n", "text/event-stream")
    }
    return p
  }

  deliver(payload: Payload | null, done: bool): void {
    if (this.finished) return
    let b = this.body(payload)
    if (b != null && (this.skip > 0 || this.left >= 0)) b = this.cut(b)
    if (this.left == 0 && !done) {
      // The range is sent: the rest of the file is not read.
      done = true
      const t = this.ticket
      if (t != null) t.cancel()
    }
    if (done) this.finished = true
    if (!this.started) {
      const res = response(b == null && done && this.status == 200
        ? 204
        : (this.method == "POST" ? 201 : this.status))
      const cache = cacheControl
      if (cache != null) res.headers.push(header("cache-control", cache))
      if (this.file) pushFileHeaders(res.headers, this.etag, this.contentRange)
      if (b != null) {
        res.headers.push(CONTENT_TYPE.of(b.contentType))
        res.body = b.data
      }
      if (!done) {
        res.streamed = new Box<bool>(true)
        if (this.length >= 0) res.length = new Box<i64>(this.length)
        if (b == null && this.kind == EVENTS) {
          res.headers.push(header("content-type", "text/event-stream"))
        }
      }
      this.started = !done
      // A whole response: nothing is left to cancel if its client has gone.
      http.writeExchanges(this.id, res, done ? null : new Written(this))
      res.body = bson.NO_BYTES
      return
    }
    if (b != null && b.data.byteLength > 0) {
      http.writeExchangesBody(this.id, b, new Written(this))
    }
    if (done) http.removeExchanges(this.id, null)
  }

  error(status: Status, description: string): void {
    this.finished = true
    if (this.started) {
      // The status has gone: the body is cut off, so the client never
      // takes the part it has for the whole.
      http.writeExchangesFailed(this.id, status.code + ": " + description, null)
      return
    }
    const code = statusOf(status.errno)
    let allow: string | null = null
    if (status.is(Status.ReadOnly)) allow = "GET, HEAD"
    else if (code == 405) allow = allowedBut(this.method)
    fail(this.id, code, status.code, description, allow)
  }
}

/** A part written to the client; if the client has gone, the request made
 * for it is cancelled. */
class Written extends OnDone {
  constructor(public exchange: Exchange) {
    super()
  }

  error(status: Status, description: string): void {
    const t = this.exchange.ticket
    if (t != null) t.cancel()
  }
}

run(new HttpServer())
