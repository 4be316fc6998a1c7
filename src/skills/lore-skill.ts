/**
 * Lore's own skill, `lore`: the text of GET /v1/start-here.md, which names the host it is served
 * from. It is rendered per origin rather than stored, digested and scanned on the fly (memoised
 * per origin), and listed in both discovery indexes with the very bytes /v1/start-here.md serves.
 */
import { renderStartHere } from "../harnesses/start-here";
import { sha256Hex } from "../core/crypto";
import { LruCache } from "../core/cache";
import { parseFrontMatter } from "./bundle";
import { scanSkill, type SkillScan } from "./scanner";
import { now } from "../core/clock";
import type { SkillRow, VersionRow } from "./rows";

export const LORE_SKILL = "lore";
/** The version label `lore` always shows: it is rendered, never published. */
export const LORE_VERSION = "live";

export interface LoreSkill {
  name: string;
  description: string;
  text: string;
  bytes: Uint8Array;
  /** SHA-256 hex of the bytes. */
  digest: string;
  scan: SkillScan;
}

const memo = new LruCache<string, Promise<LoreSkill>>({ maxEntries: 32 });

async function render(origin: string): Promise<LoreSkill> {
  const text = renderStartHere(origin);
  const bytes = new TextEncoder().encode(text);
  const fm = parseFrontMatter(text);
  return {
    name: fm.name,
    description: fm.description,
    text,
    bytes,
    digest: await sha256Hex(bytes),
    scan: scanSkill([{ path: "SKILL.md", bytes, text }]),
  };
}

export function loreSkill(origin: string): Promise<LoreSkill> {
  return memo.getOrSet(origin, () => render(origin));
}

/** The description the catalog row carries (the same for every origin). */
export const loreDescription = () => parseFrontMatter(renderStartHere("https://lore.invalid")).description;

/** The account that publishes Lore's own skills (migration 0007). It has no password and no agents. */
export const SYSTEM_OWNER_ID = "own_lore_system";

/**
 * This origin's rendering of `lore` as the latest version a stored skill would have: the one place
 * that knows `lore` is rendered. The read paths complete its catalog row with it (`withRendered`)
 * and then treat it like any other skill.
 */
export async function renderedVersion(origin: string): Promise<VersionRow & { skill_md: string }> {
  const lore = await loreSkill(origin);
  const at = now();
  return {
    id: `${LORE_SKILL}@${LORE_VERSION}`,
    skill_id: "skl_lore",
    seq: 0,
    version: LORE_VERSION,
    status: lore.scan.status,
    findings: JSON.stringify(lore.scan.findings),
    ruleset_version: lore.scan.rulesetVersion,
    scan_layers: JSON.stringify([{ layer: "rules", version: lore.scan.rulesetVersion, outcome: lore.scan.status, detail: null }]),
    scan_hash: `sha256:${lore.digest}`,
    artifact_type: "skill-md",
    artifact_size: lore.bytes.byteLength,
    files: JSON.stringify([{ path: "SKILL.md", size: lore.bytes.byteLength, digest: lore.digest }]),
    capabilities: JSON.stringify(lore.scan.capabilities),
    capability_changes: "[]",
    created_at: at,
    scanned_at: at,
    skill_md: lore.text,
  };
}

/** The latest-version columns a read may join onto a catalog row (`LEFT JOIN skill_versions v`). */
const JOINED = ["artifact_type", "files", "findings", "scanned_at"] as const;

/**
 * Catalog rows with each rendered one (`lore`) completed from this origin's rendering: its latest
 * version, scan and hash, and whichever joined version columns the row carries. Other rows pass
 * through untouched; no rendering happens when there is no rendered row.
 */
export async function withRendered<R extends Pick<SkillRow, "rendered">>(rows: R[], origin: string): Promise<R[]> {
  if (!rows.some((r) => r.rendered)) return rows;
  const v = await renderedVersion(origin);
  return rows.map((r) => {
    if (!r.rendered) return r;
    const out: Record<string, unknown> = {
      ...r,
      latest_version_id: v.id,
      latest_version: v.version,
      security_status: v.status,
      security_scan_hash: v.scan_hash,
    };
    for (const k of JOINED) if (k in r) out[k] = v[k];
    return out as R;
  });
}
