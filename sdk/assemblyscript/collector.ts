// Collecting between deliveries (book: reference/collectors.md). A module
// built with AssemblyScript's `minimal` runtime has no shadow stack and no
// write barriers, so its code runs faster; its collector cannot see the
// locals of running code, so it runs only when none is running: at the end
// of a delivery (every export the host calls, but `othismo_alloc` and
// `othismo_scratch`). This file decides at which ends. A module built with
// the `incremental` runtime collects as it allocates and never calls here.

import { Runtime } from "~lib/shared/runtime"
import { ROOT } from "~lib/rt/tlsf"

// The allocator's layout, read to measure the heap after and before a
// collection: its root (a bitmap of first levels, one of second levels
// per first level, the heads of the free lists), and a block's header (its
// size, with two flags in the low bits) and free-list link.
// Layout checked with assemblyscript 0.28.20.
const FL_BITS: u32 = 23
const SL_SIZE: u32 = 16
const SL_START: usize = 4
const HL_START: usize = 96
const ROOT_SIZE: usize = HL_START + FL_BITS * SL_SIZE * 4 + 4
const BLOCK_OVERHEAD: usize = 4
const SIZE_MASK: usize = ~3
const NEXT_FREE: usize = 8

/** The garbage allowed to build up between collections, at least: a
 *  module with little live data collects every this many bytes of it. */
const LEAST_GARBAGE: usize = 256 << 10
/** Collections are at most this many deliveries apart. */
const MOST_DELIVERIES: usize = 1 << 16

/** Deliveries ended since the last collection. */
let sinceCollected: usize = 0
/** Deliveries between collections, from the garbage each made lately. */
let every: usize = 1
/** The memory's pages after the last collection: more means the
 *  allocator ran out of room, and garbage is collected at once. */
let pagesCollected: i32 = 0
/** The size class of the largest free block after the last collection. */
let roomCollected: i32 = -1
/** The size class of a block of `LEAST_GARBAGE` bytes (the allocator's
 *  first level: 31 - clz(size) - 7 from 256 bytes up, each class twice the
 *  one below). A heap whose largest free block after a collection is of
 *  this class or below is left to grow to hold that much garbage: for it, a
 *  shrinking largest block is no sign of anything. */
const ROOM_LEAST: i32 = 31 - <i32>clz(<u32>LEAST_GARBAGE) - 7

/** The size class of the largest free block (the first level of the
 *  allocator's free lists, each twice the one below), -1 if none: one
 *  load, to see at the end of every delivery whether the room left after
 *  the last collection is being used up faster than foreseen (a module
 *  that makes much more garbage than it did). */
function largestRoom(): i32 {
  const root = changetype<usize>(ROOT)
  return root == 0 ? -1 : 31 - <i32>clz(load<u32>(root))
}

/** Bytes in the allocator's free lists. */
function freeBytes(): usize {
  const root = changetype<usize>(ROOT)
  if (root == 0) return 0
  let free: usize = 0
  let firsts = load<u32>(root)
  while (firsts != 0) {
    const fl = ctz(firsts)
    firsts &= firsts - 1
    let seconds = load<u32>(root + SL_START + (<usize>fl << 2))
    while (seconds != 0) {
      const sl = ctz(seconds)
      seconds &= seconds - 1
      let block = load<usize>(root + ((<usize>(fl * SL_SIZE + sl)) << 2), HL_START)
      while (block != 0) {
        free += (load<usize>(block) & SIZE_MASK) + BLOCK_OVERHEAD
        block = load<usize>(block, NEXT_FREE)
      }
    }
  }
  return free
}

/** Bytes of the heap in use (live, or garbage not yet collected). */
function usedBytes(): usize {
  const root = changetype<usize>(ROOT)
  if (root == 0) return 0
  return (<usize>memory.size() << 16) - (root + ROOT_SIZE) - freeBytes()
}

/** Called at the end of every delivery. */
export function delivered(): void {
  if (ASC_RUNTIME != Runtime.Minimal) return
  sinceCollected++
  if (
    sinceCollected >= every || memory.size() != pagesCollected ||
    (roomCollected > ROOM_LEAST && largestRoom() + 2 <= roomCollected)
  ) {
    collect()
  }
}

/** Collects, then sets the deliveries until the next collection so that
 *  the garbage made meanwhile is about as much as what survived (at least
 *  `LEAST_GARBAGE`): the work of a collection (marking what survives,
 *  freeing the rest) is then paid for by the allocations between two, as
 *  with the incremental collector, and memory stays within about twice
 *  what is live. */
function collect(): void {
  const before = usedBytes()
  __collect()
  const live = usedBytes()
  const garbage = before > live ? before - live : 0
  const each = max(garbage / sinceCollected, 1)
  every = min(max(max(live, LEAST_GARBAGE) / each, 1), MOST_DELIVERIES)
  sinceCollected = 0
  pagesCollected = memory.size()
  roomCollected = largestRoom()
}
