import { Hono } from "hono";
import { invoke } from "../../core/invoke";
import { now } from "../../core/clock";
import { ownerUsageHistory, ownerUsageToday } from "../../quota";
import { METRICS, METRIC_LABELS, PLANS, type Metric } from "../../quota";
import { UsageChart } from "../chart";
import { Meter, limitText, num, until, utc } from "../components";
import { page } from "../render";
import { webOp, type WebEnv } from "../web.context";

export const usagePages = new Hono<WebEnv>();

export type Today = Awaited<ReturnType<typeof ownerUsageToday.handler>>;

/** Today's metrics against their limits, as bars with the numbers beside them. */
export function TodayMetrics({ today, only }: { today: Today; only?: readonly Metric[] }) {
  return (
    <>
      {(only ?? METRICS).map((m) => {
        const u = today.metrics[m]!;
        return (
          <div class="metric">
            <div class="line">
              <span>{u.label}</span>
              <span class="num">
                {num(u.used)} / {limitText(u.limit)}
              </span>
            </div>
            <Meter used={u.used} limit={u.limit} label={u.label} />
          </div>
        );
      })}
    </>
  );
}

usagePages.get("/usage", async (c) => {
  const picked = c.req.query("metric");
  const metric: Metric = picked && (METRICS as readonly string[]).includes(picked) ? (picked as Metric) : "API_CALLS";
  const ctx = webOp(c);
  const [today, history] = await Promise.all([invoke(ownerUsageToday, ctx), invoke(ownerUsageHistory, ctx, { query: { days: "30" } })]);
  const pm = today.metrics.PER_MINUTE!;
  const days = history.days.map((d) => ({ date: d.date, used: d.metrics[metric].used, limit: d.metrics[metric].limit }));
  return page(
    c,
    { title: "Usage", section: "usage" },
    <>
      <h1>Usage</h1>
      <div class="grid">
        <section class="card">
          <h2>Plan</h2>
          <p>
            <strong>{PLANS[today.plan].name}</strong> · <a href="/dashboard/billing">change plan</a>
          </p>
        </section>
        <section class="card">
          <h2>Per minute</h2>
          <p>
            {num(pm.used)} of {num(today.perMinute)} requests in the last 60 s
          </p>
          <Meter used={pm.used} limit={today.perMinute} label="Requests in the last minute" />
        </section>
        <section class="card">
          <h2>Daily quotas reset</h2>
          <p>
            {utc(today.resetsAt)} ({until(today.resetsAt, now())})
          </p>
        </section>
      </div>
      <section class="card" aria-labelledby="today-h">
        <h2 id="today-h">Today (UTC)</h2>
        <p class="muted small">All your agents share these. A refused request (429) uses nothing.</p>
        <TodayMetrics today={today} />
      </section>
      <section class="card" aria-labelledby="hist-h">
        <h2 id="hist-h">Last 30 days: {METRIC_LABELS[metric]}</h2>
        <nav class="pick" aria-label="Metric shown">
          {METRICS.map((m) => (
            <a href={`/dashboard/usage?metric=${m}`} aria-current={m === metric ? "true" : undefined}>
              {METRIC_LABELS[m]}
            </a>
          ))}
        </nav>
        <UsageChart days={days} label={METRIC_LABELS[metric]} />
        <details>
          <summary>The numbers</summary>
          <div class="table">
            <table>
              <thead>
                <tr>
                  <th scope="col">Day</th>
                  <th scope="col">Plan</th>
                  <th scope="col" class="num">
                    Used
                  </th>
                  <th scope="col" class="num">
                    Limit
                  </th>
                </tr>
              </thead>
              <tbody>
                {history.days.map((d) => (
                  <tr>
                    <td>{d.date}</td>
                    <td>{PLANS[d.plan].name}</td>
                    <td class="num">{num(d.metrics[metric].used)}</td>
                    <td class="num">{limitText(d.metrics[metric].limit)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      </section>
    </>,
  );
});
