// Small value types the generated code uses.

/** An optional value of a type that cannot be null (`i32`, `bool`, an enum). */
export class Box<T> {
  constructor(public value: T) {}
}

const HEX = "0123456789abcdef"

/** A uuid: 16 bytes, written 8-4-4-4-12 in hex. */
export class Uuid {
  bytes: Uint8Array

  constructor(bytes: Uint8Array | null = null) {
    this.bytes = bytes == null ? new Uint8Array(16) : bytes
  }

  toString(): string {
    let s = ""
    for (let i = 0; i < 16; i++) {
      if (i == 4 || i == 6 || i == 8 || i == 10) s += "-"
      const b = this.bytes[i]
      s += HEX.charAt(b >> 4) + HEX.charAt(b & 15)
    }
    return s
  }

  /** Parses the 8-4-4-4-12 form; null when malformed. */
  static parse(s: string): Uuid | null {
    if (s.length != 36) return null
    const out = new Uint8Array(16)
    let j = 0
    for (let i = 0; i < 36; ) {
      if (i == 8 || i == 13 || i == 18 || i == 23) {
        if (s.charCodeAt(i) != 45) return null
        i++
        continue
      }
      const hi = hexValue(s.charCodeAt(i))
      const lo = hexValue(s.charCodeAt(i + 1))
      if (hi < 0 || lo < 0) return null
      out[j++] = <u8>((hi << 4) | lo)
      i += 2
    }
    return new Uuid(out)
  }
}

function hexValue(c: i32): i32 {
  if (c >= 48 && c <= 57) return c - 48
  if (c >= 97 && c <= 102) return c - 87
  if (c >= 65 && c <= 70) return c - 55
  return -1
}
