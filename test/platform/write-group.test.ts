import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:test";
import { call, newAgent } from "../helpers";
import { GROUP_MAX, groupedWrite } from "../../src/core/write-group";
import type { Env } from "../../src/env";

const E = env as unknown as Env;

/**
 * core/write-group.ts: the activity feed's rows, written in batches while a batch is in flight.
 * Real local D1; what must hold is that every row lands (or its own caller hears why), whatever
 * the grouping did.
 */
describe("grouped background writes", () => {
  const table = `wg_${Date.now()}`;
  const insert = (id: string) => E.DB.prepare(`INSERT INTO ${table} (id) VALUES (?1)`).bind(id);
  const stored = async () => (await E.DB.prepare(`SELECT id FROM ${table} ORDER BY id`).all<{ id: string }>()).results.map((r) => r.id);

  it("many concurrent rows all land, more than one batch's worth", async () => {
    await E.DB.prepare(`CREATE TABLE ${table} (id TEXT PRIMARY KEY)`).run();
    const ids = Array.from({ length: GROUP_MAX * 2 + 7 }, (_, i) => `r${String(i).padStart(4, "0")}`);
    // The real binding, with its round trips counted.
    let trips = 0;
    const db = new Proxy(E.DB, {
      get(target, p) {
        const v = Reflect.get(target, p);
        if (p === "batch") return (...a: Parameters<D1Database["batch"]>) => (trips++, target.batch(...a));
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
    const failed: unknown[] = [];
    await Promise.all(ids.map((id) => groupedWrite(db, insert(id), (e) => failed.push(e))));
    expect(failed).toEqual([]);
    expect(await stored()).toEqual(ids);
    // The first row goes alone (.run), the rest wait for it and go GROUP_MAX at a time.
    expect(trips).toBe(Math.ceil((ids.length - 1) / GROUP_MAX));
  });

  it("a bad row fails alone: its error is reported, the rows batched with it are stored", async () => {
    await E.DB.prepare(`DELETE FROM ${table}`).run();
    const errors: string[] = [];
    const onError = (id: string) => (e: unknown) => errors.push(`${id}: ${String(e).slice(0, 40)}`);
    await groupedWrite(E.DB, insert("dup"), onError("first"));
    // The first call leads: its promise is the work, and the three after it join the same lead.
    const all = ["a1", "dup", "a2", "a3"].map((id) => groupedWrite(E.DB, insert(id), onError(id)));
    await Promise.all(all);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^dup: /);
    expect(await stored()).toEqual(["a1", "a2", "a3", "dup"]);
    // The lead is free again: a later row leads and is written.
    await groupedWrite(E.DB, insert("z9"), onError("z9"));
    expect(await stored()).toContain("z9");
  });

  it("concurrent agent actions each get their feed entry", async () => {
    const a = await newAgent();
    const n = 12;
    const posts = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        call("POST", "/v1/chat/rooms/general/messages", { key: a.key, body: { content: `grouped feed ${i}` } }),
      ),
    );
    expect(posts.map((p) => p.status)).toEqual(Array(n).fill(201));
    let items: { kind: string; summary: string }[] = [];
    await vi.waitFor(async () => {
      items = (await call("GET", `/v1/me/activity?perPage=50`, { token: a.owner.token })).body.items;
      expect(items).toHaveLength(n);
    });
    expect(new Set(items.map((i) => i.kind))).toEqual(new Set(["CHAT_MESSAGE"]));
  });
});
