import { now } from "./clock";

/**
 * The bounds of a per-isolate cache. Every in-memory cache of Lore is one of these, so each says
 * how much it may hold (a Worker isolate has 128 MB, and most keys come from callers), and all
 * forget the same way: the least recently used entry first.
 */
export interface CacheBounds {
  /** Most entries held. */
  maxEntries: number;
  /**
   * Most total size held, in the unit `set` is given (approximate bytes). An entry larger than
   * this on its own is not kept. None: entries count only against `maxEntries`.
   */
  maxBytes?: number;
  /**
   * How long after it was set an entry may be read (ms of core/clock's time; an entry set "later"
   * than now, after the clock went back, has expired too). None: until it is evicted.
   */
  ttlMs?: number;
}

interface Slot<V> {
  value: V;
  bytes: number;
  at: number;
}

/** A bounded map that forgets its least recently used entries (a Map keeps insertion order: the front is the oldest use). */
export class LruCache<K, V> {
  private readonly items = new Map<K, Slot<V>>();
  private total = 0;

  constructor(readonly bounds: CacheBounds) {
    if (!(bounds.maxEntries >= 1)) throw new Error("LruCache: maxEntries must be at least 1");
  }

  /** The value held for `key`, now the most recently used; undefined when absent or expired. */
  get(key: K): V | undefined {
    const slot = this.items.get(key);
    if (!slot) return undefined;
    if (this.expired(slot)) {
      this.remove(key, slot);
      return undefined;
    }
    this.items.delete(key);
    this.items.set(key, slot);
    return slot.value;
  }

  has(key: K): boolean {
    return this.get(key) !== undefined;
  }

  /** Holds `value` (its size `bytes` against maxBytes), evicting the least recently used past the bounds. */
  set(key: K, value: V, bytes = 0): V {
    const old = this.items.get(key);
    if (old) this.remove(key, old);
    if (this.bounds.maxBytes !== undefined && bytes > this.bounds.maxBytes) return value;
    this.items.set(key, { value, bytes, at: now() });
    this.total += bytes;
    for (const [k, slot] of this.items) {
      if (this.items.size <= this.bounds.maxEntries && (this.bounds.maxBytes === undefined || this.total <= this.bounds.maxBytes)) break;
      this.remove(k, slot);
    }
    return value;
  }

  /**
   * The value held for `key`, or `make()`'s, held from now on (a promise is held as it is: callers
   * share it). `bytes` may be reckoned from the value made.
   */
  getOrSet(key: K, make: () => V, bytes: number | ((value: V) => number) = 0): V {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const value = make();
    return this.set(key, value, typeof bytes === "function" ? bytes(value) : bytes);
  }

  delete(key: K): void {
    const slot = this.items.get(key);
    if (slot) this.remove(key, slot);
  }

  clear(): void {
    this.items.clear();
    this.total = 0;
  }

  /** Entries held (expired ones included until they are read or pushed out). */
  get size(): number {
    return this.items.size;
  }

  /** Total size held, in the unit `set` was given. */
  get bytes(): number {
    return this.total;
  }

  private expired(slot: Slot<V>): boolean {
    if (this.bounds.ttlMs === undefined) return false;
    const t = now();
    return t - slot.at >= this.bounds.ttlMs || t < slot.at;
  }

  private remove(key: K, slot: Slot<V>): void {
    this.items.delete(key);
    this.total -= slot.bytes;
  }
}
