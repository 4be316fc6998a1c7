import { describe, expect, it } from "vitest";
import { LruCache } from "../../src/core/cache";
import { setClock } from "../../src/core/clock";

describe("LruCache: the one in-memory cache (entries, bytes, time; least recently used goes first)", () => {
  it("holds at most maxEntries, forgetting the least recently used", () => {
    const c = new LruCache<string, number>({ maxEntries: 3 });
    c.set("a", 1);
    c.set("b", 2);
    c.set("c", 3);
    // Reading "a" makes "b" the least recently used.
    expect(c.get("a")).toBe(1);
    c.set("d", 4);
    expect(c.size).toBe(3);
    expect(c.get("b")).toBeUndefined();
    expect([c.get("a"), c.get("c"), c.get("d")]).toEqual([1, 3, 4]);
  });

  it("setting a held key again replaces it and makes it the most recent, without growing", () => {
    const c = new LruCache<string, string>({ maxEntries: 2, maxBytes: 10 });
    c.set("a", "x", 4);
    c.set("b", "y", 4);
    c.set("a", "z", 6);
    expect(c.size).toBe(2);
    expect(c.bytes).toBe(10);
    c.set("c", "w", 1);
    expect(c.get("b")).toBeUndefined();
    expect(c.get("a")).toBe("z");
    expect(c.bytes).toBe(7);
  });

  it("holds at most maxBytes, evicting from the least recently used; an entry larger than the bound is not kept", () => {
    const c = new LruCache<string, string>({ maxEntries: 100, maxBytes: 100 });
    c.set("a", "A", 40);
    c.set("b", "B", 40);
    c.get("a");
    c.set("c", "C", 40);
    expect(c.get("b")).toBeUndefined();
    expect(c.bytes).toBe(80);
    expect(c.set("huge", "H", 101)).toBe("H");
    expect(c.get("huge")).toBeUndefined();
    // The refused entry pushed nothing out.
    expect([c.get("a"), c.get("c")]).toEqual(["A", "C"]);
    c.delete("a");
    expect(c.bytes).toBe(40);
    c.clear();
    expect([c.size, c.bytes]).toEqual([0, 0]);
  });

  it("an entry past ttlMs (or set after a clock that went back) reads as absent and is dropped", () => {
    let t = 1_000_000;
    setClock(() => t);
    const c = new LruCache<string, number>({ maxEntries: 10, ttlMs: 5_000, maxBytes: 50 });
    c.set("a", 1, 10);
    t += 4_999;
    expect(c.get("a")).toBe(1);
    t += 1;
    expect(c.get("a")).toBeUndefined();
    expect([c.size, c.bytes]).toEqual([0, 0]);
    c.set("b", 2);
    t -= 1;
    expect(c.has("b")).toBe(false);
  });

  it("getOrSet makes a value once and shares it (a promise is shared by concurrent callers)", async () => {
    const c = new LruCache<string, Promise<number>>({ maxEntries: 2 });
    let made = 0;
    const make = () => Promise.resolve(++made);
    const [x, y] = await Promise.all([c.getOrSet("k", make), c.getOrSet("k", make)]);
    expect([x, y, made]).toEqual([1, 1, 1]);
  });

  it("refuses a bound that holds nothing", () => {
    expect(() => new LruCache({ maxEntries: 0 })).toThrow();
  });
});
