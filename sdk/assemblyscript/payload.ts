// Payloads (a content type and bytes) and statuses (an errno and a code).

/** The content types the SDK itself makes and checks: BSON messages and
 *  stat records. One string each, which the host module's kept types
 *  (`typeOf`) are made to be, so checking a payload against one of them
 *  compares no characters. */
export const BSON_TYPE: string = "application/bson"
export const STAT_TYPE: string = "application/x-othismo-stat"

/** `t` if it is one of the SDK's own types, else null. */
export function ownType(t: string): string | null {
  if (t == BSON_TYPE) return BSON_TYPE
  if (t == STAT_TYPE) return STAT_TYPE
  return null
}

/** A content type and its bytes. One whose type the module doesn't know can be passed on unchanged. */
export class Payload {
  constructor(public contentType: string, public data: ArrayBuffer) {}

  /** A text payload: the string's UTF-8 bytes. */
  static text(s: string, contentType: string = "text/plain"): Payload {
    return new Payload(contentType, String.UTF8.encode(s, false))
  }

  /** The bytes read as UTF-8 text. */
  asText(): string {
    return String.UTF8.decode(this.data, false)
  }

  /** The type and subtype, lower case, without parameters: `text/plain`. */
  mediaType(): string {
    // Most types are that already (no parameters, spaces or capitals):
    // the same string, with nothing allocated.
    const t = this.contentType
    const at = changetype<usize>(t)
    if (at == changetype<usize>(BSON_TYPE) || at == changetype<usize>(STAT_TYPE)) return t
    let plain = true
    for (let i = 0; i < t.length; i++) {
      const c = <i32>load<u16>(at + (<usize>i << 1))
      if (c == 59 || c == 32 || c == 9 || (c >= 65 && c <= 90)) {
        plain = false
        break
      }
    }
    if (plain) return t
    const semi = t.indexOf(";")
    const base = semi < 0 ? t : t.substring(0, semi)
    return base.trim().toLowerCase()
  }

  // Whether this payload is of `pattern`: any (`*` over `*`), a whole
  // type (`text/` then `*`), or exactly one (`text/plain`).
  isOf(pattern: string): bool {
    const want = pattern.toLowerCase()
    if (want == "*/*") return true
    const have = this.mediaType()
    if (want.endsWith("/*")) return have.startsWith(want.substring(0, want.length - 1))
    const semi = want.indexOf(";")
    return have == (semi < 0 ? want : want.substring(0, semi).trim())
  }
}

/** An error: an errno (what programs compare) and a snake_case code. */
export class Status {
  constructor(public errno: i32, public code: string) {}

  /** Statuses compare by errno. */
  is(other: Status): bool {
    return this.errno == other.errno
  }

  static NotFound: Status = new Status(1, "not_found")
  static NotSupported: Status = new Status(2, "not_supported")
  static ReadOnly: Status = new Status(3, "read_only")
  static Invalid: Status = new Status(4, "invalid")
  static Forbidden: Status = new Status(5, "forbidden")
  static UnsupportedType: Status = new Status(6, "unsupported_type")
  static Exists: Status = new Status(7, "exists")
  static NotEmpty: Status = new Status(8, "not_empty")
  static TooLarge: Status = new Status(9, "too_large")
  static Unavailable: Status = new Status(10, "unavailable")

  /** The runtime's status for an errno, or an unnamed one. */
  static of(errno: i32, code: string): Status {
    return new Status(errno, code)
  }
}
