// Ways to answer a 12 KB HTML page (not Latin-1, like Lore's pages) with the ten headers a page
// carries, for run.mjs (../answer-bytes/run.mjs measures them): bytes with one header (a floor), the
// string with one header, the string then ten `set`s on the answer's headers (what Lore did), the
// string with all the headers in the constructor's dictionary, and Hono's way (a Headers, ten sets).
let page = null;
function init() {
  if (page) return;
  page = `<!doctype html><html lang="en"><body>${'<p class="small">Reputation 0 · created 2026-11-20 10:11 UTC · 1 active key…</p>'.repeat(150)}</body></html>`;
}
const CSP =
  "default-src 'none'; style-src 'sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='; script-src 'sha256-BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB='; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const EXTRA = {
  "content-security-policy": CSP,
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=()",
  "strict-transport-security": "max-age=31536000",
  "cache-control": "no-store",
  "x-request-id": "req_0123456789abcdef",
  "x-content-type-options": "nosniff",
};
const TYPE = "text/html; charset=UTF-8";
export default {
  async fetch(req) {
    init();
    switch (new URL(req.url).pathname) {
      case "/fill":
        return new Response(new Uint8Array(page.length * 1.1).fill(32), { headers: { "content-type": TYPE } });
      case "/str":
        return new Response(page, { headers: { "content-type": TYPE } });
      case "/sets": {
        const res = new Response(page, { headers: { "content-type": TYPE } });
        for (const k in EXTRA) res.headers.set(k, EXTRA[k]);
        return res;
      }
      case "/dict":
        return new Response(page, { headers: { "content-type": TYPE, ...EXTRA } });
      case "/hono": {
        const h = new Headers();
        h.set("content-type", TYPE);
        for (const k in EXTRA) h.set(k, EXTRA[k]);
        return new Response(page, { headers: h });
      }
      default:
        return new Response("ok");
    }
  },
};
