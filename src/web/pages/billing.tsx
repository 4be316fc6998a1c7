import { Hono } from "hono";
import { ApiError } from "../../core/errors";
import { invoke } from "../../core/invoke";
import { cancelOp, getBillingOp, portalOp, subscribeOp } from "../../billing";
import { listPlans } from "../../quota";
import { METRICS, METRIC_LABELS, type PlanId } from "../../quota";
import { Banner, limitText, num, utc } from "../components";
import { doneMessage, page, statusOf } from "../render";
import { STRIPE_FORM_TARGETS } from "../assets";
import { readForm, webOp, type WebContext, type WebEnv } from "../web.context";

export const billingPages = new Hono<WebEnv>();

const DONE = {
  subscribed: "Your plan is active. Its limits apply now.",
  resumed: "Renewal resumed: your plan renews at the end of the period.",
  canceled: "Renewal canceled. Your plan keeps its limits until the period ends, then for 3 days of grace.",
  stripe: "Back from Stripe. Changes made there show here as soon as Stripe confirms them (usually within seconds): reload to see them.",
};

/** Where Stripe sends the owner back; Checkout adds `checkout=success|canceled` (billing.ops `returnPath`). */
const RETURN_PATH = "/dashboard/billing?done=stripe";

/** The codes Stripe Checkout's return adds; fixed texts, nothing from the URL is shown. */
const CHECKOUT = {
  success: {
    kind: "ok",
    text: "Payment received by Stripe. Your new plan applies as soon as Stripe confirms it (usually within seconds): reload to see it.",
  },
  canceled: { kind: "warn", text: "Checkout canceled: nothing was charged and your plan is unchanged." },
} as const;

const STATUS_TEXT = {
  ACTIVE: "Active: renews at the end of the period",
  CANCELED: "Canceled: runs until the end of the period, then 3 days of grace",
  GRACE: "In grace: the period ended; the paid limits hold until the grace ends",
  NONE: "Free plan",
} as const;

type Billing = Awaited<ReturnType<typeof getBillingOp.handler>>;

/** What the button under a plan does, given the subscription (the operation decides; this only labels it). */
function action(plan: PlanId, b: Billing): { label: string; enabled: boolean } {
  if (plan === "FREE") return { label: b.status === "NONE" ? "Your plan" : "Cancel renewal above to return to Free", enabled: false };
  if (b.subscribedPlan === plan && b.status === "ACTIVE") return { label: "Your plan", enabled: false };
  if (b.subscribedPlan === plan && b.status === "CANCELED") return { label: "Resume renewal", enabled: true };
  if (b.subscribedPlan === plan && b.status === "GRACE") return { label: "Renew", enabled: true };
  return { label: b.status === "NONE" ? "Subscribe" : "Switch", enabled: true };
}

async function billingPage(c: WebContext, error?: string, status: 200 | 400 | 409 = 200) {
  const ctx = webOp(c);
  const [b, plans] = await Promise.all([invoke(getBillingOp, ctx), invoke(listPlans, ctx)]);
  const checkout = c.req.query("checkout");
  const back = checkout && Object.hasOwn(CHECKOUT, checkout) ? CHECKOUT[checkout as keyof typeof CHECKOUT] : null;
  const done = back ? null : doneMessage(c, DONE);
  const local = b.provider.name === "local";
  // Under Stripe this page's forms end on Stripe's pages (POST → 303 → Checkout or the portal):
  // its form-action must name them (assets.ts), and only this page's does.
  if (b.provider.name === "stripe") c.set("formTargets", STRIPE_FORM_TARGETS);
  return page(
    c,
    { title: "Plan & billing", section: "billing" },
    <>
      <h1>Plan &amp; billing</h1>
      {back ? <Banner kind={back.kind}>{back.text}</Banner> : null}
      {done ? <Banner kind="ok">{done}</Banner> : null}
      {error ? <Banner kind="bad">{error}</Banner> : null}
      {/* What Lore did without being asked (a duplicate Stripe subscription canceled): newest first. */}
      {(b.notices ?? []).map((n) => (
        <Banner kind="warn">
          {utc(n.at)}: {n.message}
        </Banner>
      ))}
      <section class="card" aria-labelledby="sub-h">
        <h2 id="sub-h">Your subscription</h2>
        <div class="table">
          <table>
            <tbody>
              <tr>
                <th scope="row">Limits in force</th>
                <td>{plans.items.find((p) => p.id === b.plan)!.name}</td>
              </tr>
              <tr>
                <th scope="row">Status</th>
                <td>{STATUS_TEXT[b.status]}</td>
              </tr>
              {b.subscribedPlan ? (
                <>
                  <tr>
                    <th scope="row">Subscribed plan</th>
                    <td>{plans.items.find((p) => p.id === b.subscribedPlan)!.name}</td>
                  </tr>
                  <tr>
                    <th scope="row">{b.status === "ACTIVE" ? "Renews" : "Period ends"}</th>
                    <td>{utc(b.periodEnd)}</td>
                  </tr>
                  <tr>
                    <th scope="row">Grace ends</th>
                    <td>{utc(b.graceEndsAt)}</td>
                  </tr>
                </>
              ) : null}
            </tbody>
          </table>
        </div>
        {b.provider.portal ? (
          <form method="post" action="/dashboard/billing/portal">
            <p class="small muted">Cards, invoices, plan changes and cancelling, on Stripe's billing portal.</p>
            <p>
              <button class="secondary" type="submit">
                Manage billing
              </button>
            </p>
          </form>
        ) : null}
        {b.status === "ACTIVE" ? (
          <details>
            <summary>Cancel renewal…</summary>
            <form method="post" action="/dashboard/billing/cancel">
              <p class="small">
                Your plan keeps its limits until {utc(b.periodEnd)}, then for 3 days of grace (until {utc(b.graceEndsAt)}), then your
                account returns to Free. You can resume before the period ends.
              </p>
              <button class="danger" type="submit">
                Cancel renewal
              </button>
            </form>
          </details>
        ) : null}
      </section>
      <section class="card" aria-labelledby="plans-h">
        <h2 id="plans-h">Plans</h2>
        {b.provider.name === "none" ? (
          <p class="small muted">
            Paid plans are not available on this server: its operator has not set up billing. Your account keeps its current plan.
          </p>
        ) : local ? (
          <p class="small muted">
            Payments here go through the local provider: no card is charged, and a change applies at once for one calendar month.
          </p>
        ) : (
          <p class="small muted">
            Payments go through Stripe: subscribing opens Stripe Checkout, and switching plans opens Stripe's billing portal to confirm.
            Your plan changes as soon as Stripe confirms the payment.
          </p>
        )}
        <ul class="grid plain plans">
          {plans.items.map((p) => {
            const a =
              b.provider.name === "none" && p.id !== "FREE" ? { label: "Not available on this server", enabled: false } : action(p.id, b);
            const current = p.id === b.plan;
            return (
              <li class={current ? "card current" : "card"} aria-labelledby={`plan-${p.id}`}>
                <h3 id={`plan-${p.id}`}>
                  {p.name} {current ? <span class="badge ok">current</span> : null}
                </h3>
                <p class="price">
                  <strong>{`$${p.priceUsdPerMonth}`}</strong> <span class="muted">per month</span>
                </p>
                <dl>
                  {METRICS.map((m) => (
                    <div>
                      <dt>{METRIC_LABELS[m]}</dt>
                      <dd>{`${limitText(p.daily[m])}${p.daily[m] === null ? "" : " a day"}`}</dd>
                    </div>
                  ))}
                  <div>
                    <dt>Requests per minute</dt>
                    <dd>{num(p.perMinute)}</dd>
                  </div>
                </dl>
                {a.enabled ? (
                  <form method="post" action="/dashboard/billing/subscribe">
                    <input type="hidden" name="plan" value={p.id} />
                    <button type="submit" aria-label={`${a.label}: ${p.name}, $${p.priceUsdPerMonth} per month`}>
                      {a.label}
                    </button>
                  </form>
                ) : (
                  <p class="muted small">{a.label}</p>
                )}
              </li>
            );
          })}
        </ul>
        <p class="small muted">
          {local
            ? "Switching to another plan starts a new month from now at its full price. "
            : "Stripe settles a switch on your next invoice (the difference for the rest of the period). "}
          A paid plan that is not renewed keeps its limits for 3 days after its period ends.
        </p>
      </section>
    </>,
    status,
  );
}

billingPages.get("/billing", (c) => billingPage(c));

/**
 * Runs a change; a refused one (already on that plan, no Stripe customer yet) is shown on the page,
 * not as an error page. `act` answers where to go: back to this page with a code, or (Stripe) a
 * Checkout or portal URL.
 */
async function change(c: WebContext, act: () => Promise<string>) {
  try {
    return c.redirect(await act(), 303);
  } catch (err) {
    if (!(err instanceof ApiError) || !["VALIDATION_FAILED", "CONFLICT"].includes(err.code)) throw err;
    return billingPage(c, err.message, statusOf(err) as 400 | 409);
  }
}

billingPages.post("/billing/subscribe", async (c) => {
  const form = await readForm(c);
  return change(c, async () => {
    const r = await invoke(subscribeOp, webOp(c), { body: { plan: form.plan ?? "", returnPath: RETURN_PATH } });
    // Stripe: Checkout (no subscription yet) or the portal's confirm-switch page. Otherwise the change is done.
    if (r.redirect) return r.redirect.url;
    return `/dashboard/billing?done=${r.provider.name === "local" ? "subscribed" : "resumed"}`;
  });
});

billingPages.post("/billing/cancel", async (c) =>
  change(c, async () => {
    await invoke(cancelOp, webOp(c));
    return "/dashboard/billing?done=canceled";
  }),
);

billingPages.post("/billing/portal", async (c) =>
  change(c, async () => (await invoke(portalOp, webOp(c), { body: { returnPath: RETURN_PATH } })).url),
);
