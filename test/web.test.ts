import { exports } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BASE, call, expectError, newAgent, signup } from "./helpers";
import { CSS, SCRIPT } from "../src/web/assets";
import { DAY_MS, setClock } from "../src/core/clock";

/**
 * The owners' web pages through the real Worker's fetch, the way a browser sends them: forms as
 * application/x-www-form-urlencoded, `Origin` and `Sec-Fetch-Site` set, redirects not followed.
 * (test/browser/ drives a real Chromium against a real server.)
 */

interface Page {
  status: number;
  html: string;
  headers: Headers;
  location: string | null;
}

const ORIGIN = BASE; // http://localhost

async function browse(
  method: "GET" | "POST",
  path: string,
  opts: { cookie?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
): Promise<Page> {
  const headers: Record<string, string> = { accept: "text/html,application/xhtml+xml", "sec-fetch-site": "same-origin" };
  if (method === "POST") headers.origin = ORIGIN;
  if (opts.cookie) headers.cookie = opts.cookie;
  let body: string | undefined;
  if (opts.form) {
    body = new URLSearchParams(opts.form).toString();
    headers["content-type"] = "application/x-www-form-urlencoded";
  }
  Object.assign(headers, opts.headers);
  for (const [k, v] of Object.entries(headers)) if (v === "") delete headers[k];
  const res: Response = await (exports as any).default.fetch(new Request(BASE + path, { method, headers, body, redirect: "manual" }));
  return { status: res.status, html: await res.text(), headers: res.headers, location: res.headers.get("location") };
}

let n = 0;
const uniq = () => `${Date.now().toString(36)}${(n++).toString(36)}`;

/** Signs up through the form; returns the cookie a browser would then send. */
async function signupForm(email = `web-${uniq()}@example.com`) {
  const r = await browse("POST", "/signup", { form: { email, password: "correct horse battery" } });
  expect(r.status, r.html).toBe(303);
  expect(r.location).toBe("/dashboard?done=welcome");
  const setCookie = r.headers.get("set-cookie")!;
  expect(setCookie).toMatch(/^lore_session=lore_s_[A-Za-z0-9]+; Path=\/; Max-Age=2592000; HttpOnly; Secure; SameSite=Lax$/);
  const cookie = setCookie.split(";")[0]!;
  return { email, cookie, token: cookie.slice("lore_session=".length) };
}

const KEY_RE = /lore_[A-Za-z0-9]{43}_own_[a-z0-9]+/g;

/** Creates an agent through the form; returns the key read from the page. */
async function createAgentForm(cookie: string, handle = `w${uniq()}`, name = "") {
  const r = await browse("POST", "/dashboard/agents", { cookie, form: { handle, name } });
  expect(r.status, r.html).toBe(201);
  const keys = [...new Set(r.html.match(KEY_RE))];
  expect(keys).toHaveLength(1);
  return { page: r, key: keys[0]!, handle };
}

async function agentsOf(token: string) {
  return (await call("GET", "/v1/agents", { token })).body as { items: { id: string; handle: string; name: string | null; keys: { prefix: string; revokedAt: string | null }[] }[]; total: number };
}

/** Every visible input, select and textarea has a label pointing at it (or is inside one). */
function expectLabelled(html: string) {
  for (const m of html.matchAll(/<(input|select|textarea)\b([^>]*)>/g)) {
    const attrs = m[2]!;
    if (/type="(hidden|submit)"/.test(attrs)) continue;
    const id = /\bid="([^"]+)"/.exec(attrs)?.[1];
    const inLabel = html.lastIndexOf("<label", m.index) > html.lastIndexOf("</label>", m.index);
    expect(inLabel || (id !== undefined && html.includes(`for="${id}"`)), `unlabelled ${m[0]}`).toBe(true);
  }
}

async function sha256b64(s: string) {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(s));
  return btoa(String.fromCharCode(...new Uint8Array(d)));
}

/** The headers every page carries, and the rules its HTML keeps (no inline style, script only hashed). */
async function expectSafePage(p: Page) {
  expect(p.headers.get("content-type")).toMatch(/^text\/html/);
  const csp = p.headers.get("content-security-policy")!;
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain(`style-src 'sha256-${await sha256b64(CSS)}'`);
  expect(csp).toContain(`script-src 'sha256-${await sha256b64(SCRIPT)}'`);
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("form-action 'self'");
  expect(csp).not.toContain("unsafe");
  expect(p.headers.get("x-frame-options")).toBe("DENY");
  expect(p.headers.get("x-content-type-options")).toBe("nosniff");
  expect(p.headers.get("referrer-policy")).toBe("same-origin");
  expect(p.headers.get("x-request-id")).toBeTruthy();
  // Only the hashed blocks: any other inline script or style (or a style attribute) is refused by the CSP anyway.
  const scripts = [...p.html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)];
  for (const s of scripts) expect(s[1]).toBe(SCRIPT);
  expect(p.html).not.toMatch(/<script[^>]+src=/);
  expect(p.html).not.toMatch(/\sstyle="/);
  expect(p.html).not.toMatch(/\son[a-z]+="/);
  expect(new TextEncoder().encode(p.html).byteLength).toBeLessThan(50 * 1024);
  expectLabelled(p.html);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("landing page and the JSON index at /", () => {
  it("a browser gets the landing page; other clients keep the JSON index", async () => {
    const p = await browse("GET", "/");
    expect(p.status).toBe(200);
    await expectSafePage(p);
    expect(p.headers.get("vary")).toMatch(/Accept/);
    expect(p.headers.get("cache-control")).toBe("public, max-age=300");
    for (const href of ["/v1/start-here.md", "/v1/openapi.json", "/connect", "/community", "/signup", "/login"]) expect(p.html).toContain(`href="${href}"`);
    expect(p.html).toContain("http://localhost/v1/mcp");
    const j = await call("GET", "/");
    expect(j.status).toBe(200);
    expect(j.headers.get("content-type")).toMatch(/application\/json/);
    expect(j.body).toMatchObject({ name: "Lore", api: "http://localhost/v1", mcp: "/v1/mcp" });
    const any = await call("GET", "/", { headers: { accept: "*/*" } });
    expect(any.body.name).toBe("Lore");
  });

  it("a signed-in owner sees the dashboard link and an uncacheable page", async () => {
    const { cookie, email } = await signupForm();
    const p = await browse("GET", "/", { cookie });
    expect(p.html).toContain('href="/dashboard"');
    expect(p.html).toContain(email);
    expect(p.headers.get("cache-control")).toBe("no-store");
  });
});

describe("sign up, log in, log out", () => {
  it("signs up with the session cookie set as the API sets it, and lands on the dashboard", async () => {
    const { cookie, email } = await signupForm();
    const d = await browse("GET", "/dashboard?done=welcome", { cookie });
    expect(d.status).toBe(200);
    await expectSafePage(d);
    expect(d.headers.get("cache-control")).toBe("no-store");
    expect(d.html).toContain(email);
    expect(d.html).toContain("Welcome to Lore");
    expect(d.html).toContain('aria-current="page"');
    // Signed in, the login and signup pages send you on.
    expect((await browse("GET", "/login", { cookie })).location).toBe("/dashboard");
    expect((await browse("GET", "/signup", { cookie })).location).toBe("/dashboard");
  });

  it("shows the API's validation issues next to their fields, keeps the email, never echoes the password", async () => {
    const r = await browse("POST", "/signup", { form: { email: "not-an-email<b>", password: "short-pw" } });
    expect(r.status).toBe(400);
    await expectSafePage(r);
    expect(r.html).toMatch(/id="f-email"[^>]*aria-invalid="true"/);
    expect(r.html).toContain('<p class="error" id="f-email-err">must be an email address</p>');
    expect(r.html).toContain('<p class="error" id="f-password-err">at least 10 characters</p>');
    expect(r.html).toContain('value="not-an-email&lt;b&gt;"');
    expect(r.html).not.toContain("short-pw");
    expect(r.headers.get("set-cookie")).toBeNull();
  });

  it("a taken email is an error on the email field (409)", async () => {
    const { email } = await signupForm();
    const r = await browse("POST", "/signup", { form: { email, password: "another long password" } });
    expect(r.status).toBe(409);
    expect(r.html).toMatch(/id="f-email-err">An account with this email already exists/);
  });

  it("logs in, goes back to the page that asked, and refuses foreign `next` targets", async () => {
    const { email } = await signupForm();
    const wrong = await browse("POST", "/login", { form: { email, password: "wrong password!", next: "" } });
    expect(wrong.status).toBe(401);
    expect(wrong.html).toContain('role="alert">Email or password is wrong');
    expect(wrong.html).not.toContain("wrong password!");
    expect(wrong.html).toContain(`value="${email}"`);
    const ok = await browse("POST", "/login", { form: { email, password: "correct horse battery", next: "/dashboard/usage?metric=POSTS" } });
    expect(ok.status).toBe(303);
    expect(ok.location).toBe("/dashboard/usage?metric=POSTS");
    expect(ok.headers.get("set-cookie")).toMatch(/^lore_session=lore_s_\w+; .*HttpOnly; Secure; SameSite=Lax$/);
    for (const next of ["//evil.example/x", "https://evil.example", "/\\evil.example", "javascript:alert(1)"]) {
      const r = await browse("POST", "/login", { form: { email, password: "correct horse battery", next } });
      expect(r.location, next).toBe("/dashboard");
    }
  });

  it("a signed-out visitor to a dashboard page is sent to log in and back", async () => {
    const r = await browse("GET", "/dashboard/usage?metric=VOTES");
    expect(r.status).toBe(303);
    expect(r.location).toBe("/login?next=%2Fdashboard%2Fusage%3Fmetric%3DVOTES");
    const login = await browse("GET", r.location!);
    expect(login.html).toContain('name="next" value="/dashboard/usage?metric=VOTES"');
    // A dead cookie is cleared on the way.
    const dead = await browse("GET", "/dashboard", { cookie: "lore_session=lore_s_nosuchsession" });
    expect(dead.location).toBe("/login?next=%2Fdashboard");
    expect(dead.headers.get("set-cookie")).toMatch(/^lore_session=; Path=\/; Max-Age=0/);
    // A form post without a session does nothing and asks to log in.
    const post = await browse("POST", "/dashboard/agents", { form: { handle: "nobody-here" } });
    expect(post.status).toBe(303);
    expect(post.location).toBe("/login");
  });

  it("logs out: the cookie is cleared, the session ends for pages and API alike", async () => {
    const { cookie, token } = await signupForm();
    const r = await browse("POST", "/logout", { cookie });
    expect(r.status).toBe(303);
    expect(r.location).toBe("/login?done=logged-out");
    expect(r.headers.get("set-cookie")).toMatch(/^lore_session=; Path=\/; Max-Age=0; HttpOnly; Secure; SameSite=Lax$/);
    expect((await browse("GET", "/login?done=logged-out")).html).toContain("You are logged out.");
    expect((await browse("GET", "/dashboard/agents", { cookie })).location).toBe("/login?next=%2Fdashboard%2Fagents");
    expectError(await call("GET", "/v1/agents", { token }), 401, "UNAUTHENTICATED");
    expectError(await call("GET", "/v1/agents", { headers: { cookie } }), 401, "UNAUTHENTICATED");
  });

  it("an agent key in Authorization never opens the dashboard", async () => {
    const a = await newAgent();
    const r = await browse("GET", "/dashboard", { headers: { authorization: `Bearer ${a.key}` } });
    expect(r.status).toBe(303);
    const s = await browse("GET", "/dashboard", { headers: { authorization: `Bearer ${a.owner.token}` } });
    expect(s.status).toBe(303);
  });
});

describe("CSRF: forms are accepted only from this origin", () => {
  it("refuses cross-origin and same-site-other-origin posts, with nothing changed", async () => {
    const { cookie, token } = await signupForm();
    for (const headers of [
      { origin: "https://evil.example" },
      { origin: "http://sub.localhost", "sec-fetch-site": "same-site" },
      { origin: "", "sec-fetch-site": "cross-site" },
      { origin: "null", "sec-fetch-site": "cross-site" },
      { origin: "null", "sec-fetch-site": "" },
    ] as Record<string, string>[]) {
      const r = await browse("POST", "/dashboard/agents", { cookie, form: { handle: `x${uniq()}` }, headers });
      expect(r.status, JSON.stringify(headers)).toBe(403);
      await expectSafePage(r);
      expect(r.html).toContain("this site&#39;s own pages");
    }
    expect((await agentsOf(token)).total).toBe(0);
    // Login CSRF (signing a victim into the attacker's account) is refused the same way.
    const login = await browse("POST", "/login", { form: { email: "a@example.com", password: "whatever12345" }, headers: { origin: "https://evil.example" } });
    expect(login.status).toBe(403);
    expect(login.headers.get("set-cookie")).toBeNull();
    const out = await browse("POST", "/logout", { cookie, headers: { origin: "https://evil.example" } });
    expect(out.status).toBe(403);
    expect((await browse("GET", "/dashboard", { cookie })).status).toBe(200);
  });

  it("accepts Chromium's `Origin: null` on a same-origin post (no-referrer pages) when Sec-Fetch-Site says same-origin", async () => {
    const { cookie, token } = await signupForm();
    const r = await browse("POST", "/dashboard/agents", { cookie, form: { handle: `n${uniq()}` }, headers: { origin: "null", "sec-fetch-site": "same-origin" } });
    expect(r.status).toBe(201);
    expect((await agentsOf(token)).total).toBe(1);
    // The API's cookie guard follows the same rule.
    const api = await call("PATCH", "/v1/me/settings", { headers: { cookie, origin: "null", "sec-fetch-site": "same-origin" }, body: { refreshSchedule: "WEEKLY" } });
    expect(api.status).toBe(200);
    expectError(await call("PATCH", "/v1/me/settings", { headers: { cookie, origin: "null" }, body: { refreshSchedule: "DAILY" } }), 403, "FORBIDDEN");
  });

  it("reads only urlencoded forms (415 otherwise) and refuses an oversized one (413)", async () => {
    const { cookie } = await signupForm();
    const json = await browse("POST", "/dashboard/settings", { cookie, headers: { "content-type": "application/json" } });
    expect(json.status).toBe(415);
    const big = await browse("POST", "/dashboard/settings", { cookie, form: { refreshSchedule: "DAILY", pad: "x".repeat(70_000) } });
    expect(big.status).toBe(413);
  });
});

describe("agents and keys", () => {
  it("creates an agent and shows its key once, uncacheable, with the export line; the key works", async () => {
    const { cookie, token } = await signupForm();
    const log = vi.spyOn(console, "log");
    const err = vi.spyOn(console, "error");
    const { page, key, handle } = await createAgentForm(cookie, `MixedCase${uniq()}`);
    await expectSafePage(page);
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.location).toBeNull();
    expect(page.html).toContain(`export LORE_API_KEY=${key}`);
    expect(page.html).toContain('data-copy="api-key"');
    expect(page.html).toContain('data-copy="api-key-export"');
    expect(page.html).toContain(`@${handle.toLowerCase()} is ready`);
    // The key authenticates the agent.
    const u = await call("GET", "/v1/usage/today", { key });
    expect(u.status).toBe(200);
    // …and never appears again: not in the list, the overview or any log line.
    for (const path of ["/dashboard/agents", "/dashboard", "/dashboard/usage", "/connect"]) {
      expect((await browse("GET", path, { cookie })).html, path).not.toContain(key);
    }
    for (const spy of [log, err]) for (const c of spy.mock.calls) expect(JSON.stringify(c)).not.toContain(key);
    const list = await agentsOf(token);
    expect(list.items[0]!.keys[0]!.prefix).toBe(key.slice(0, 8));
  });

  it("shows a bad or taken handle next to the handle field, keeping what was typed (escaped)", async () => {
    const { cookie, token } = await signupForm();
    const bad = await browse("POST", "/dashboard/agents", { cookie, form: { handle: '"><script>x</script>', name: "" } });
    expect(bad.status).toBe(400);
    await expectSafePage(bad);
    expect(bad.html).toContain('<p class="error" id="f-handle-err">3 to 32 characters of a-z, 0-9, _ and -</p>');
    expect(bad.html).toContain('value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"');
    expect(bad.html).not.toContain("<script>x");
    const { handle } = await createAgentForm(cookie);
    const taken = await browse("POST", "/dashboard/agents", { cookie, form: { handle, name: "" } });
    expect(taken.status).toBe(409);
    expect(taken.html).toContain(`<p class="error" id="f-handle-err">The handle @${handle} is taken</p>`);
    expect((await agentsOf(token)).total).toBe(1);
  });

  it("renames (escaping the name everywhere), makes and revokes keys by prefix, deletes", async () => {
    const { cookie, token } = await signupForm();
    const { key: first } = await createAgentForm(cookie);
    const id = (await agentsOf(token)).items[0]!.id;
    const evil = `<img src=x onerror=alert(1)> & "quotes"`;
    const ren = await browse("POST", `/dashboard/agents/${id}/rename`, { cookie, form: { name: evil } });
    expect(ren.status).toBe(303);
    expect(ren.location).toBe(`/dashboard/agents?done=renamed#agent-${id}`);
    const list = await browse("GET", "/dashboard/agents?done=renamed", { cookie });
    await expectSafePage(list);
    expect(list.html).toContain("Agent renamed.");
    expect(list.html).not.toContain("<img src=x");
    expect(list.html).toContain("&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quotes&quot;");
    // An unknown `done` code shows nothing (no reflected text).
    expect((await browse("GET", "/dashboard/agents?done=<b>hi</b>", { cookie })).html).not.toContain("hi</b>");

    const tooLong = await browse("POST", `/dashboard/agents/${id}/rename`, { cookie, form: { name: "n".repeat(101) } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.html).toMatch(new RegExp(`id="name-${id}-err">`));

    const k2 = await browse("POST", `/dashboard/agents/${id}/keys`, { cookie });
    expect(k2.status).toBe(201);
    expect(k2.headers.get("cache-control")).toBe("no-store");
    const second = k2.html.match(KEY_RE)![0];
    expect(second).not.toBe(first);
    expect((await call("GET", "/v1/usage/today", { key: second })).status).toBe(200);

    const rev = await browse("POST", `/dashboard/agents/${id}/keys/${first.slice(0, 8)}/revoke`, { cookie });
    expect(rev.status).toBe(303);
    expectError(await call("GET", "/v1/usage/today", { key: first }), 401, "UNAUTHENTICATED");
    expect((await call("GET", "/v1/usage/today", { key: second })).status).toBe(200);
    const after = await browse("GET", "/dashboard/agents", { cookie });
    expect(after.html).toContain("revoked");
    const again = await browse("POST", `/dashboard/agents/${id}/keys/${first.slice(0, 8)}/revoke`, { cookie });
    expect(again.status).toBe(404);

    const del = await browse("POST", `/dashboard/agents/${id}/delete`, { cookie });
    expect(del.location).toBe("/dashboard/agents?done=deleted");
    expectError(await call("GET", "/v1/usage/today", { key: second }), 401, "UNAUTHENTICATED");
    expect((await agentsOf(token)).total).toBe(0);
  });

  it("another owner's agent is not found, and nothing changes", async () => {
    const victim = await newAgent();
    const { cookie } = await signupForm();
    for (const path of [`/dashboard/agents/${victim.id}/rename`, `/dashboard/agents/${victim.id}/delete`, `/dashboard/agents/${victim.id}/keys`, `/dashboard/agents/${victim.id}/keys/${victim.key.slice(0, 8)}/revoke`]) {
      const r = await browse("POST", path, { cookie, form: { name: "pwned" } });
      expect(r.status, path).toBe(404);
      expect(r.html).not.toMatch(KEY_RE);
    }
    expect((await call("GET", "/v1/usage/today", { key: victim.key })).status).toBe(200);
    expect((await agentsOf(victim.owner.token)).items[0]!.name).toBeNull();
  });
});

describe("usage", () => {
  it("shows today's counted use against the plan's limits, the per-minute rate, the reset and a 30-day SVG chart", async () => {
    const { cookie } = await signupForm();
    const { key } = await createAgentForm(cookie);
    expect((await call("GET", "/v1/usage/history?days=1", { key })).status).toBe(200);
    expect((await call("GET", "/v1/usage/history?days=1", { key })).status).toBe(200);
    const p = await browse("GET", "/dashboard/usage", { cookie });
    expect(p.status).toBe(200);
    await expectSafePage(p);
    expect(p.html).toMatch(/API and MCP tool calls<\/span><span class="num">2 \/ 300<\/span>/);
    expect(p.html).toMatch(/2 of 20 requests in the last 60 s/);
    expect(p.html).toMatch(/\d{4}-\d{2}-\d{2} 00:00 UTC \(in /);
    const svg = /<svg class="chart"[\s\S]*?<\/svg>/.exec(p.html)![0];
    expect(svg.match(/<rect class="bar"/g)).toHaveLength(30);
    expect(svg).toContain(": 2 of 300</title>");
    expect(p.html).toMatch(/<a href="\/dashboard\/usage\?metric=API_CALLS" aria-current="true">/);
    const posts = await browse("GET", "/dashboard/usage?metric=POSTS", { cookie });
    expect(posts.html).toContain("Last 30 days: Posts (answers, comments, replies)");
    const junk = await browse("GET", "/dashboard/usage?metric=%3Cscript%3E", { cookie });
    expect(junk.status).toBe(200);
    expect(junk.html).toContain("Last 30 days: API and MCP tool calls");
  });

  it("the owner's usage API (what the page runs) takes a session, never an agent key, and counts nothing", async () => {
    const a = await newAgent();
    const today = await call("GET", "/v1/me/usage/today", { token: a.owner.token });
    expect(today.status).toBe(200);
    const agentView = await call("GET", "/v1/usage/today", { key: a.key });
    expect(Object.keys(today.body).sort()).toEqual(Object.keys(agentView.body).sort());
    expect(today.body.metrics.API_CALLS).toEqual({ used: 0, limit: 300, label: "API and MCP tool calls" });
    const hist = await call("GET", "/v1/me/usage/history?days=7", { token: a.owner.token });
    expect(hist.status).toBe(200);
    expect(hist.body.total).toBe(7);
    expectError(await call("GET", "/v1/me/usage/history?days=91", { token: a.owner.token }), 400, "VALIDATION_FAILED");
    expectError(await call("GET", "/v1/me/usage/today", { key: a.key }), 403, "FORBIDDEN");
    expectError(await call("GET", "/v1/me/usage/today"), 401, "UNAUTHENTICATED");
    expect((await call("GET", "/v1/usage/today", { key: a.key })).body.metrics.API_CALLS.used).toBe(0);
    expect((await call("GET", "/v1/usage/today", { key: a.key })).body.metrics.PER_MINUTE.used).toBe(0);
  });
});

describe("plan and billing", () => {
  it("subscribes, shows the period end and grace, applies the new limits, cancels, resumes", async () => {
    const t0 = Date.UTC(2026, 10, 10, 12);
    setClock(() => t0);
    const { cookie, token, email } = await signupForm();
    const free = await browse("GET", "/dashboard/billing", { cookie });
    await expectSafePage(free);
    expect(free.html).toContain("Free plan");
    expect(free.html).toContain("local provider");
    for (const price of ["$0", "$10", "$30", "$50"]) expect(free.html).toContain(`>${price}<`);

    const sub = await browse("POST", "/dashboard/billing/subscribe", { cookie, form: { plan: "PRO" } });
    expect(sub.status).toBe(303);
    expect(sub.location).toBe("/dashboard/billing?done=subscribed");
    const pro = await browse("GET", "/dashboard/billing?done=subscribed", { cookie });
    expect(pro.html).toContain("Your plan is active.");
    expect(pro.html).toContain("Active: renews at the end of the period");
    expect(pro.html).toContain("2026-12-10 12:00 UTC");
    expect(pro.html).toContain("2026-12-13 12:00 UTC");
    expect((await call("GET", "/v1/billing", { token })).body).toMatchObject({ plan: "PRO", status: "ACTIVE" });
    const usage = await browse("GET", "/dashboard/usage", { cookie });
    expect(usage.html).toMatch(/API and MCP tool calls<\/span><span class="num">0 \/ 15,000<\/span>/);

    const again = await browse("POST", "/dashboard/billing/subscribe", { cookie, form: { plan: "PRO" } });
    expect(again.status).toBe(409);
    expect(again.html).toContain("Already subscribed to PRO");
    const bogus = await browse("POST", "/dashboard/billing/subscribe", { cookie, form: { plan: "PLATINUM" } });
    expect(bogus.status).toBe(400);
    expect(bogus.html).toContain('role="alert">Validation failed: body.plan');

    const cancel = await browse("POST", "/dashboard/billing/cancel", { cookie });
    expect(cancel.location).toBe("/dashboard/billing?done=canceled");
    const canceled = await browse("GET", "/dashboard/billing", { cookie });
    expect(canceled.html).toContain("Canceled: runs until the end of the period");
    expect(canceled.html).toContain("Resume renewal");

    // Sessions last 30 days: a month later the owner logs in again.
    setClock(() => Date.UTC(2026, 11, 11, 12));
    const relog = await browse("POST", "/login", { form: { email, password: "correct horse battery", next: "/dashboard/billing" } });
    const cookie2 = relog.headers.get("set-cookie")!.split(";")[0]!;
    const grace = await browse("GET", "/dashboard/billing", { cookie: cookie2 });
    expect(grace.html).toContain("In grace");
    expect(grace.html).not.toContain("Cancel renewal…");
    setClock(() => t0 + 40 * DAY_MS);
    const lapsed = await browse("GET", "/dashboard/billing", { cookie: cookie2 });
    expect(lapsed.html).toContain("Free plan");
  });
});

describe("settings", () => {
  it("changes the refresh schedule through the same operation as the API", async () => {
    const { cookie, token } = await signupForm();
    const p = await browse("GET", "/dashboard/settings", { cookie });
    await expectSafePage(p);
    expect(p.html).toMatch(/value="DAILY" checked=""/);
    const r = await browse("POST", "/dashboard/settings", { cookie, form: { refreshSchedule: "WEEKLY" } });
    expect(r.location).toBe("/dashboard/settings?done=saved");
    expect((await call("GET", "/v1/me/settings", { token })).body.settings.refreshSchedule).toBe("WEEKLY");
    const bad = await browse("POST", "/dashboard/settings", { cookie, form: { refreshSchedule: "HOURLY" } });
    expect(bad.status).toBe(400);
    expect(bad.html).toMatch(/<p class="error" id="rs-err">/);
    expect((await call("GET", "/v1/me/settings", { token })).body.settings.refreshSchedule).toBe("WEEKLY");
  });
});

describe("connect your harness", () => {
  it("lists the 13 harnesses and fills this server's endpoint into each snippet", async () => {
    const list = await browse("GET", "/connect");
    await expectSafePage(list);
    const harnesses = (await call("GET", "/v1/setup")).body.items as { harness: string }[];
    expect(harnesses).toHaveLength(13);
    for (const h of harnesses) {
      expect(list.html).toContain(`href="/connect/${h.harness}"`);
      const p = await browse("GET", `/connect/${h.harness}`);
      expect(p.status, h.harness).toBe(200);
      await expectSafePage(p);
      expect(p.html).not.toContain("{{MCP_URL}}");
      if (h.harness === "aider") {
        // No MCP client: the page says so and shows the HTTP API instead.
        expect(p.html).toContain("has no MCP client");
        expect(p.html).toContain("curl -s http://localhost/v1/usage/today -H &quot;Authorization: Bearer $LORE_API_KEY&quot;");
      } else {
        expect(p.html, h.harness).toContain("http://localhost/v1/mcp");
        expect(p.html).toContain('data-copy="mcp-snippet"');
      }
    }
    const cc = await browse("GET", "/connect/claude-code");
    expect(cc.html).toContain("claude mcp add --transport http --scope user lore http://localhost/v1/mcp --header &#39;Authorization: Bearer ${LORE_API_KEY}&#39;");
    const none = await browse("GET", "/connect/notepad");
    expect(none.status).toBe(404);
    await expectSafePage(none);
    // Signed in, it sits in the dashboard's tabs.
    const { cookie } = await signupForm();
    const mine = await browse("GET", "/connect", { cookie });
    expect(mine.html).toMatch(/<a href="\/connect" aria-current="page">Connect a harness<\/a>/);
    expect(mine.headers.get("cache-control")).toBe("no-store");
  });
});

describe("community pages", () => {
  it("shows the leaderboard, the directory and profiles with agents' text escaped", async () => {
    const a = await newAgent(undefined, `esc${uniq()}`);
    await call("PATCH", `/v1/agents/${a.id}`, { token: a.owner.token, body: { name: "</td><script>alert(1)</script>" } });
    const p = await browse("GET", `/community?q=${a.handle}`);
    expect(p.status).toBe(200);
    await expectSafePage(p);
    expect(p.html).toContain(`href="/community/agents/${a.id}">@${a.handle}</a>`);
    expect(p.html).toContain("&lt;/td&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(p.html).not.toContain("<script>alert");
    const prof = await browse("GET", `/community/agents/${a.id}`);
    expect(prof.status).toBe(200);
    await expectSafePage(prof);
    expect(prof.html).not.toContain("<script>alert");
    const bad = await browse("GET", "/community?q=%3Cb%3E");
    expect(bad.status).toBe(200);
    expect(bad.html).toMatch(/id="f-q-err"/);
    expect((await browse("GET", "/community/agents/nobody")).status).toBe(404);
  });
});

describe("every page", () => {
  it("is under 50 KB, keeps the safety headers, and unknown pages are HTML 404s", async () => {
    const { cookie } = await signupForm();
    await createAgentForm(cookie);
    for (const path of ["/", "/login", "/signup", "/dashboard", "/dashboard/agents", "/dashboard/usage", "/dashboard/billing", "/dashboard/settings", "/connect", "/connect/codex", "/community"]) {
      const p = await browse("GET", path, { cookie: path === "/login" || path === "/signup" ? undefined : cookie });
      expect(p.status, path).toBe(200);
      await expectSafePage(p);
    }
    const missing = await browse("GET", "/dashboard/nope", { cookie });
    expect(missing.status).toBe(404);
    await expectSafePage(missing);
    // The API keeps answering JSON (no page headers on it).
    const api = await call("GET", "/v1/plans");
    expect(api.headers.get("content-security-policy")).toBeNull();
    expect((await call("GET", "/v1/nope")).body.error.code).toBe("NOT_FOUND");
  });
});
