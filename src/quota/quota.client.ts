import type { Env } from "../env";
import { ApiError, notFound } from "../core/errors";
import { now } from "../core/clock";
import { keyAccount } from "../core/auth";
import { sha256Hex } from "../core/crypto";
import { LruCache } from "../core/cache";
import type { Admission, Admitted, AdmitRequest, Gate, MetricState, RateWindow } from "../core/admission";
import type { PlanId } from "./plans";
import type { Refusal } from "./quota.schemas";
import { accountStub, refreshAccount } from "./account";

export { accountStub as quotaStub };

/**
 * Keys from before tags (`lore_<secret>_<account>`, and `lore_` + 43 characters from before keys
 * named their account) are routed by one D1 read, remembered per isolate: a key never moves to
 * another account, and whether it still works is the account object's answer on every request, so
 * the remembered route cannot outlive a revocation. No such key is made any more, so one D1 has
 * never heard of never becomes valid: it is remembered as unknown, and asking again costs nothing.
 */
const legacyRoutes = new LruCache<string, string>({ maxEntries: 5_000 });
const unknownHashes = new LruCache<string, true>({ maxEntries: 10_000 });

/**
 * Recently seen keys' SHA-256, per isolate, so a busy agent's requests do not hash its key each
 * time. A hash says nothing about whether the key still works (the account's object decides).
 */
const hashes = new LruCache<string, string>({ maxEntries: 2_000 });
const tagged = new LruCache<string, { ownerId: string; hash: string; secrets: string }>({ maxEntries: 2_000 });
async function hashOf(key: string): Promise<string> {
  return hashes.get(key) ?? hashes.set(key, await sha256Hex(key));
}

/**
 * The account a key belongs to and its SHA-256, or null for a key no account has. A tagged key is
 * routed by its tag (core/auth.ts: checked here, before any object is addressed, so a made-up key
 * costs no object and no D1 read); an untagged one by D1.
 */
async function route(env: Env, key: string): Promise<{ ownerId: string; hash: string } | null> {
  // A tag verified once stays verified under the same secrets: held per isolate with the secrets it
  // was checked under, so a busy agent's requests do not compute its key's HMAC each time.
  const secrets = `${env.KEY_SECRET}\u0000${env.KEY_SECRET_PREVIOUS}`;
  const held = tagged.get(key);
  if (held?.secrets === secrets) return { ownerId: held.ownerId, hash: held.hash };
  const where = await keyAccount(env, key);
  if (where === null) return null;
  const hash = await hashOf(key);
  if (where !== "lookup") {
    tagged.set(key, { ownerId: where.ownerId, hash, secrets });
    return { ownerId: where.ownerId, hash };
  }
  let ownerId = legacyRoutes.get(hash);
  if (!ownerId) {
    if (unknownHashes.has(hash)) return null;
    const found = await env.DB.prepare("SELECT owner_id FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL")
      .bind(hash)
      .first<string>("owner_id");
    if (!found) {
      unknownHashes.set(hash, true);
      return null;
    }
    legacyRoutes.set(hash, (ownerId = found));
  }
  return { ownerId, hash };
}

const unknownKey = () => new ApiError("UNAUTHENTICATED", "The agent key is unknown or revoked");

/**
 * How a subscription whose period ended is settled. Billing stands above quota (it reads plans and
 * tells the account's object), so its side is handed in by app.ts, as the activity sink is.
 */
export interface Renewal {
  /** Whether Lore renews subscriptions itself (the local provider); under Stripe the webhooks do. */
  renewsLocally(env: Env): boolean;
  /** Renews and charges, or ends, the owner's subscription whose period ended at `at`. */
  settle(env: Env, ownerId: string, at: number): Promise<unknown>;
}

let renewal: Renewal | null = null;

/** app.ts wires billing in (quota imports no billing). */
export function setRenewal(r: Renewal | null): void {
  renewal = r;
}

const renewsLocally = (env: Env) => renewal?.renewsLocally(env) ?? false;

/**
 * Settles a subscription whose period ended (the local provider renews it and charges) and tells
 * the account's object the result. A billing failure must not fail the agent's request: it is
 * logged, and the stored period decides (paid through the grace, FREE after).
 */
async function renew(env: Env, ownerId: string): Promise<void> {
  try {
    await renewal?.settle(env, ownerId, now());
  } catch (err) {
    console.error(JSON.stringify({ level: "error", what: "billing settle", ownerId, error: String(err) }));
  }
  await refreshAccount(env, ownerId).catch(() => {});
}

async function admit(env: Env, key: string, want: AdmitRequest): Promise<Admitted> {
  const r0 = await route(env, key);
  if (!r0) throw unknownKey();
  const stub = accountStub(env, r0.ownerId);
  const ask = { ownerId: r0.ownerId, keyHash: r0.hash, metric: want.metric, counted: want.counted };
  let r = await stub.admit({ ...ask, renewDue: renewsLocally(env) });
  if (!r.ok && r.reason === "settle") {
    await renew(env, r0.ownerId);
    r = await stub.admit({ ...ask, renewDue: false });
  }
  if (r.ok) return { caller: r.caller, admission: r.admission, bookmark: r.bookmark };
  throw r.reason === "limited" ? rateLimited(r.refusal) : unknownKey();
}

/** The quota area's side of core's admission step (core/admission.ts), handed to the adapters by app.ts. */
export const quotaGate: Gate = {
  async route(env, key) {
    const r = await route(env, key);
    return r ? { ownerId: r.ownerId, keyHash: r.hash } : null;
  },
  admit,
  async verify(env, key) {
    const r0 = await route(env, key);
    const r = r0 ? await accountStub(env, r0.ownerId).verify({ ownerId: r0.ownerId, keyHash: r0.hash }) : null;
    if (!r?.ok) throw unknownKey();
    return { caller: r.caller, bookmark: r.bookmark };
  },
  async charge(env, ownerId, metric) {
    const stub = accountStub(env, ownerId);
    let r = await stub.charge({ ownerId, metric, renewDue: renewsLocally(env) });
    if (!r.ok && r.reason === "settle") {
      await renew(env, ownerId);
      r = await stub.charge({ ownerId, metric, renewDue: false });
    }
    if (r.ok) return r.admission;
    if (r.reason === "limited") throw rateLimited(r.refusal);
    throw notFound("Account");
  },
  async uncharge(env, ownerId, charged, metric) {
    if (metric === "API_CALLS") return;
    await accountStub(env, ownerId).refund(charged.day, metric);
  },
  async refund(env, admitted, metric) {
    if (!metric || metric === "API_CALLS") return;
    await accountStub(env, admitted.caller.ownerId).refund(admitted.admission.day, metric);
  },
  async remember(env, admitted, bookmark) {
    await accountStub(env, admitted.caller.ownerId).remember(bookmark);
  },
  headers: (a: Admission) => rateLimitHeaders(a.window, a.metrics.API_CALLS, a.resetsAt),
};

/** The plan whose limits apply to an account now, for the owner's own reads (renewing a due local subscription first). */
export async function planForOwner(env: Env, ownerId: string): Promise<PlanId> {
  const stub = accountStub(env, ownerId);
  let r = await stub.plan({ ownerId, renewDue: renewsLocally(env) });
  if (!r.ok && r.reason === "settle") {
    await renew(env, ownerId);
    r = await stub.plan({ ownerId, renewDue: false });
  }
  if (!r.ok) throw notFound("Account");
  return r.plan;
}

function rateLimited(r: Refusal): ApiError {
  const message =
    r.metric === "PER_MINUTE"
      ? `Rate limit reached: PER_MINUTE limit of ${r.limit} requests per rolling minute on plan ${r.plan}. ` +
        `Retry after ${r.retryAfterSeconds} s; daily quotas reset at ${r.resetsAt}. Do not retry in a loop.`
      : `Daily quota reached: ${r.metric} limit of ${r.limit} per day on plan ${r.plan}. It resets at ${r.resetsAt} ` +
        `(00:00 UTC, in ${r.retryAfterSeconds} s); stop this kind of action until then. Other actions keep working` +
        (r.metric === "API_CALLS" ? " only for GET /v1/usage/today." : ".");
  return new ApiError(
    "RATE_LIMITED",
    message,
    { metric: r.metric, limit: r.limit, plan: r.plan, resetsAt: r.resetsAt, retryAfterSeconds: r.retryAfterSeconds },
    {
      "Retry-After": String(r.retryAfterSeconds),
      "Cache-Control": "no-store",
      ...rateLimitHeaders(r.window, r.metrics.API_CALLS, r.resetsAt),
    },
  );
}

/**
 * IETF draft-ietf-httpapi-ratelimit-headers (structured-field form): the rolling per-minute window
 * and, when it is limited, the daily API_CALLS quota (`t` = seconds until 00:00 UTC).
 */
export function rateLimitHeaders(w: RateWindow, api?: MetricState, resetsAt?: string) {
  const policy = [`"minute";q=${w.limit};w=60`];
  const state = [`"minute";r=${w.remaining};t=${w.resetSeconds}`];
  if (api && api.limit !== null && resetsAt) {
    const t = Math.max(0, Math.ceil((Date.parse(resetsAt) - now()) / 1000));
    policy.push(`"day";q=${api.limit};w=86400`);
    state.push(`"day";r=${Math.max(0, api.limit - api.used)};t=${t}`);
  }
  return { "RateLimit-Policy": policy.join(", "), RateLimit: state.join(", ") };
}
