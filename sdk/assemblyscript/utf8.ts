// UTF-8 to and from strings with a fast way for ASCII, four characters at
// a time: nearly every string a module is handed or writes (paths, header
// names and values, content types, BSON keys) is ASCII, where the standard
// library's encoder and decoder go a character at a time through every
// branch of UTF-8. Anything else still goes through them, so the result is
// the same either way.

/** The `len` UTF-8 bytes at `at` as a string. */
export function utf8String(at: usize, len: i32): string {
  if (len <= 0) return ""
  const s = __new(<usize>len << 1, idof<string>())
  let i = 0
  for (; i + 4 <= len; i += 4) {
    const b = load<u32>(at + <usize>i)
    if ((b & 0x80808080) != 0) return String.UTF8.decodeUnsafe(at, <usize>len, false)
    store<u64>(s + (<usize>i << 1), widen(b))
  }
  for (; i < len; i++) {
    const b = load<u8>(at + <usize>i)
    if (b >= 0x80) return String.UTF8.decodeUnsafe(at, <usize>len, false)
    store<u16>(s + (<usize>i << 1), <u16>b)
  }
  // Nothing allocated since `s`: the collector cannot have taken it.
  return changetype<string>(s)
}

/** Four ASCII bytes as four UTF-16 units. */
// @ts-ignore: decorator
@inline function widen(b: u32): u64 {
  const w = <u64>b
  return (w & 0xff) | ((w & 0xff00) << 8) | ((w & 0xff0000) << 16) | ((w & 0xff000000) << 24)
}

/** Copies the leading ASCII units of the `n` at `src` to `dst` as bytes,
 *  up to the first that is not ASCII; returns how many it copied. */
export function asciiInto(src: usize, n: i32, dst: usize): i32 {
  let i = 0
  for (; i + 4 <= n; i += 4) {
    const w = load<u64>(src + (<usize>i << 1))
    if ((w & 0xff80ff80ff80ff80) != 0) break
    store<u32>(dst + <usize>i, <u32>((w & 0xff) | ((w >> 8) & 0xff00) | ((w >> 16) & 0xff0000) | ((w >> 24) & 0xff000000)))
  }
  for (; i < n; i++) {
    const c = load<u16>(src + (<usize>i << 1))
    if (c >= 0x80) break
    store<u8>(dst + <usize>i, <u8>c)
  }
  return i
}

/** `n` UTF-16 units at `src` as UTF-8 at `dst`, which has room for them
 *  (at most 3 bytes a unit); returns the bytes written. */
export function utf8Into(src: usize, n: i32, dst: usize): i32 {
  const i = asciiInto(src, n, dst)
  if (i == n) return n
  return i + <i32>String.UTF8.encodeUnsafe(src + (<usize>i << 1), n - i, dst + <usize>i, false)
}
