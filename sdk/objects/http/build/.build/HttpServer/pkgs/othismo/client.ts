// The base of generated clients: a mount point and a way to send through it.

import { Payload } from "./payload"
import { Answers } from "./callbacks"
import { send, Ticket } from "./request"

export class Client {
  /** `mount`: where in this object's view the need is mounted (`/dev/cons`). */
  constructor(public mount: string) {}

  /** The full path of `path` (relative to the mount point, `/` for the point itself). */
  at(path: string): string {
    if (path == "/") return this.mount
    if (this.mount == "/") return path
    return this.mount + path
  }

  request(verb: i32, path: string, payload: Payload | null, answers: Answers | null): Ticket {
    return send(verb, this.at(path), payload, answers)
  }
}
