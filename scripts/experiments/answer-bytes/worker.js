// Five ways to answer the same 29 KB JSON (and /hex: 29 KB of JSON with a SHA-256 digest per entry) (a tool list of 60 tools, not Latin-1 text), and a two-byte
// answer (/x), for run.mjs: a string, a copied array, a zero-copy cached array, a Blob, spaces.
const enc = new TextEncoder();
let text = null,
  bytes = null,
  hex = null;
function init() {
  if (text) return;
  const tools = [];
  for (let i = 0; i < 60; i++)
    tools.push({
      name: `service_tool_${i}`,
      description: "Does a thing — with some “quotes” and detail. ".repeat(8),
      inputSchema: { type: "object", properties: { q: { type: "string" } } },
    });
  text = JSON.stringify({ tools });
  bytes = enc.encode(text);
  // As many bytes of a skills index's JSON (cut to size): names, a description, a SHA-256 digest each (less
  // redundant than the tool list, so gzip works harder on it).
  const skills = [];
  const h = () => Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("");
  while (JSON.stringify({ skills }).length < bytes.length)
    skills.push({ name: `skill-${skills.length}`, description: `Bench fixture ${skills.length}`, digest: `sha256:${h()}` });
  hex = enc.encode(
    JSON.stringify({ skills })
      .slice(0, bytes.length - 2)
      .padEnd(bytes.length, " "),
  );
}
export default {
  async fetch(req) {
    init();
    const u = new URL(req.url);
    const id = u.searchParams.get("id") ?? "1";
    const head = `{"jsonrpc":"2.0","id":${id},"result":`;
    switch (u.pathname) {
      case "/str":
        return new Response(`${head}${text}}`, { headers: { "content-type": "application/json" } });
      case "/bytes": {
        const s = enc.encode(head);
        const out = new Uint8Array(s.length + bytes.length + 1);
        out.set(s);
        out.set(bytes, s.length);
        out[out.length - 1] = 125;
        return new Response(out, { headers: { "content-type": "application/json" } });
      }
      case "/fill":
        return new Response(new Uint8Array(bytes.length + head.length + 1).fill(32), { headers: { "content-type": "application/json" } });
      case "/blob":
        return new Response(new Blob([head, bytes, "}"]), { headers: { "content-type": "application/json" } });
      case "/hex":
        return new Response(hex, { headers: { "content-type": "application/json" } });
      case "/same":
        return new Response(bytes, { headers: { "content-type": "application/json" } });
      default:
        return new Response("ok");
    }
  },
};
