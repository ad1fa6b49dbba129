// The base of generated clients: a mount point and a way to send through it.

import { Payload } from "./payload"
import { Answers } from "./callbacks"
import { send, Ticket } from "./request"

export class Client {
  /** The last path made full, and what it made: a server often sends the
   *  same path twice in a row (a stat, then the read it announces), and
   *  the second is that string again, not a new one. */
  private lastPath: string = ""
  private lastFull: string
  /** The mount point `lastFull` was made with (`mount` can be changed). */
  private lastMount: string

  /** `mount`: where in this object's view the need is mounted (`/dev/cons`). */
  constructor(public mount: string) {
    this.lastFull = mount
    this.lastMount = mount
  }

  /** The full path of `path` (relative to the mount point, `/` for the point itself). */
  at(path: string): string {
    if (path == "/") return this.mount
    if (this.mount == "/") return path
    if (path == this.lastPath && this.mount === this.lastMount) return this.lastFull
    const full = this.mount + path
    this.lastPath = path
    this.lastFull = full
    this.lastMount = this.mount
    return full
  }

  request(verb: i32, path: string, payload: Payload | null, answers: Answers | null): Ticket {
    return send(verb, this.at(path), payload, answers)
  }
}
