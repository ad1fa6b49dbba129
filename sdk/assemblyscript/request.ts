// Requests: the ones this object serves (Request), and the ones it sends
// (Ticket, and the table of answers it is waiting for).

import { hostAnswer, hostCancel, hostFail, hostForward, hostRequest, sendable, typeBytes, utf8, FLAG_OPERATOR } from "./abi"
import { Payload, Status } from "./payload"
import { Answers } from "./callbacks"
import { NumberTable } from "./table"

/**
 * Requests this object is serving and has not finished, by id, so a cancel
 * can reach them. A request leaves it when it finishes (its last answer, an
 * error, a forward, or its caller's cancel): nothing stays behind per request.
 */
export const serving = new NumberTable<Request>()

/** No more answers for `req`: it is finished, and forgotten by the table
 * of requests being served. (Not on `Request`: only the SDK calls it.) */
export function finish(req: Request): void {
  req.finished = true
  serving.delete(req.id)
}

/** A request this object is serving. Answer it once, or several times for a stream. */
export class Request {
  /** Set once the last answer (or an error) has gone. */
  finished: bool = false

  constructor(
    public id: i32,
    public verb: i32,
    public flags: i32,
    public path: string,
    public payload: Payload | null,
  ) {}

  /** Whether the operator (the image's startup requests) sent it. */
  get isOperator(): bool {
    return (this.flags & FLAG_OPERATOR) != 0
  }

  /** Answers with a payload; `done` (the default) makes it the last answer. */
  answer(payload: Payload | null, done: bool = true): void {
    if (this.finished) return
    if (done) finish(this)
    if (payload == null) {
      hostAnswer(this.id, done ? 1 : 0, 0, 0, 0, 0)
      return
    }
    const type = typeBytes(payload.contentType)
    hostAnswer(
      this.id,
      done ? 1 : 0,
      changetype<usize>(type),
      type.byteLength,
      changetype<usize>(payload.data),
      payload.data.byteLength,
    )
  }

  /** Answers with text (`text/plain` unless said otherwise). */
  answerText(text: string, done: bool = true, contentType: string = "text/plain"): void {
    this.answer(Payload.text(text, contentType), done)
  }

  /** The last answer, with no payload. */
  end(): void {
    this.answer(null, true)
  }

  /** Fails the request: its last answer is this error. */
  fail(status: Status, description: string = ""): void {
    if (this.finished) return
    finish(this)
    const code = utf8(status.code)
    const desc = utf8(description)
    hostFail(this.id, status.errno, changetype<usize>(code), code.byteLength, changetype<usize>(desc), desc.byteLength)
  }

  /** Hands the request to a path in this object's view; its answers go straight to the caller. */
  forward(path: string): void {
    if (this.finished) return
    finish(this)
    const p = sendable(path)
    hostForward(this.id, p.ptr, p.len)
  }
}

/** A request this object sent: cancel it to stop its answers. */
export class Ticket {
  constructor(public id: i32) {}

  cancel(): void {
    const at = pending.find(this.id)
    if (at >= 0) {
      pending.removeAt(at)
      hostCancel(this.id)
    }
  }
}

/** The answers this object is waiting for, by ticket. */
export const pending = new NumberTable<Answers | null>()

/** Sends a request; its answers go to `answers` (or nowhere, when null). */
export function send(verb: i32, path: string, payload: Payload | null, answers: Answers | null): Ticket {
  const p = sendable(path)
  let ticket: i32
  if (payload == null) {
    ticket = hostRequest(verb, p.ptr, p.len, 0, 0, 0, 0)
  } else {
    // (Making a type's bytes allocates; it never writes the scratch region.)
    const type = typeBytes(payload.contentType)
    ticket = hostRequest(
      verb,
      p.ptr,
      p.len,
      changetype<usize>(type),
      type.byteLength,
      changetype<usize>(payload.data),
      payload.data.byteLength,
    )
  }
  pending.set(ticket, answers)
  return new Ticket(ticket)
}
