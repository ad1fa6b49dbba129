// The base of generated servers, and `run`, which makes one the module's.

import { Request } from "./request"
import { Status } from "./payload"

export class Server {
  /** Called once, after the module has started. */
  start(): void {}

  /** Every request for this object. Generated servers route it to a method. */
  serve(req: Request): void {
    req.fail(Status.NotSupported)
  }

  /** A caller cancelled a request this object is serving. */
  cancelled(req: Request): void {}
}

/** The path's segments: `/a/b` → ["a", "b"], `/` → []. */
export function segments(path: string): Array<string> {
  if (path.length <= 1) return new Array<string>()
  return path.substring(1).split("/")
}

/** The rest of a path from segment `from` on, as a path (`/x/y`, or `/`).
 * Joined at once: every request a server routes makes one. */
export function rest(segs: Array<string>, from: i32): string {
  if (from >= segs.length) return "/"
  return "/" + (from == 0 ? segs : segs.slice(from)).join("/")
}

/** `rest(segments(path), 0)` without taking the path apart: a path as
 * delivered is its segments joined (`/a/b`, or `/` for none). */
export function restOf(path: string): string {
  return path.length <= 1 ? "/" : path
}

let current: Server | null = null

/** The module's server: requests for this object go to it. */
export function run(server: Server): void {
  current = server
}

export function theServer(): Server | null {
  return current
}
