// Stat records (book: reference/wire.md): `name[s] kind[1] length[8] type[s] version[8]`,
// little-endian, where [s] is a u16 byte length then UTF-8 bytes.

import { Payload, STAT_TYPE } from "./payload"
import { utf8String } from "./utf8"

export const STAT: string = STAT_TYPE

export const KIND_FILE: u8 = 0
export const KIND_DIRECTORY: u8 = 1

export class StatRecord {
  constructor(
    public name: string = "",
    public kind: u8 = KIND_FILE,
    public length: i64 = 0,
    public type: string = "",
    public version: i64 = 0,
  ) {}

  isDirectory(): bool {
    return this.kind == KIND_DIRECTORY
  }

  toPayload(): Payload {
    const name = String.UTF8.encode(this.name, false)
    const type = String.UTF8.encode(this.type, false)
    const out = new ArrayBuffer(2 + name.byteLength + 1 + 8 + 2 + type.byteLength + 8)
    const p = changetype<usize>(out)
    let at: usize = 0
    store<u16>(p + at, <u16>name.byteLength)
    at += 2
    memory.copy(p + at, changetype<usize>(name), <usize>name.byteLength)
    at += <usize>name.byteLength
    store<u8>(p + at, this.kind)
    at += 1
    store<i64>(p + at, this.length)
    at += 8
    store<u16>(p + at, <u16>type.byteLength)
    at += 2
    memory.copy(p + at, changetype<usize>(type), <usize>type.byteLength)
    at += <usize>type.byteLength
    store<i64>(p + at, this.version)
    return new Payload(STAT, out)
  }

  /** The kind of the stat record a payload holds (`KIND_FILE` or
   *  `KIND_DIRECTORY`), without reading the rest into strings; -1 when the
   *  payload is not one (exactly when `fromPayload` is null). */
  static kindIn(payload: Payload): i32 {
    if (payload.mediaType() != STAT) return -1
    const data = payload.data
    const n = data.byteLength
    const p = changetype<usize>(data)
    if (n < 2) return -1
    const at = 2 + <i32>load<u16>(p)
    if (at + 1 + 8 + 2 > n) return -1
    const kind = load<u8>(p + <usize>at)
    if (kind > 1) return -1
    const typeLen = <i32>load<u16>(p + <usize>(at + 1 + 8))
    if (at + 1 + 8 + 2 + typeLen + 8 != n) return -1
    return <i32>kind
  }

  /** Reads a stat record; null when the payload is not one. */
  static fromPayload(payload: Payload): StatRecord | null {
    if (StatRecord.kindIn(payload) < 0) return null
    const p = changetype<usize>(payload.data)
    const nameLen = <i32>load<u16>(p)
    let at = 2 + nameLen
    const name = utf8String(p + 2, nameLen)
    const kind = load<u8>(p + <usize>at)
    at += 1
    const length = load<i64>(p + <usize>at)
    at += 8
    const typeLen = <i32>load<u16>(p + <usize>at)
    at += 2
    const type = utf8String(p + <usize>at, typeLen)
    at += typeLen
    const version = load<i64>(p + <usize>at)
    return new StatRecord(name, kind, length, type, version)
  }
}
