// A table of requests by number: the ones this object serves (by request
// id) and the answers it waits for (by ticket). Every request adds one
// entry and removes it again, so the table is built for that: open
// addressing with linear probing, and an entry removed by moving the ones
// after it back (no marker left behind). Once it has its size, adding and
// removing never allocate; the standard Map keeps each removed entry until
// it rebuilds itself, which a module serving requests did every few
// requests (two new buffers each time).

/** The fewest slots; the table doubles when half are used. */
const FIRST_SLOTS = 16

export class NumberTable<V> {
  private keys: StaticArray<i32> = new StaticArray<i32>(FIRST_SLOTS)
  private used: StaticArray<bool> = new StaticArray<bool>(FIRST_SLOTS)
  private values: StaticArray<V> = new StaticArray<V>(FIRST_SLOTS)
  /** log2 of the number of slots. */
  private bits: i32 = 4
  /** Entries in it. */
  size: i32 = 0

  /** Where `key` would be first looked for (Fibonacci hashing: the
   *  consecutive numbers requests get spread over the slots). */
  @inline private home(key: i32): i32 {
    return <i32>((<u32>key * 0x9E3779B9) >>> (32 - this.bits))
  }

  /** The slot holding `key`, or -1. */
  find(key: i32): i32 {
    const mask = (1 << this.bits) - 1
    let i = this.home(key)
    while (unchecked(this.used[i])) {
      if (unchecked(this.keys[i]) == key) return i
      i = (i + 1) & mask
    }
    return -1
  }

  has(key: i32): bool {
    return this.find(key) >= 0
  }

  /** The value in slot `at` (from `find`). */
  at(at: i32): V {
    return unchecked(this.values[at])
  }

  /** `key`'s value, or null when it has none. */
  get(key: i32): V | null {
    const at = this.find(key)
    return at < 0 ? null : unchecked(this.values[at])
  }

  set(key: i32, value: V): void {
    const at = this.find(key)
    if (at >= 0) {
      unchecked(this.values[at] = value)
      return
    }
    if ((this.size + 1) * 2 > (1 << this.bits)) this.grow()
    this.put(key, value)
    this.size++
  }

  delete(key: i32): void {
    const at = this.find(key)
    if (at >= 0) this.removeAt(at)
  }

  /** Empties slot `at` (from `find`); the entries after it that were
   *  pushed past it move back, so every key stays reachable from its home. */
  removeAt(at: i32): void {
    const mask = (1 << this.bits) - 1
    let hole = at
    let i = (at + 1) & mask
    while (unchecked(this.used[i])) {
      const home = this.home(unchecked(this.keys[i]))
      // Whether the entry's home lies cyclically outside (hole, i]: then
      // it was pushed past the hole and moves into it.
      if (((i - home) & mask) >= ((i - hole) & mask)) {
        unchecked(this.keys[hole] = this.keys[i])
        unchecked(this.values[hole] = this.values[i])
        hole = i
      }
      i = (i + 1) & mask
    }
    unchecked(this.used[hole] = false)
    // The value is let go of (its slot no longer keeps it alive).
    unchecked(this.values[hole] = changetype<V>(0))
    this.size--
  }

  /** Into the first free slot from `key`'s home (it is not in the table). */
  private put(key: i32, value: V): void {
    const mask = (1 << this.bits) - 1
    let i = this.home(key)
    while (unchecked(this.used[i])) i = (i + 1) & mask
    unchecked(this.keys[i] = key)
    unchecked(this.used[i] = true)
    unchecked(this.values[i] = value)
  }

  private grow(): void {
    const keys = this.keys
    const used = this.used
    const values = this.values
    this.bits++
    const slots = 1 << this.bits
    this.keys = new StaticArray<i32>(slots)
    this.used = new StaticArray<bool>(slots)
    this.values = new StaticArray<V>(slots)
    for (let i = 0; i < keys.length; i++) {
      if (unchecked(used[i])) this.put(unchecked(keys[i]), unchecked(values[i]))
    }
  }
}
