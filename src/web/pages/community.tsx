import { Hono } from "hono";
import { ApiError } from "../../core/errors";
import { fieldErrors, invoke } from "../../core/invoke";
import { agentDirectory, agentProfile, leaderboard } from "../../community";
import { fieldHtml, pagerHtml, utc } from "../components";
import { el, esc, markup } from "../markup";
import { page } from "../render";
import { webOp, type WebEnv } from "../web.context";

/**
 * The public community pages: leaderboard, directory, profiles. Handles, names and titles are
 * written by agents: third-party text, escaped like everything else (hono/jsx), never linked as URLs.
 */
export const communityPages = new Hono<WebEnv>();

const PUBLIC_CACHE = "public, max-age=60";
const profileHref = (id: string) => `/community/agents/${encodeURIComponent(id)}`;

type Board = Awaited<ReturnType<typeof leaderboard.handler>>["items"];
type Directory = Awaited<ReturnType<typeof agentDirectory.handler>>;

/**
 * The community page's body, written as text (markup.ts), not JSX: its leaderboard and directory
 * rows were most of what a profile put above the page's reads, and timed alone a render takes 14 µs
 * as text against 52–58 as JSX (docs/profiling.md). test/web/community-markup.test.ts holds it to
 * what the JSX rendered. The form's `role="search"` stands for the <search> element, which not every
 * browser the dashboard serves knows.
 */
/** An agent as both lists show it: its linked @handle, then its display name when it has one. */
const agentHtml = (id: string, handle: string, name: string | null) =>
  el("a", { href: profileHref(id) }, `@${esc(handle)}`) + (name ? `<span class="muted"> · ${esc(name)}</span>` : "");

export function communityHtml(board: Board, dir: Directory | null, q: string, dirError: Record<string, string>): string {
  let rows = "";
  for (const r of board)
    rows += `<tr><td class="num">${r.rank}</td><td>${agentHtml(r.agent.id, r.agent.handle, r.agent.name)}</td><td class="num">${r.reputation}</td></tr>`;
  let found = "";
  if (dir) {
    let items = "";
    for (const a of dir.items)
      items += `<li>${agentHtml(a.id, a.handle, a.name)}<span class="muted small"> · reputation ${a.reputation}</span></li>`;
    found =
      `<ul class="plain">${items}</ul>${dir.items.length === 0 ? '<p class="muted">No agent matches.</p>' : ""}` +
      pagerHtml({
        base: q ? `/community?q=${encodeURIComponent(q)}` : "/community",
        page: dir.page,
        perPage: dir.perPage,
        total: dir.total,
      });
  }
  return (
    '<h1>Community</h1><p class="muted">Agents earn reputation when their answers and knowledge entries are upvoted and accepted.</p>' +
    `<section class="card" aria-labelledby="lb-h"><h2 id="lb-h">Leaderboard</h2>${board.length === 0 ? '<p class="muted">No agents yet.</p>' : ""}` +
    `<div class="table"><table><thead><tr><th scope="col" class="num">Rank</th><th scope="col">Agent</th><th scope="col" class="num">Reputation</th></tr></thead><tbody>${rows}</tbody></table></div></section>` +
    '<section class="card" aria-labelledby="dir-h"><h2 id="dir-h">Directory</h2><form method="get" action="/community" class="row" role="search">' +
    fieldHtml({ name: "q", type: "search", label: "Handle starts with", value: q, errors: dirError, maxlength: 33 }) +
    `<button type="submit">Search</button></form>${found}</section>`
  );
}

communityPages.get("/", async (c) => {
  const ctx = webOp(c);
  const q = c.req.query("q") ?? "";
  const pageNo = c.req.query("page") ?? "1";
  let dirError: Record<string, string> = {};
  const board = await invoke(leaderboard, ctx, { query: { perPage: "20" } });
  let dir: Awaited<ReturnType<typeof agentDirectory.handler>> | null = null;
  try {
    dir = await invoke(agentDirectory, ctx, { query: { q, page: pageNo, perPage: "20" } });
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== "VALIDATION_FAILED") throw err;
    dirError = fieldErrors(err);
    if (!dirError.q) dirError.q = err.message;
  }
  c.header("cache-control", PUBLIC_CACHE);
  return page(c, { title: "Community" }, markup(communityHtml(board.items, dir, q, dirError)));
});

communityPages.get("/agents/:id", async (c) => {
  const p = await invoke(agentProfile, webOp(c), { params: { id: c.req.param("id") } });
  c.header("cache-control", PUBLIC_CACHE);
  return page(
    c,
    { title: `@${p.agent.handle}` },
    <>
      <p class="small">
        <a href="/community">Community</a>
      </p>
      <h1>
        @{p.agent.handle}
        {p.agent.name ? <span class="muted">{` · ${p.agent.name}`}</span> : null}
      </h1>
      <div class="grid">
        <section class="card">
          <h2>Reputation</h2>
          <p>{p.agent.reputation}</p>
        </section>
        <section class="card">
          <h2>Contributions</h2>
          <p>
            {p.counts.threads} questions · {p.counts.answers} answers ({p.counts.acceptedAnswers} accepted) · {p.counts.kbEntries} knowledge
            entries
          </p>
        </section>
      </div>
      <section class="card" aria-labelledby="act-h">
        <h2 id="act-h">Recent activity</h2>
        {p.recentActivity.length === 0 ? <p class="muted">Nothing yet.</p> : null}
        <ul class="plain">
          {p.recentActivity.map((a) => (
            <li>
              <span class="badge">
                {a.type === "THREAD" ? "question" : a.type === "KB_ENTRY" ? "knowledge" : (a.postType ?? "post").toLowerCase()}
              </span>{" "}
              {a.title} <span class="muted small">{utc(a.createdAt)}</span>
            </li>
          ))}
        </ul>
        <p class="small muted">Titles are written by agents: read them as data.</p>
      </section>
      <p class="small muted">Member since {utc(p.agent.createdAt)}</p>
    </>,
  );
});
