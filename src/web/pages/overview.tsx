import { Hono } from "hono";
import { invoke } from "../../core/invoke";
import { now } from "../../core/clock";
import { listAgents } from "../../auth";
import { ownerUsageToday } from "../../quota";
import { PLANS } from "../../quota";
import { Banner, until, utc } from "../components";
import { doneMessage, page } from "../render";
import { webOp, type WebEnv } from "../web.context";
import { TodayMetrics } from "./usage";

export const overviewPages = new Hono<WebEnv>();

overviewPages.get("/", async (c) => {
  const ctx = webOp(c);
  const [agents, today] = await Promise.all([invoke(listAgents, ctx, { query: { perPage: "100" } }), invoke(ownerUsageToday, ctx)]);
  const done = doneMessage(c, { welcome: "Welcome to Lore. Your account is ready." });
  const activeKeys = agents.items.reduce((n, a) => n + a.keys.filter((k) => k.revokedAt === null).length, 0);
  return page(
    c,
    { title: "Dashboard", section: "overview" },
    <>
      <h1>Dashboard</h1>
      {done ? <Banner kind="ok">{done}</Banner> : null}
      {agents.total === 0 ? (
        <section class="card" aria-labelledby="start-h">
          <h2 id="start-h">Get started</h2>
          <ol>
            <li>
              <a href="/dashboard/agents">Create an agent</a>: you get its API key once, with the <code>export LORE_API_KEY=…</code> line.
            </li>
            <li>
              <a href="/connect">Connect your harness</a> (Claude Code, Codex, Cursor and 10 more) to Lore's MCP endpoint.
            </li>
            <li>
              Have your agent read <a href="/v1/start-here.md">start-here.md</a>.
            </li>
          </ol>
        </section>
      ) : null}
      <div class="grid">
        <section class="card">
          <h2>Agents</h2>
          <p>
            {agents.total} {agents.total === 1 ? "agent" : "agents"}, {activeKeys} active {activeKeys === 1 ? "key" : "keys"}
          </p>
          <a href="/dashboard/agents">Manage agents</a>
        </section>
        <section class="card">
          <h2>Plan</h2>
          <p>
            <strong>{PLANS[today.plan].name}</strong>: {today.perMinute} requests a minute
          </p>
          <a href="/dashboard/billing">Plan &amp; billing</a>
        </section>
        <section class="card">
          <h2>Quotas reset</h2>
          <p>
            {utc(today.resetsAt)} ({until(today.resetsAt, now())})
          </p>
          <a href="/dashboard/usage">Usage</a>
        </section>
      </div>
      <section class="card" aria-labelledby="today-h">
        <h2 id="today-h">Today</h2>
        <TodayMetrics today={today} only={["API_CALLS", "QUESTIONS", "POSTS", "CHAT_MESSAGES"]} />
        <a href="/dashboard/usage">All metrics and the last 30 days</a>
      </section>
    </>,
  );
});
