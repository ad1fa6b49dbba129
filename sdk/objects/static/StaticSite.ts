// StaticSite: a web site over the tree of files mounted at /files (book:
// reference/objects.md). A read of a file is forwarded there, so the files
// answer the caller themselves and the bytes never pass through here; `/`
// and directories are their index.html; a directory without one is
// answered with a listing, streamed as HTML as the list comes in.

import { KIND_DIRECTORY, OnPayload, OnStat, Payload, Request, Status, StatRecord, Ticket, Verb, run, send } from "othismo"
import { FilesClient, StaticSiteServer } from "./StaticSite.oth"

const files = new FilesClient("/files")

/** `rest` and a name under it, as a path. */
function under(rest: string, name: string): string {
  return rest == "/" ? "/" + name : rest + "/" + name
}

function escapeHtml(s: string): string {
  return s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll("\"", "&quot;")
}

const UNRESERVED = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
const HEX = "0123456789ABCDEF"

/** A name as one percent-encoded path segment. */
function escapeSegment(s: string): string {
  const bytes = Uint8Array.wrap(String.UTF8.encode(s, false))
  let out = ""
  for (let i = 0; i < bytes.length; i++) {
    const b = <i32>bytes[i]
    if (b < 128 && UNRESERVED.indexOf(String.fromCharCode(b)) >= 0) out += String.fromCharCode(b)
    else out += "%" + HEX.charAt(b >> 4) + HEX.charAt(b & 15)
  }
  return out
}

const HTML = "text/html; charset=utf-8"

/** A path a stat has just found, whether it is a directory, and how many
 * of the stats that found it have not had their read yet. */
class Seen {
  constructor(public rest: string, public directory: bool, public reads: i32) {}
}

/**
 * Paths a stat has just found, the newest last. A web server stats a path
 * just before it reads it (HttpServer does, for the ETag and the length),
 * so the read that follows is forwarded at once if the path is a file, or
 * goes straight to the index if it is a directory, instead of being
 * stat'd again: one request to the files fewer per page. Each stat
 * announces one read, and a busy site has several stats of one path out
 * at once (all stats of a batch of requests come before their reads), so
 * a path counts the reads its stats announced: each read takes one. A
 * later stat that finds nothing there leaves none, and one that finds
 * something else starts the count again: the last stat of a path decides.
 * Should a file have become a directory between that stat and the read,
 * the read fails as a directory read fails (`invalid`): the race every
 * server has between a stat and a read. A directory that has no index by
 * the time of the read is stat'd again, as if it had not been seen.
 */
const recent = new Array<Seen>()
const RECENT = 8
/** The most reads one path counts (stats with no read after them, as a
 * GET's `?stat` is, would count on for ever). */
const READS = 64

/** Where `rest` is in `recent`, or -1. (A path whose reads are all taken
 * stays, with none left, so a busy path's next stat makes nothing new.) */
function find(rest: string): i32 {
  for (let i = recent.length - 1; i >= 0; i--) {
    if (unchecked(recent[i]).rest == rest) return i
  }
  return -1
}

/** `recent[at]` moved to the end, the newest. */
function renew(at: i32): Seen {
  const seen = unchecked(recent[at])
  const last = recent.length - 1
  for (let i = at; i < last; i++) unchecked(recent[i] = recent[i + 1])
  unchecked(recent[last] = seen)
  return seen
}

function remember(rest: string, directory: bool): void {
  const at = find(rest)
  if (at >= 0) {
    const seen = renew(at)
    if (seen.directory == directory) {
      if (seen.reads < READS) seen.reads++
    } else {
      seen.directory = directory
      seen.reads = 1
    }
    return
  }
  if (recent.length < RECENT) {
    recent.push(new Seen(rest, directory, 1))
    return
  }
  // The oldest makes way (its object is reused).
  const seen = renew(0)
  seen.rest = rest
  seen.directory = directory
  seen.reads = 1
}

/** `rest` as it was just stat'd, if it was and a read is left: one of its
 * reads is taken. */
function take(rest: string): Seen | null {
  const at = find(rest)
  if (at < 0) return null
  const seen = unchecked(recent[at])
  if (seen.reads == 0) return null
  seen.reads--
  return seen
}

/** A stat found nothing at `rest` (or failed): no read is announced. */
function forget(rest: string): void {
  const at = find(rest)
  if (at >= 0) unchecked(recent[at]).reads = 0
}

class StaticSite extends StaticSiteServer {
  read(req: Request, rest: string): void {
    const seen = take(rest)
    if (seen == null) files.stat(rest, new Found(req, rest))
    else if (seen.directory) files.stat(under(rest, "index.html"), new Index(req, rest, true))
    else req.forward(files.at(rest))
  }

  stat(req: Request, rest: string): void {
    // Sent as it is (not through the client, which decodes the answer) so
    // the record is passed on as the files wrote it.
    send(Verb.Stat, files.at(rest), null, new Relayed(req, rest))
  }

  list(req: Request, rest: string): void {
    req.forward(files.at(rest))
  }
}

/** A stat's answer, passed on as it came, and remembered. */
class Relayed extends OnPayload {
  constructor(public req: Request, public rest: string) {
    super()
  }

  payload(p: Payload | null, done: bool): void {
    const kind = p != null ? StatRecord.kindIn(p) : -1
    if (kind >= 0) remember(this.rest, kind == KIND_DIRECTORY)
    else forget(this.rest)
    this.req.answer(p, done)
  }

  error(status: Status, description: string): void {
    forget(this.rest)
    this.req.fail(status, description)
  }
}

/** What a read names: a file is forwarded, a directory has an index. */
class Found extends OnStat {
  constructor(public req: Request, public rest: string) {
    super()
  }

  stat(s: StatRecord, done: bool): void {
    if (!s.isDirectory()) {
      this.req.forward(files.at(this.rest))
      return
    }
    files.stat(under(this.rest, "index.html"), new Index(this.req, this.rest, false))
  }

  error(status: Status, description: string): void {
    this.req.fail(status, description)
  }
}

/** A directory's index.html, if it has one; a listing if not. `seen`: the
 * directory was remembered from a stat, not stat'd for this read. */
class Index extends OnStat {
  constructor(public req: Request, public rest: string, public seen: bool) {
    super()
  }

  stat(s: StatRecord, done: bool): void {
    if (s.isDirectory()) listing(this.req, this.rest)
    else this.req.forward(files.at(under(this.rest, "index.html")))
  }

  error(status: Status, description: string): void {
    // Whatever the path is now, found again as for a read not announced.
    if (this.seen) files.stat(this.rest, new Found(this.req, this.rest))
    else if (status.is(Status.NotFound)) listing(this.req, this.rest)
    else this.req.fail(status, description)
  }
}

function listing(req: Request, rest: string): void {
  const title = escapeHtml(rest)
  req.answerText(
    "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>" + title + "</title></head>\n"
      + "<body><h1>" + title + "</h1>\n<ul>\n",
    false,
    HTML,
  )
  const entries = new Entries(req, rest)
  entries.ticket = files.list(rest, entries)
}

/** Each entry of a directory without an index, as a line of the listing. */
class Entries extends OnStat {
  /** The listing asked of the files: cancelled once nobody wants the rest. */
  ticket: Ticket | null = null

  constructor(public req: Request, public rest: string) {
    super()
  }

  stat(s: StatRecord, done: bool): void {
    if (this.req.finished) {
      // Its caller cancelled (its client left): a big directory's listing
      // would otherwise be read to its end for nobody.
      const t = this.ticket
      if (t != null && !done) t.cancel()
      return
    }
    const slash = s.isDirectory() ? "/" : ""
    const href = (this.rest == "/" ? "" : this.rest.split("/").map<string>((p: string) => escapeSegment(p)).join("/"))
      + "/" + escapeSegment(s.name) + slash
    this.req.answerText("<li><a href=\"" + href + "\">" + escapeHtml(s.name) + slash + "</a></li>\n", false, HTML)
    if (done) this.finished()
  }

  finished(): void {
    this.req.answerText("</ul>\n</body></html>\n", true, HTML)
  }

  error(status: Status, description: string): void {
    this.req.answerText("</ul>\n<p>" + escapeHtml(status.code + ": " + description) + "</p>\n</body></html>\n", true, HTML)
  }
}

run(new StaticSite())
