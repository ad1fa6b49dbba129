// A `Map`'s entries walked in insertion order without the arrays that
// `keys()` and `values()` allocate (and without hashing each key again to
// `get` its value): what the generated map writers do for every map they
// encode. This reads the standard library's `Map` layout, as of the
// AssemblyScript release othc installs (0.28): its fields, and its entries
// stored inline, a deleted one flagged in the low bit of its last word.
// The codec tests encode maps with entries replaced and deleted, against
// the Rust `bson` crate: a change of layout fails them.

// `Map<K,V>`'s fields, in order (each 4 bytes in wasm32).
@unmanaged class MapLayout {
  buckets: usize
  bucketsMask: u32
  entries: usize
  entriesCapacity: i32
  entriesOffset: i32
  entriesCount: i32
}

// `MapEntry<K,V>`: the key, the value, and the next entry of its bucket
// with the deleted flag in bit 0.
@unmanaged class EntryLayout<K, V> {
  key: K
  value: V
  taggedNext: usize
}

/** An entry's size in `Map`'s storage: aligned to its widest part. */
@inline function entrySize<K, V>(): usize {
  const kv = sizeof<K>() > sizeof<V>() ? sizeof<K>() : sizeof<V>()
  const align = (kv > sizeof<usize>() ? kv : sizeof<usize>()) - 1
  return (offsetof<EntryLayout<K, V>>() + align) & ~align
}

/** How many entry slots `m` has used, deleted ones included: the indices
 *  `mapEntry` takes. */
@inline export function mapSlots<K, V>(m: Map<K, V>): i32 {
  return changetype<MapLayout>(m).entriesOffset
}

/** The entry in slot `i` of `m`, or 0 when it was deleted. */
@inline export function mapEntry<K, V>(m: Map<K, V>, i: i32): usize {
  const e = changetype<MapLayout>(m).entries + <usize>i * entrySize<K, V>()
  return changetype<EntryLayout<K, V>>(e).taggedNext & 1 ? 0 : e
}

/** The key of entry `e` (from `mapEntry`). */
@inline export function entryKey<K, V>(e: usize): K {
  return changetype<EntryLayout<K, V>>(e).key
}

/** The value of entry `e` (from `mapEntry`). */
@inline export function entryValue<K, V>(e: usize): V {
  return changetype<EntryLayout<K, V>>(e).value
}
