import { vi } from "vitest";
import { signPayload } from "../src/billing/stripe.signature";
import customerFx from "./fixtures/stripe/customer.json";
import checkoutFx from "./fixtures/stripe/checkout_session.json";
import checkoutCompletedFx from "./fixtures/stripe/checkout_session_completed.json";
import portalFx from "./fixtures/stripe/billing_portal_session.json";
import subscriptionFx from "./fixtures/stripe/subscription.json";
import invoiceFx from "./fixtures/stripe/invoice.json";
import apiKeyErrorFx from "./fixtures/stripe/error_invalid_api_key.json";
import checkoutExpiredFx from "./fixtures/stripe/checkout_session_expired.json";
import subscriptionListFx from "./fixtures/stripe/subscription_list.json";
import subscriptionCanceledFx from "./fixtures/stripe/subscription_canceled.json";
import notOpenErrorFx from "./fixtures/stripe/error_checkout_session_not_open.json";
import noSuchSubscriptionFx from "./fixtures/stripe/error_no_such_subscription.json";
import idempotencyErrorFx from "./fixtures/stripe/error_idempotency_key_reused.json";
import { now } from "../src/core/clock";
import { call } from "./helpers";

/** The Stripe configuration a deployment sets; tests pass it as the Worker's env per request. */
export const STRIPE_ENV = {
  STRIPE_SECRET_KEY: "sk_test_LoreSecretKeyThatMustNeverLeak0001",
  STRIPE_WEBHOOK_SECRET: "whsec_LoreWebhookSigningSecret0001",
  STRIPE_PRICE_STARTER: "price_1LoreStarterMonthly",
  STRIPE_PRICE_PRO: "price_1LoreProMonthly",
  STRIPE_PRICE_EXPERT: "price_1LoreExpertMonthly",
};
export const PRICE = { STARTER: STRIPE_ENV.STRIPE_PRICE_STARTER, PRO: STRIPE_ENV.STRIPE_PRICE_PRO, EXPERT: STRIPE_ENV.STRIPE_PRICE_EXPERT };

export interface StripeRequest {
  method: string;
  path: string;
  params: URLSearchParams;
  headers: Headers;
}
type Reply = { status: number; body: unknown; headers?: Record<string, string> };

const clone = <T>(x: T): T => structuredClone(x);
const sec = (ms: number) => Math.floor(ms / 1000);
let seq = 0;
const uid = () => `${Date.now().toString(36)}${(seq++).toString(36)}`;

export interface SubscriptionSpec {
  customer: string;
  price: string;
  /** ms */
  start: number;
  end: number;
  status?: string;
  id?: string;
  created?: number;
  cancelAtPeriodEnd?: boolean;
  endedAt?: number;
  canceledAt?: number;
  reason?: string;
  metadata?: Record<string, string>;
}

/** A subscription object in Stripe's shape (subscription.json), with this spec's facts. */
export function subscriptionObject(spec: SubscriptionSpec): any {
  const s: any = clone(subscriptionFx);
  s.id = spec.id ?? `sub_T${uid()}`;
  s.customer = spec.customer;
  s.status = spec.status ?? "active";
  s.created = spec.created ?? sec(spec.start);
  s.start_date = s.created;
  s.billing_cycle_anchor = sec(spec.start);
  s.cancel_at_period_end = spec.cancelAtPeriodEnd ?? false;
  s.cancel_at = spec.cancelAtPeriodEnd ? sec(spec.end) : null;
  s.canceled_at = spec.canceledAt !== undefined ? sec(spec.canceledAt) : spec.cancelAtPeriodEnd ? sec(spec.start) : null;
  s.ended_at = spec.endedAt !== undefined ? sec(spec.endedAt) : null;
  s.cancellation_details = {
    comment: null,
    feedback: null,
    reason: spec.reason ?? (spec.cancelAtPeriodEnd ? "cancellation_requested" : null),
  };
  s.metadata = spec.metadata ?? s.metadata;
  const item = s.items.data[0];
  item.id = `si_${s.id.slice(4)}`;
  item.subscription = s.id;
  item.price.id = spec.price;
  item.plan.id = spec.price;
  item.current_period_start = sec(spec.start);
  item.current_period_end = sec(spec.end);
  s.items.url = `/v1/subscription_items?subscription=${s.id}`;
  return s;
}

export function invoiceObject(sub: any, opts: { paid: boolean; start: number; end: number }): any {
  const inv: any = clone(invoiceFx);
  inv.id = `in_T${uid()}`;
  inv.customer = sub.customer;
  inv.parent.subscription_details.subscription = sub.id;
  inv.lines.data[0].parent.subscription_item_details.subscription = sub.id;
  inv.lines.data[0].period = { start: sec(opts.start), end: sec(opts.end) };
  inv.status = opts.paid ? "paid" : "open";
  inv.amount_paid = opts.paid ? inv.amount_due : 0;
  inv.amount_remaining = opts.paid ? 0 : inv.amount_due;
  inv.attempt_count = 1;
  inv.next_payment_attempt = opts.paid ? null : sec(opts.start) + 3 * 86_400;
  return inv;
}

export function checkoutCompletedObject(opts: { customer: string; ownerId: string; subscription: string; session?: string }): any {
  const s: any = clone(checkoutCompletedFx);
  if (opts.session) s.id = opts.session;
  s.customer = opts.customer;
  s.client_reference_id = opts.ownerId;
  s.subscription = opts.subscription;
  s.metadata = { owner_id: opts.ownerId, plan: "PRO" };
  return s;
}

/** An event envelope as Stripe sends it. */
export function stripeEvent(type: string, object: unknown, createdMs = now(), id = `evt_T${uid()}`) {
  return {
    id,
    object: "event",
    api_version: "2026-10-28.endive",
    created: sec(createdMs),
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  };
}

/** A `Stripe-Signature` header as Stripe writes it (the signer is checked against one the SDK made: stripe-signature.test.ts). */
export async function stripeSignature(payload: string, secret: string, timestampS: number) {
  return `t=${timestampS},v1=${await signPayload(payload, secret, timestampS)}`;
}

/**
 * Delivers an event to the webhook route, signed as Stripe signs (stripeSignature) at
 * Lore's clock, or as told: another secret, an older timestamp, or a body changed after signing.
 */
export async function deliver(
  event: unknown,
  opts: { secret?: string; signedAtMs?: number; tamper?: (body: string) => string; headers?: Record<string, string> } = {},
) {
  const payload = JSON.stringify(event, null, 2);
  const header = await stripeSignature(payload, opts.secret ?? STRIPE_ENV.STRIPE_WEBHOOK_SECRET, sec(opts.signedAtMs ?? now()));
  return call("POST", "/v1/billing/webhooks/stripe", {
    raw: opts.tamper ? opts.tamper(payload) : payload,
    headers: { "content-type": "application/json; charset=utf-8", "stripe-signature": header, ...opts.headers },
    env: STRIPE_ENV,
  });
}

/**
 * Stripe's API for one test: `fetch` replaced, answering from the recorded responses in
 * test/fixtures/stripe (ids and fields adjusted to what the request asked). Subscriptions the test
 * creates are served by GET, listed by GET /v1/subscriptions?customer=, changed by POST and
 * canceled by DELETE /v1/subscriptions/:id; Checkout Sessions are kept, served by GET, expired by
 * POST …/expire and by their `expires_at` on Lore's clock. Idempotency keys behave as Stripe's do:
 * the same key with the same parameters gets the first answer again (`Idempotent-Replayed: true`),
 * with other parameters a 400 `idempotency_error`. Any other request is kept in `unexpected` and
 * answered 404, so the test fails instead of reaching the network.
 */
export class FakeStripe {
  readonly requests: StripeRequest[] = [];
  readonly unexpected: string[] = [];
  readonly transcript: string[] = [];
  readonly subscriptions = new Map<string, any>();
  readonly sessions = new Map<string, any>();
  /** Answers the next request with this instead (an outage, a bad key). */
  failNext: Reply | null = null;
  private customers = 0;
  private idempotent = new Map<string, { signature: string; reply: Reply }>();

  constructor() {
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
      const req = new Request(input as any, init);
      const url = new URL(req.url);
      // GET and DELETE carry their parameters in the query string (Stripe's encoding), POST in the body.
      const text =
        req.method === "GET" || req.method === "DELETE" ? url.search.slice(1) : new TextDecoder().decode(await req.arrayBuffer());
      const r: StripeRequest = { method: req.method, path: url.pathname, params: new URLSearchParams(text), headers: req.headers };
      let reply: Reply;
      if (url.origin !== "https://api.stripe.com") {
        this.unexpected.push(`${req.method} ${req.url}`);
        reply = { status: 404, body: { error: { type: "invalid_request_error", message: "not Stripe" } } };
      } else {
        this.requests.push(r);
        reply = this.failNext ?? this.idempotently(r, () => this.answer(r));
        this.failNext = null;
      }
      const key = r.headers.get("idempotency-key");
      this.transcript.push(
        `    Lore ⇒ Stripe API  ${r.method} ${r.path}${key?.startsWith("lore-") ? `  [Idempotency-Key: ${key}]` : ""}${text ? `  ${[...r.params].map(([k, v]) => `${k}=${v}`).join(" ")}` : ""}`,
      );
      this.transcript.push(
        `    Stripe API ⇒ Lore  ${reply.status} ${summary(reply.body)}${reply.headers?.["idempotent-replayed"] ? "  (Idempotent-Replayed: the first answer to this key)" : ""}`,
      );
      // Built here, inside the mock, so every request gets a fresh body stream.
      return new Response(JSON.stringify(reply.body), {
        status: reply.status,
        headers: { "content-type": "application/json", "request-id": `req_T${uid()}`, ...reply.headers },
      });
    });
  }

  /** The requests to one endpoint (`POST /v1/customers`), in order. */
  sent(method: string, path: string | RegExp) {
    return this.requests.filter((r) => r.method === method && (typeof path === "string" ? r.path === path : path.test(r.path)));
  }

  addSubscription(spec: SubscriptionSpec) {
    const s = subscriptionObject(spec);
    this.subscriptions.set(s.id, s);
    return s;
  }

  /** The owner pays on Checkout: the session completes with the subscription Stripe created. */
  completeSession(id: string, subscriptionId: string) {
    const s = this.sessions.get(id);
    if (!s) throw new Error(`no checkout session ${id}`);
    Object.assign(s, { status: "complete", payment_status: "paid", url: null, subscription: subscriptionId });
    return clone(s);
  }

  /** Stripe's idempotency: a key's first answer is kept (the body and status) and given again for the same request. */
  private idempotently(r: StripeRequest, answer: () => Reply): Reply {
    const key = r.headers.get("idempotency-key");
    if (!key || r.method === "GET") return answer();
    const signature = `${r.method} ${r.path} ${[...r.params]
      .map(([k, v]) => `${k}=${v}`)
      .sort()
      .join("&")}`;
    const prior = this.idempotent.get(key);
    if (prior && prior.signature !== signature) {
      const body: any = clone(idempotencyErrorFx);
      body.error.message = body.error.message.replace("lore-checkout-placeholder", key);
      return { status: 400, body };
    }
    if (prior) return { ...prior.reply, body: clone(prior.reply.body), headers: { ...prior.reply.headers, "idempotent-replayed": "true" } };
    const reply = answer();
    this.idempotent.set(key, { signature, reply: { ...reply, body: clone(reply.body) } });
    return reply;
  }

  /** A session past its `expires_at` (Lore's clock stands in for Stripe's) is expired. */
  private session(id: string) {
    const s = this.sessions.get(id);
    if (s?.status === "open" && now() >= s.expires_at * 1000) Object.assign(s, { status: "expired", url: null });
    return s;
  }

  invalidKey(): void {
    this.failNext = { status: 401, body: clone(apiKeyErrorFx) };
  }

  outage(): void {
    this.failNext = {
      status: 500,
      body: { error: { type: "api_error", message: "An unknown error occurred" } },
      headers: { "stripe-should-retry": "false" },
    };
  }

  private answer(r: StripeRequest): Reply {
    const p = r.params;
    if (r.method === "POST" && r.path === "/v1/customers") {
      const c: any = clone(customerFx);
      c.id = `cus_T${uid()}${this.customers++}`;
      c.email = p.get("email");
      c.metadata = { owner_id: p.get("metadata[owner_id]") };
      return { status: 200, body: c };
    }
    if (r.method === "POST" && r.path === "/v1/checkout/sessions") {
      const s: any = clone(checkoutFx);
      s.created = sec(now());
      const expires = p.has("expires_at") ? Number(p.get("expires_at")) : s.created + 86_400;
      if (expires - s.created < 1800 || expires - s.created > 86_400) {
        return {
          status: 400,
          body: {
            error: {
              type: "invalid_request_error",
              param: "expires_at",
              message: "The `expires_at` timestamp must be between 30 minutes and 24 hours from Checkout Session creation.",
            },
          },
        };
      }
      s.expires_at = expires;
      s.id = `cs_test_T${uid()}`;
      s.customer = p.get("customer");
      s.client_reference_id = p.get("client_reference_id");
      s.success_url = p.get("success_url");
      s.cancel_url = p.get("cancel_url");
      s.metadata = { owner_id: p.get("metadata[owner_id]"), plan: p.get("metadata[plan]") };
      s.url = `https://checkout.stripe.com/c/pay/${s.id}`;
      this.sessions.set(s.id, s);
      return { status: 200, body: clone(s) };
    }
    const cs = /^\/v1\/checkout\/sessions\/([^/]+)(\/expire)?$/.exec(r.path);
    if (cs) {
      const s = this.session(cs[1]!);
      if (!s)
        return {
          status: 404,
          body: {
            error: {
              type: "invalid_request_error",
              code: "resource_missing",
              param: "session",
              message: `No such checkout.session: '${cs[1]}'`,
            },
          },
        };
      if (r.method === "GET" && !cs[2]) return { status: 200, body: clone(s) };
      if (r.method === "POST" && cs[2]) {
        if (s.status !== "open") {
          const body: any = clone(notOpenErrorFx);
          body.error.message = body.error.message.replace("`complete`", `\`${s.status}\``);
          return { status: 400, body };
        }
        // The expired session as Stripe answers it (checkout_session_expired.json): no URL any more.
        Object.assign(s, { status: checkoutExpiredFx.status, url: checkoutExpiredFx.url });
        return { status: 200, body: clone(s) };
      }
    }
    if (r.method === "GET" && r.path === "/v1/subscriptions") {
      const status = p.get("status");
      const limit = Number(p.get("limit") ?? 10);
      const all = [...this.subscriptions.values()]
        .filter((x) => x.customer === p.get("customer"))
        // Without a status Stripe lists every subscription that is not canceled.
        .filter((x) => (status === "all" ? true : status ? x.status === status : x.status !== "canceled"))
        .sort((a, b) => b.created - a.created);
      const list: any = clone(subscriptionListFx);
      list.data = all.slice(0, limit).map(clone);
      list.has_more = all.length > limit;
      return { status: 200, body: list };
    }
    if (r.method === "POST" && r.path === "/v1/billing_portal/sessions") {
      const s: any = clone(portalFx);
      s.customer = p.get("customer");
      s.return_url = p.get("return_url");
      s.flow = p.get("flow_data[type]") ? { type: p.get("flow_data[type]") } : null;
      s.url = `https://billing.stripe.com/p/session/test_T${uid()}`;
      return { status: 200, body: s };
    }
    const m = /^\/v1\/subscriptions\/([^/]+)$/.exec(r.path);
    if (m) {
      const sub = this.subscriptions.get(m[1]!);
      if (!sub)
        return {
          status: 404,
          body: { error: { type: "invalid_request_error", code: "resource_missing", message: `No such subscription: '${m[1]}'` } },
        };
      if (r.method === "DELETE") {
        // Canceling a canceled subscription: Stripe answers as if it did not exist.
        if (sub.status === "canceled" || sub.status === "incomplete_expired") {
          const body: any = clone(noSuchSubscriptionFx);
          body.error.message = `No such subscription: '${sub.id}'`;
          return { status: 404, body };
        }
        const t = sec(now());
        Object.assign(sub, {
          status: subscriptionCanceledFx.status,
          canceled_at: t,
          ended_at: t,
          cancel_at_period_end: false,
          cancel_at: null,
        });
        sub.cancellation_details = { ...subscriptionCanceledFx.cancellation_details, comment: p.get("cancellation_details[comment]") };
        if (p.get("invoice_now") === "true") sub.latest_invoice = `in_T${uid()}`;
        return { status: 200, body: clone(sub) };
      }
      if (r.method === "POST" && p.has("cancel_at_period_end")) {
        const cancel = p.get("cancel_at_period_end") === "true";
        sub.cancel_at_period_end = cancel;
        sub.cancel_at = cancel ? sub.items.data[0].current_period_end : null;
        sub.canceled_at = cancel ? sec(now()) : null;
        sub.cancellation_details.reason = cancel ? "cancellation_requested" : null;
      }
      return { status: 200, body: clone(sub) };
    }
    this.unexpected.push(`${r.method} ${r.path}`);
    return {
      status: 404,
      body: { error: { type: "invalid_request_error", message: `Unrecognized request URL (${r.method}: ${r.path})` } },
    };
  }
}

function summary(body: any): string {
  if (body?.error) return `error ${body.error.type}${body.error.code ? `/${body.error.code}` : ""}`;
  const bits = [body?.object, body?.id];
  if (body?.object === "subscription") {
    const i = body.items.data[0];
    bits.push(
      `status=${body.status}`,
      `price=${i.price.id}`,
      `period=${new Date(i.current_period_start * 1000).toISOString().slice(0, 10)}..${new Date(i.current_period_end * 1000).toISOString().slice(0, 10)}`,
    );
    if (body.cancel_at_period_end) bits.push("cancel_at_period_end");
  }
  if (body?.object === "checkout.session") bits.push(`status=${body.status}`);
  if (body?.object === "list") bits.push(`[${body.data.map((x: any) => `${x.id} ${x.status}`).join(", ")}]`);
  if (body?.object === "subscription" && body.status === "canceled" && body.cancellation_details?.comment)
    bits.push(`comment="${body.cancellation_details.comment}"`);
  if (body?.url) bits.push(body.url);
  return bits.filter(Boolean).join(" ");
}
