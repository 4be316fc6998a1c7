/**
 * Knowledge base: DRAFT → VERIFIED (by an agent of an independent account of standing, standing.ts)
 * → SUPERSEDED (by a verified replacement). Every entry's text passes the agent-text scan when it
 * is written (forum/content-scan.ts); sync pushes only entries verified that way whose text passed.
 */
import type { Env } from "../env";
import { ApiError, conflict, forbidden, notFound } from "../core/errors";
import { columnsOf, type SqlRow, insertColumns } from "../core/columns";
import { kbEntries, kbTags, kbVerifications } from "../db/forum";
import { iso, now, utcDay } from "../core/clock";
import { newId } from "../core/crypto";
import type { AgentPrincipal } from "../core/principal";
import { slugify } from "../core/text";
import { ftsQuery, pagedSearch, emptyPage } from "../core/fts";
import type { KbEntryOut, KbItemOut } from "./kb.schemas";
import { constantRead, type BatchRead } from "../core/batch";
import { scanBinds, scanContent, securityOut } from "../forum";
import { STANDING_RULE, networkOf, standingOf, type VerifierFacts } from "./standing";

/** An entry as ITEM_COLS reads it (the detail adds its body and what it supersedes). */
const ITEM_KEYS = [
  "id",
  "slug",
  "title",
  "summaryMd",
  "tags",
  "status",
  "asOfDate",
  "appliesFromVersion",
  "supersededBy",
  "score",
  "authorId",
  "createdAt",
  "ownerId",
  "scanStatus",
  "scanFindings",
] as const;
type KbRow = SqlRow<typeof kbEntries, (typeof ITEM_KEYS)[number]> & {
  verification_count: number;
  author_handle: string;
  body_md?: string;
  supersedes_slug?: string | null;
};

const ITEM_COLS = `${columnsOf(kbEntries, "e", ITEM_KEYS)}, a.handle AS author_handle,
  (SELECT COUNT(*) FROM kb_verifications kv WHERE kv.entry_id = e.id) AS verification_count`;

/** `viewer`: the reading account; the entry's author account gets the scan's findings in full. */
function itemOut(r: KbRow, viewer: string | null = null): KbItemOut {
  return {
    id: r.id,
    slug: r.slug,
    title: r.title,
    summaryMd: r.summary_md,
    tags: JSON.parse(r.tags) as string[],
    status: r.status as KbItemOut["status"],
    asOfDate: r.as_of_date,
    appliesFromVersion: r.applies_from_version,
    supersededBy: r.superseded_by,
    score: r.score,
    verificationCount: r.verification_count,
    author: { id: r.author_id, handle: r.author_handle },
    createdAt: iso(r.created_at),
    ...securityOut(r, viewer !== null && viewer === r.owner_id),
  };
}

export async function listKb(db: D1Database, input: { q?: string; tag?: string; status?: string; page: number; perPage: number }) {
  const where: string[] = [];
  const binds: unknown[] = [];
  const q = input.q?.trim();
  const match = q ? ftsQuery(q) : null;
  if (q && !match) return emptyPage(input);
  if (input.status) {
    where.push("e.status = ?");
    binds.push(input.status);
  } else {
    // Superseded entries are reachable by slug and by `status=SUPERSEDED`, not in default results.
    where.push("e.status IN ('VERIFIED', 'DRAFT')");
  }
  if (input.tag) {
    where.push("e.id IN (SELECT entry_id FROM kb_tags WHERE tag = ?)");
    binds.push(input.tag);
  }
  const { rows, ...total } = await pagedSearch<KbRow>(db, {
    from: "kb_entries e",
    key: "e.id",
    columns: ITEM_COLS,
    joins: "JOIN agents a ON a.id = e.author_id",
    fts: match ? { table: "kb_fts", match, rank: "bm25(kb_fts, 0.0, 10.0, 5.0, 1.0, 6.0)" } : undefined,
    where,
    binds,
    order: match
      ? "e.as_of_date DESC"
      : "CASE e.status WHEN 'VERIFIED' THEN 0 WHEN 'DRAFT' THEN 1 ELSE 2 END, e.as_of_date DESC, e.created_at DESC",
    page: input.page,
    perPage: input.perPage,
  });
  return { items: rows.map((r) => itemOut(r)), ...total, page: input.page, perPage: input.perPage };
}

/** The two reads behind `{entry}`, to run alone or at the end of a write batch (one round trip). */
const entryReads = (db: D1Database, ref: string) =>
  [
    db
      .prepare(
        `SELECT ${ITEM_COLS}, e.body_md, s.slug AS supersedes_slug
           FROM kb_entries e JOIN agents a ON a.id = e.author_id LEFT JOIN kb_entries s ON s.id = e.supersedes
          WHERE e.id = ?1 OR e.slug = ?1`,
      )
      .bind(ref),
    db
      .prepare(
        `SELECT v.agent_id, a.handle, v.verified_at FROM kb_verifications v JOIN agents a ON a.id = v.agent_id
          WHERE v.entry_id = (SELECT id FROM kb_entries WHERE id = ?1 OR slug = ?1) ORDER BY v.verified_at`,
      )
      .bind(ref),
  ] as const;

function entryFrom(entryRes: D1Result | undefined, verRes: D1Result | undefined, viewer: string): { entry: KbEntryOut } {
  const r = entryRes!.results[0] as KbRow | undefined;
  if (!r) throw notFound("Knowledge entry");
  const verifiedBy = (verRes!.results as { agent_id: string; handle: string; verified_at: number }[]).map((v) => ({
    agent: { id: v.agent_id, handle: v.handle },
    verifiedAt: iso(v.verified_at),
  }));
  return { entry: { ...itemOut(r, viewer), bodyMd: r.body_md ?? "", supersedes: r.supersedes_slug ?? null, verifiedBy } };
}

/** `viewer`: the reading account (the author's own account also sees the scan's findings). */
export async function getKb(db: D1Database, ref: string, viewer: string): Promise<{ entry: KbEntryOut }> {
  const [entryRes, verRes] = await db.batch([...entryReads(db, ref)]);
  return entryFrom(entryRes, verRes, viewer);
}

export async function createKb(
  env: Env,
  caller: AgentPrincipal,
  input: {
    title: string;
    summaryMd: string;
    bodyMd: string;
    tags: string[];
    appliesFromVersion?: string;
    asOfDate?: string;
    supersedes?: string;
  },
  clientIp: string | null = null,
) {
  const db = env.DB;
  let supersedesId: string | null = null;
  if (input.supersedes) {
    const old = await db
      .prepare(`SELECT id, owner_id, status, superseded_by FROM kb_entries WHERE id = ?1 OR slug = ?1`)
      .bind(input.supersedes)
      .first<{ id: string; owner_id: string; status: string; superseded_by: string | null }>();
    if (!old) throw notFound("Knowledge entry to supersede");
    if (old.owner_id !== caller.ownerId) {
      throw forbidden("An entry can only supersede an entry written by an agent of your own account");
    }
    if (old.status === "SUPERSEDED") {
      throw conflict(`That entry is already superseded by ${old.superseded_by}`, { supersededBy: old.superseded_by });
    }
    supersedesId = old.id;
  }
  const id = newId("kb_");
  const slug = slugify(input.title, id);
  const t = now();
  const scan = await scanContent(env, [
    { path: "title", text: input.title },
    { path: "summaryMd", text: input.summaryMd },
    { path: "bodyMd", text: input.bodyMd },
  ]);
  const net = await networkOf(clientIp);
  const res = await db.batch([
    db
      .prepare(
        `INSERT INTO ${insertColumns(kbEntries, ["id", "slug", "title", "summaryMd", "bodyMd", "tags", "status", "asOfDate", "appliesFromVersion", "supersedes", "authorId", "ownerId", "createdAt", "updatedAt", "scanStatus", "scanFindings", "scanRuleset", "authorNet"])}
         VALUES (?, ?, ?, ?, ?, ?, 'DRAFT', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .bind(
        id,
        slug,
        input.title,
        input.summaryMd,
        input.bodyMd,
        JSON.stringify(input.tags),
        input.asOfDate ?? utcDay(t),
        input.appliesFromVersion ?? null,
        supersedesId,
        caller.agentId,
        caller.ownerId,
        t,
        t,
        ...scanBinds(scan),
        net,
      ),
    ...input.tags.map((tag) => db.prepare(`INSERT INTO ${insertColumns(kbTags, ["tag", "entryId"])} VALUES (?, ?)`).bind(tag, id)),
    ...entryReads(db, id),
  ]);
  return entryFrom(res.at(-2), res.at(-1), caller.ownerId);
}

const refused = (message: string, reason: string, extra: Record<string, unknown> = {}) =>
  new ApiError("FORBIDDEN", message, { reason, ...extra });

export async function verifyKb(db: D1Database, caller: AgentPrincipal, ref: string, clientIp: string | null = null) {
  const [entryRes, mineRes, meRes] = await db.batch([
    db
      .prepare(
        `SELECT e.id, e.owner_id, e.created_at, e.author_net, a.handle AS author_handle FROM kb_entries e JOIN agents a ON a.id = e.author_id
          WHERE e.id = ?1 OR e.slug = ?1`,
      )
      .bind(ref),
    db
      .prepare(
        `SELECT a.handle FROM kb_verifications v JOIN agents a ON a.id = v.agent_id
          WHERE v.owner_id = ?2 AND v.entry_id = (SELECT id FROM kb_entries WHERE id = ?1 OR slug = ?1)`,
      )
      .bind(ref, caller.ownerId),
    db
      .prepare(
        `SELECT o.plan, o.plan_period_end, o.created_at, (SELECT COALESCE(SUM(reputation), 0) FROM agents WHERE owner_id = o.id) AS reputation
           FROM owners o WHERE o.id = ?`,
      )
      .bind(caller.ownerId),
  ]);
  const e = entryRes!.results[0] as
    | { id: string; owner_id: string; created_at: number; author_net: string | null; author_handle: string }
    | undefined;
  if (!e) throw notFound("Knowledge entry");
  if (e.owner_id === caller.ownerId) {
    throw refused(
      `Verification must be independent: this entry was written by @${e.author_handle}, an agent of your own account`,
      "same_account",
    );
  }
  const mine = mineRes!.results[0] as { handle: string } | undefined;
  if (mine) throw conflict(`Your account already verified this entry through @${mine.handle}`);
  const t = now();
  const me = meRes!.results[0] as unknown as VerifierFacts;
  if (me.created_at > e.created_at) {
    throw refused(
      "Verification must be independent: your account was created after this entry was written, so its verification does not count",
      "account_newer_than_entry",
    );
  }
  const net = await networkOf(clientIp);
  if (net !== null && net === e.author_net) {
    throw refused("Verification must be independent: it comes from the network the entry was written from", "shared_network");
  }
  const basis = standingOf(me, t);
  if (!basis) {
    throw refused(`Your account has no standing to verify knowledge yet: verifying takes ${STANDING_RULE}`, "no_standing", {
      standing: { plan: "FREE", accountAgeDays: Math.floor((t - me.created_at) / 86_400_000), reputation: me.reputation },
    });
  }
  const res = await db.batch([
    db
      .prepare(
        `INSERT INTO ${insertColumns(kbVerifications, ["entryId", "ownerId", "agentId", "verifiedAt", "basis", "net"])} VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      )
      .bind(e.id, caller.ownerId, caller.agentId, t, basis, net),
    db.prepare(`UPDATE kb_entries SET status = 'VERIFIED', updated_at = ?2 WHERE id = ?1 AND status = 'DRAFT'`).bind(e.id, t),
    // A verified replacement retires the entry it supersedes (same owner, checked again here).
    db
      .prepare(
        `UPDATE kb_entries SET status = 'SUPERSEDED', superseded_by = (SELECT slug FROM kb_entries WHERE id = ?1), updated_at = ?2
          WHERE id = (SELECT supersedes FROM kb_entries WHERE id = ?1 AND status = 'VERIFIED')
            AND owner_id = (SELECT owner_id FROM kb_entries WHERE id = ?1)
            AND status <> 'SUPERSEDED'`,
      )
      .bind(e.id, t),
    // Two drafts may name the same old entry; the first verified one replaces it, and the other
    // drops its claim, so `supersedes` and `supersededBy` always agree.
    db
      .prepare(
        `UPDATE kb_entries SET supersedes = NULL, updated_at = ?2
          WHERE id = ?1 AND status = 'VERIFIED'
            AND supersedes IN (SELECT id FROM kb_entries WHERE status = 'SUPERSEDED'
                                AND superseded_by <> (SELECT slug FROM kb_entries WHERE id = ?1))`,
      )
      .bind(e.id, t),
    ...entryReads(db, e.id),
  ]);
  // Another agent of the same owner verified it between the check above and this batch.
  if (res[0]!.meta.changes === 0) throw conflict("Your account already verified this entry");
  return entryFrom(res.at(-2), res.at(-1), caller.ownerId);
}

// ---- for sync (issue 12): reads that join the caller's one batch ---------------------------------

/**
 * What sync may push: entries with a verification that counted (standing.ts: every stored one) and
 * whose text passed the agent-text scan. Flagged, warned and not yet scanned text never goes out.
 */
const PUSHABLE = `e.scan_status = 'passed' AND EXISTS (SELECT 1 FROM kb_verifications pv WHERE pv.entry_id = e.id)`;

/**
 * VERIFIED entries tagged with any of `tags` (a stack's topics: canonical lowercase names, any
 * number of them) that sync may push, newest as-of date first, at most `limit`. One statement.
 */
export function verifiedForTagsRead(db: D1Database, tags: readonly string[], limit = 50): BatchRead<KbItemOut[]> {
  const wanted = [...new Set(tags.map((t) => t.trim().toLowerCase()).filter(Boolean))];
  if (!wanted.length || limit <= 0) return constantRead([]);
  return {
    statements: [
      db
        .prepare(
          `SELECT ${ITEM_COLS} FROM kb_entries e JOIN agents a ON a.id = e.author_id
            WHERE e.status = 'VERIFIED' AND ${PUSHABLE} AND e.id IN (SELECT t.entry_id FROM json_each(?1) j JOIN kb_tags t ON t.tag = j.value)
            ORDER BY e.as_of_date DESC, e.created_at DESC LIMIT ?2`,
        )
        .bind(JSON.stringify(wanted), limit),
    ],
    read: ([res]) => (res!.results as unknown as KbRow[]).map((r) => itemOut(r)),
  };
}

/** Entries by id that sync may push, whatever their status (a sync delta reports entries verified or superseded since). One statement. */
export function kbItemsByIdsRead(db: D1Database, ids: readonly string[]): BatchRead<KbItemOut[]> {
  if (!ids.length) return constantRead([]);
  return {
    statements: [
      db
        .prepare(
          `SELECT ${ITEM_COLS} FROM json_each(?1) j JOIN kb_entries e ON e.id = j.value JOIN agents a ON a.id = e.author_id WHERE ${PUSHABLE} ORDER BY e.as_of_date DESC`,
        )
        .bind(JSON.stringify([...new Set(ids)])),
    ],
    read: ([res]) => (res!.results as unknown as KbRow[]).map((r) => itemOut(r)),
  };
}
