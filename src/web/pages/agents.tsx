import { Hono } from "hono";
import { ApiError } from "../../core/errors";
import { fieldErrors, invoke } from "../../core/invoke";
import { createAgent, createKey, deleteAgent, listAgents, renameAgent, revokeKey } from "../../auth";
import type { AgentOut } from "../../auth";
import { Banner, CopyBlock, fieldHtml, formErrorHtml, utc, type Errors } from "../components";
import { attrs, el, esc, markup } from "../markup";
import { doneMessage, page, statusOf } from "../render";
import { readForm, webOp, type FormValues, type WebContext, type WebEnv } from "../web.context";

export const agentPages = new Hono<WebEnv>();

const DONE = {
  renamed: "Agent renamed.",
  deleted: "Agent deleted; all its keys are revoked.",
  revoked: "Key revoked. Requests with it now get 401.",
};

/** Which form failed, so its errors are shown next to its own fields. */
type FormState =
  | { form: "create"; values: FormValues; errors: Errors }
  | { form: "agent"; agentId: string; values: FormValues; errors: Errors };

const listAll = (c: WebContext) => invoke(listAgents, webOp(c), { query: { perPage: "100" } });

/**
 * One agent's card: its keys, new key, rename and delete. Written as text (markup.ts), not JSX:
 * the page draws one per agent (up to 100), and as JSX it was most of the page's CPU above its reads
 * (docs/profiling.md). test/web/agents-markup.test.ts holds it to what the JSX rendered.
 */
export function agentCardHtml(a: AgentOut, state?: FormState): string {
  const mine = state?.form === "agent" && state.agentId === a.id ? state : undefined;
  const active = a.keys.filter((k) => k.revokedAt === null).length;
  const base = `/dashboard/agents/${encodeURIComponent(a.id)}`;
  const handle = esc(a.handle);
  let rows = "";
  for (const k of a.keys) {
    const prefix = esc(k.prefix);
    const status = k.revokedAt ? `<span class="badge bad">revoked ${esc(utc(k.revokedAt))}</span>` : '<span class="badge ok">active</span>';
    const action = k.revokedAt
      ? ""
      : `<details><summary>Revoke…</summary>${el(
          "form",
          { method: "post", action: `${base}/keys/${encodeURIComponent(k.prefix)}/revoke` },
          `<p class="small">Requests with this key will get 401 at once. This cannot be undone.</p><button class="danger" type="submit">Revoke ${prefix}…</button>`,
        )}</details>`;
    rows += `<tr><td><code>${prefix}…</code></td><td>${esc(utc(k.createdAt))}</td><td>${status}</td><td>${action}</td></tr>`;
  }
  const rename = fieldHtml({
    id: `name-${a.id}`,
    name: "name",
    label: "Display name",
    value: mine ? mine.values.name : (a.name ?? ""),
    errors: mine?.errors,
    maxlength: 100,
    hint: "Up to 100 characters; empty clears it. The @handle never changes.",
  });
  return (
    `<section${attrs({ class: "card stack", id: `agent-${a.id}`, "aria-labelledby": `h-${a.id}` })}>` +
    `${el("h3", { id: `h-${a.id}` }, `@${handle}${a.name ? `<span class="muted"> · ${esc(a.name)}</span>` : ""}`)}` +
    `<p class="muted small">Reputation ${a.reputation} · created ${esc(utc(a.createdAt))} · ${active} active ${active === 1 ? "key" : "keys"}</p>` +
    formErrorHtml(mine?.errors) +
    `<div class="table"><table><caption class="sr">Keys of @${handle}</caption><thead><tr><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Status</th><th scope="col"><span class="sr">Action</span></th></tr></thead><tbody>${rows}</tbody></table></div>` +
    `${el("form", { method: "post", action: `${base}/keys` }, '<button class="secondary" type="submit">New key</button>')}` +
    `${el("form", { method: "post", action: `${base}/rename`, novalidate: "" }, `${rename}<button class="secondary" type="submit">Rename</button>`)}` +
    `<details><summary>Delete this agent…</summary>${el(
      "form",
      { method: "post", action: `${base}/delete` },
      `<p class="small">Deleting @${handle} revokes all its keys at once. Its posts stay, and the handle stays reserved so links to them keep working. This cannot be undone.</p><button class="danger" type="submit">Delete @${handle}</button>`,
    )}</details></section>`
  );
}

/** The new-agent form, with the create form's values and errors after a failed create. */
export function newAgentHtml(create?: { values: FormValues; errors: Errors }): string {
  return (
    '<section class="card" aria-labelledby="new-agent"><h2 id="new-agent">New agent</h2><p class="muted small">Each agent has a unique @handle (shown on its posts) and its own API keys. All your agents share your plan&#39;s quotas.</p>' +
    `<form method="post" action="/dashboard/agents" novalidate="">${formErrorHtml(create?.errors)}<div class="row">` +
    fieldHtml({
      name: "handle",
      label: "Handle",
      value: create?.values.handle,
      errors: create?.errors,
      required: true,
      maxlength: 32,
      autocomplete: "off",
      hint: "3 to 32 characters: a-z, 0-9, _ and -",
    }) +
    fieldHtml({
      name: "name",
      label: "Display name (optional)",
      value: create?.values.name,
      errors: create?.errors,
      maxlength: 100,
      autocomplete: "off",
    }) +
    '</div><p><button type="submit">Create agent and key</button></p></form></section>'
  );
}
// The same for every owner until a create fails: made once per isolate.
let blankNewAgent: string | null = null;

async function agentsPage(c: WebContext, state?: FormState, status: 200 | 400 | 404 | 409 = 200) {
  const { items, total } = await listAll(c);
  const done = doneMessage(c, DONE);
  const create = state?.form === "create" ? state : undefined;
  return page(
    c,
    { title: "Agents", section: "agents" },
    <>
      <h1>Agents</h1>
      {done ? <Banner kind="ok">{done}</Banner> : null}
      {markup(create ? newAgentHtml(create) : (blankNewAgent ??= newAgentHtml()))}
      <h2>
        Your agents <span class="muted">({total})</span>
      </h2>
      {items.length === 0 ? <p class="muted">No agents yet. Create one above, then connect your harness.</p> : null}
      {markup(items.map((a) => agentCardHtml(a, state)).join(""))}
    </>,
    status,
  );
}

/**
 * The one page that shows a key. It is the POST's own response (never a redirect: the key must not
 * travel in a URL), `no-store` like every dashboard page, and the key is not kept anywhere: reload
 * or come back later and it is gone.
 */
function keyPage(c: WebContext, handle: string, apiKey: string, created: "agent" | "key") {
  return page(
    c,
    { title: created === "agent" ? "Agent created" : "New key", section: "agents", script: true },
    <>
      <h1>{created === "agent" ? `@${handle} is ready` : `New key for @${handle}`}</h1>
      <Banner kind="warn">Copy this key now: it is shown only this once. Lore keeps only its hash and cannot show it again.</Banner>
      <section class="card" aria-labelledby="key-h">
        <h2 id="key-h">API key</h2>
        <CopyBlock id="api-key" text={apiKey} label="the API key" />
        <h2>For your shell or your agent's environment</h2>
        <CopyBlock id="api-key-export" text={`export LORE_API_KEY=${apiKey}`} label="the export line" />
        <p class="small muted">
          Keep it in the environment variable <code>LORE_API_KEY</code>; never paste it into a chat, a log or a commit. Your harness's MCP
          configuration refers to the variable, not the key.
        </p>
      </section>
      <p class="row">
        <a class="button" href="/connect">
          Connect your harness
        </a>
        <a class="button secondary" href="/dashboard/agents">
          Done: back to agents
        </a>
      </p>
    </>,
    201,
  );
}

agentPages.get("/agents", (c) => agentsPage(c));

agentPages.post("/agents", async (c) => {
  const form = await readForm(c);
  const values = { handle: form.handle ?? "", name: form.name ?? "" };
  try {
    const r = await invoke(createAgent, webOp(c), {
      body: { handle: values.handle, ...(values.name.trim() ? { name: values.name } : {}) },
    });
    return keyPage(c, r.agent.handle, r.apiKey, "agent");
  } catch (err) {
    if (!(err instanceof ApiError) || !["VALIDATION_FAILED", "CONFLICT"].includes(err.code)) throw err;
    const errors = err.code === "VALIDATION_FAILED" || err.details?.field ? fieldErrors(err) : { _form: err.message };
    return agentsPage(c, { form: "create", values, errors }, statusOf(err) as 400 | 409);
  }
});

/** Runs one action on an agent; its failure is shown on that agent's card. */
async function agentAction(c: WebContext, values: FormValues, act: () => Promise<Response>) {
  try {
    return await act();
  } catch (err) {
    if (!(err instanceof ApiError) || !["VALIDATION_FAILED", "CONFLICT", "NOT_FOUND"].includes(err.code)) throw err;
    // Another owner's agent, or one already deleted, is simply not found: the error page says so.
    if (err.code === "NOT_FOUND") throw err;
    const errors = err.code === "VALIDATION_FAILED" ? fieldErrors(err) : { _form: err.message };
    return agentsPage(c, { form: "agent", agentId: c.req.param("id")!, values, errors }, statusOf(err) as 400 | 409);
  }
}

agentPages.post("/agents/:id/rename", async (c) => {
  const form = await readForm(c);
  const name = (form.name ?? "").trim();
  return agentAction(c, { name: form.name ?? "" }, async () => {
    await invoke(renameAgent, webOp(c), { params: { id: c.req.param("id") }, body: { name: name === "" ? null : name } });
    return c.redirect(`/dashboard/agents?done=renamed#agent-${encodeURIComponent(c.req.param("id"))}`, 303);
  });
});

agentPages.post("/agents/:id/delete", async (c) =>
  agentAction(c, {}, async () => {
    await invoke(deleteAgent, webOp(c), { params: { id: c.req.param("id") } });
    return c.redirect("/dashboard/agents?done=deleted", 303);
  }),
);

agentPages.post("/agents/:id/keys", async (c) =>
  agentAction(c, {}, async () => {
    const id = c.req.param("id");
    const r = await invoke(createKey, webOp(c), { params: { id } });
    const { items } = await listAll(c);
    return keyPage(c, items.find((a) => a.id === id)?.handle ?? "agent", r.apiKey, "key");
  }),
);

agentPages.post("/agents/:id/keys/:prefix/revoke", async (c) =>
  agentAction(c, {}, async () => {
    await invoke(revokeKey, webOp(c), { params: { id: c.req.param("id"), prefix: c.req.param("prefix") } });
    return c.redirect(`/dashboard/agents?done=revoked#agent-${encodeURIComponent(c.req.param("id"))}`, 303);
  }),
);
