// What a request's answers are delivered to. AssemblyScript closures cannot
// capture, so callbacks are classes: extend one and override its methods.

import { Payload, Status } from "./payload"
import { StatRecord } from "./stat"
import { decode, fromPayload, Message } from "./bson"

/** The base of every callback: answers come to `deliver`, an error to `error`. */
export class Answers {
  /** An answer (null: none); `done` on the last. The subclasses decode it. */
  deliver(payload: Payload | null, done: bool): void {}

  /** The request failed (always the last thing delivered). */
  error(status: Status, description: string): void {}
}

/** For requests whose answers carry nothing: `done()` once the last arrives. */
export class OnDone extends Answers {
  deliver(payload: Payload | null, done: bool): void {
    if (done) this.done()
  }

  done(): void {}
}

/** Answers as payloads, whatever their type. */
export class OnPayload extends Answers {
  deliver(payload: Payload | null, done: bool): void {
    this.payload(payload, done)
  }

  payload(payload: Payload | null, done: bool): void {}
}

/** Answers as text (UTF-8). A last answer with no payload gives "". */
export class OnText extends Answers {
  deliver(payload: Payload | null, done: bool): void {
    if (payload == null) {
      if (done) this.finished()
      return
    }
    this.text(payload.asText(), done)
  }

  text(text: string, done: bool): void {}

  /** The stream ended without a last payload. */
  finished(): void {}
}

/** Answers that are stat records (stat, list, create). */
export class OnStat extends Answers {
  deliver(payload: Payload | null, done: bool): void {
    if (payload == null) {
      if (done) this.finished()
      return
    }
    const s = StatRecord.fromPayload(payload)
    if (s == null) this.error(Status.Invalid, "the answer is not a stat record")
    else this.stat(s, done)
  }

  stat(record: StatRecord, done: bool): void {}

  finished(): void {}
}

/**
 * Answers that are messages. Generated clients pass the message class's
 * decoder; a payload that does not decode to `T` is an `invalid` error.
 */
export class OnMessage<T> extends Answers {
  deliver(payload: Payload | null, done: bool): void {
    if (payload == null) {
      if (done) this.finished()
      return
    }
    // Decoded as `T` at once: its shape is found by class id and `$type`
    // compared where it lies, where decoding any message looks its type
    // name up in a map (hashed twice) and checks the class after.
    const m = idof<T>() == idof<Message>() ? changetype<T>(decode(payload)) : fromPayload<T>(payload)
    if (m == null) {
      this.error(Status.Invalid, "the answer is not the expected message")
      return
    }
    this.message(m, done)
  }

  message(message: T, done: bool): void {}

  finished(): void {}
}

/** Answers as decoded messages of any type. */
export class OnAnyMessage extends Answers {
  deliver(payload: Payload | null, done: bool): void {
    if (payload == null) {
      if (done) this.finished()
      return
    }
    const m = decode(payload)
    if (m == null) this.error(Status.Invalid, "the answer is not a BSON message")
    else this.message(m, done)
  }

  message(message: Message, done: bool): void {}

  finished(): void {}
}
