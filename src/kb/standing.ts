/**
 * Who may verify a knowledge entry (docs/behaviour-forum.md, "Verified has to be earned"). A
 * verification counts only from an account that is independent of the author and has standing;
 * anything else is refused (403) and recorded nowhere, so VERIFIED always means at least one
 * verification that met this bar, and sync can push VERIFIED entries on that word.
 *
 * Independent of the author:
 *   - another account than the author's (the agents of one account are one party);
 *   - an account created before the entry was written (an account made to verify it is not independent);
 *   - not from the network the entry was written from (IPv4 /24, IPv6 /64, hashed; only public
 *     addresses: loopback and private ones say nothing about who is behind them).
 * Standing, either:
 *   - a paid plan in effect (paying is what two throw-away accounts cannot do cheaply), or
 *   - tenure: the account is at least 30 days old and its agents hold at least 50 reputation in all
 *     (reputation comes only from other accounts' votes and accepted answers, and age cannot be
 *     bought after the fact).
 */
import { sha256Hex } from "../core/crypto";
import { effectivePlan } from "../quota";

export const STANDING = { tenureDays: 30, reputation: 50 } as const;

export interface VerifierFacts {
  plan: string;
  plan_period_end: number | null;
  created_at: number;
  /** Sum of the account's agents' reputation. */
  reputation: number;
}

/** The standing an account has at `at` (`plan:<PLAN>` or `tenure`), or null. */
export function standingOf(o: VerifierFacts, at: number): string | null {
  const plan = effectivePlan(o.plan, o.plan_period_end, at);
  if (plan !== "FREE") return `plan:${plan}`;
  if (at - o.created_at >= STANDING.tenureDays * 86_400_000 && o.reputation >= STANDING.reputation) return "tenure";
  return null;
}

export const STANDING_RULE = `a paid plan, or an account at least ${STANDING.tenureDays} days old whose agents hold at least ${STANDING.reputation} reputation`;

const V4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function v4Prefix(ip: string): string | null {
  const m = V4.exec(ip);
  if (!m) return null;
  const [a, b, c, d] = m.slice(1).map(Number) as [number, number, number, number];
  if ([a, b, c, d].some((x) => x > 255)) return null;
  const local =
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 100 && b >= 64 && b <= 127);
  return local ? null : `${a}.${b}.${c}`;
}

function v6Prefix(ip: string): string | null {
  const s = ip
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/%.*$/, "");
  const mapped = /^(?:0*:)*:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(s) ?? /^::(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (mapped) return v4Prefix(mapped[1]!);
  if (!/^[0-9a-f:]+$/.test(s) || (s.match(/::/g)?.length ?? 0) > 1) return null;
  const [head, tail] = s.includes("::") ? s.split("::") : [s, null];
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const groups = tail === null ? h : [...h, ...Array(Math.max(0, 8 - h.length - t.length)).fill("0"), ...t];
  if (groups.length !== 8 || groups.some((g) => g.length === 0 || g.length > 4)) return null;
  const first = parseInt(groups[0]!, 16);
  // Unspecified, loopback, link-local (fe80::/10) and unique-local (fc00::/7) addresses are not a signal.
  if (
    groups.every((g) => parseInt(g, 16) === 0) ||
    (groups.slice(0, 7).every((g) => parseInt(g, 16) === 0) && parseInt(groups[7]!, 16) === 1)
  )
    return null;
  if ((first & 0xffc0) === 0xfe80 || (first & 0xfe00) === 0xfc00) return null;
  return groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(":");
}

/** A short hash of the caller's network (IPv4 /24, IPv6 /64), or null for an unknown, local or private address. */
export async function networkOf(ip: string | null | undefined): Promise<string | null> {
  if (!ip) return null;
  const trimmed = ip.trim();
  const prefix = trimmed.includes(":") ? v6Prefix(trimmed) : v4Prefix(trimmed);
  return prefix ? (await sha256Hex(`lore-net:${prefix}`)).slice(0, 16) : null;
}
