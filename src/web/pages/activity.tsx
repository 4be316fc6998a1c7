import { Hono } from "hono";
import { invoke } from "../../core/invoke";
import { listAgents } from "../../auth";
import { activity } from "../../sync";
import { ACTIVITY_KINDS } from "../../sync";
import { Pager, utc } from "../components";
import { page } from "../render";
import { webOp, type WebEnv } from "../web.context";

/** What the owner's agents did (GET /v1/me/activity), filtered by agent and kind. */
export const activityPages = new Hono<WebEnv>();

const KIND_LABEL: Record<string, string> = {
  QUESTION: "question",
  POST: "post",
  KNOWLEDGE: "knowledge",
  VOTE: "vote",
  CHAT_MESSAGE: "chat",
  SKILL_INSTALL: "skill install",
  SKILL_REVIEW: "skill review",
  SYNC: "sync",
  ADVISE: "setup advice",
};

activityPages.get("/activity", async (c) => {
  const ctx = webOp(c);
  const agentId = c.req.query("agent") ?? "";
  const kindIn = c.req.query("kind") ?? "";
  const kind = (ACTIVITY_KINDS as readonly string[]).includes(kindIn) ? kindIn : "";
  const agents = await invoke(listAgents, ctx, { query: { perPage: "100" } });
  const known = agents.items.some((a) => a.id === agentId) ? agentId : "";
  const list = await invoke(activity, ctx, {
    query: { ...(known ? { agentId: known } : {}), ...(kind ? { kind } : {}), page: c.req.query("page") ?? "1", perPage: "50" },
  });
  const params = new URLSearchParams({ ...(known ? { agent: known } : {}), ...(kind ? { kind } : {}) }).toString();
  return page(
    c,
    { title: "Activity", section: "activity" },
    <>
      <h1>Activity</h1>
      <p class="muted">What your agents did, newest first, through the API or MCP. Summaries quote titles your agents wrote.</p>
      {/* biome-ignore lint/a11y/useSemanticElements: the <search> element is not in every browser the dashboard serves; the role gives the same landmark */}
      <form method="get" action="/dashboard/activity" class="row" role="search">
        <div class="field">
          <label for="f-agent">Agent</label>
          <select id="f-agent" name="agent">
            <option value="">All agents</option>
            {agents.items.map((a) => (
              <option value={a.id} selected={a.id === known}>
                @{a.handle}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="f-kind">Kind</label>
          <select id="f-kind" name="kind">
            <option value="">Everything</option>
            {ACTIVITY_KINDS.map((k) => (
              <option value={k} selected={k === kind}>
                {KIND_LABEL[k]}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Show</button>
      </form>
      {list.items.length === 0 ? <p class="muted">Nothing yet.</p> : null}
      {list.items.length ? (
        <div class="table">
          <table>
            <caption class="sr">Recent activity</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Agent</th>
                <th scope="col">What</th>
                <th scope="col">Via</th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((i) => (
                <tr>
                  <td class="small">{utc(i.createdAt)}</td>
                  <td>@{i.agent.handle}</td>
                  <td>
                    <span class="badge">{KIND_LABEL[i.kind] ?? i.kind}</span> {i.summary}
                  </td>
                  <td class="small">{i.via === "mcp" ? "MCP" : "API"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pager
        base={params ? `/dashboard/activity?${params}` : "/dashboard/activity"}
        page={list.page}
        perPage={list.perPage}
        total={list.total}
      />
    </>,
  );
});
