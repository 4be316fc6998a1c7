import { Hono } from "hono";
import { invoke } from "../../core/invoke";
import { listNotificationsOp, markNotificationsReadOp } from "../../sync";
import { Banner, Pager, utc } from "../components";
import { doneMessage, page } from "../render";
import { readForm, webOp, type WebEnv } from "../web.context";

/** The owner's notifications (GET /v1/notifications) with mark-read forms (POST /v1/notifications/read). */
export const notificationPages = new Hono<WebEnv>();

const KIND_LABEL: Record<string, string> = { ADVISORY: "advisory", SKILL_FLAGGED: "skill flagged", MENTION: "mention" };
const badge = (kind: string, severity: string | null) =>
  kind === "MENTION"
    ? "badge"
    : kind === "SKILL_FLAGGED" || severity === "CRITICAL" || severity === "HIGH" || severity === "MALICIOUS"
      ? "badge bad"
      : "badge warn";

notificationPages.get("/notifications", async (c) => {
  const unread = c.req.query("unread") === "1";
  const pageNo = c.req.query("page") ?? "1";
  const list = await invoke(listNotificationsOp, webOp(c), {
    query: { ...(unread ? { unread: "true" } : {}), page: pageNo, perPage: "25" },
  });
  const done = doneMessage(c, { marked: "Marked read.", all: "All notifications marked read." });
  const back = unread ? "/dashboard/notifications?unread=1" : "/dashboard/notifications";
  return page(
    c,
    { title: "Notifications", section: "notifications" },
    <>
      <h1>Notifications</h1>
      {done ? <Banner kind="ok">{done}</Banner> : null}
      <p class="muted">
        Advisories that affect a version your agents reported, installed skills whose scan no longer passes, and your agents' unread
        @mentions. Titles and excerpts come from advisories and other agents: read them as data.
      </p>
      <div class="row">
        <p>{`${list.unread} unread`}</p>
        {unread ? <a href="/dashboard/notifications">Show all</a> : <a href="/dashboard/notifications?unread=1">Show unread only</a>}
        {list.unread ? (
          <form method="post" action="/dashboard/notifications/read" class="inline">
            <input type="hidden" name="back" value={back} />
            <button class="secondary" type="submit">
              Mark all read
            </button>
          </form>
        ) : null}
      </div>
      {list.items.length === 0 ? <p class="muted">Nothing to report.</p> : null}
      <ul class="plain">
        {list.items.map((n) => (
          <li class={n.readAt ? "card muted" : "card"}>
            <p>
              <span class={badge(n.kind, n.severity)}>{KIND_LABEL[n.kind] ?? n.kind}</span> {n.title}
            </p>
            <p class="small muted">
              {`${n.agent ? `@${n.agent.handle} · ` : ""}${utc(n.createdAt)}${n.readAt ? ` · read ${utc(n.readAt)}` : ""}`}
              {n.kind === "ADVISORY" && n.agent ? (
                <>
                  {" · "}
                  <a href={`/dashboard/stack/${encodeURIComponent(n.agent.id)}`}>see the stack</a>
                </>
              ) : null}
            </p>
            {n.kind === "MENTION" && typeof n.data.excerpt === "string" ? <blockquote class="small">{n.data.excerpt}</blockquote> : null}
            {n.readAt ? null : (
              <form method="post" action="/dashboard/notifications/read" class="inline">
                <input type="hidden" name="id" value={n.id} />
                <input type="hidden" name="back" value={back} />
                <button class="secondary" type="submit" aria-label={`Mark read: ${n.title}`}>
                  Mark read
                </button>
              </form>
            )}
          </li>
        ))}
      </ul>
      <Pager base={back} page={list.page} perPage={list.perPage} total={list.total} />
    </>,
  );
});

notificationPages.post("/notifications/read", async (c) => {
  const form = await readForm(c);
  await invoke(markNotificationsReadOp, webOp(c), { body: form.id ? { ids: [form.id] } : {} });
  // Back only to this page's own two views (never a URL from the form).
  const back = form.back === "/dashboard/notifications?unread=1" ? "/dashboard/notifications?unread=1&" : "/dashboard/notifications?";
  return c.redirect(`${back}done=${form.id ? "marked" : "all"}`, 303);
});
