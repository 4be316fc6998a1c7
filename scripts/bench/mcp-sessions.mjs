// MCP through a session (the account's McpSessions object, src/mcp/sessions.do.ts): one session per
// pool account, made here before measuring. Every message in a session is admitted by AccountQuota
// from that object (a per-minute slot for tools/list, the quota for a tool call): both scenarios stand
// against those object calls replayed (the session's read and last-seen write, the admission's counting
// transaction; scripts/bench.mjs withReplayFloor). `BENCH_ONLY=session` runs these.

export async function scenarios(ctx) {
  const sessions = [];
  for (let a = 0; a < ctx.pool.length; a++) {
    const res = await fetch(`${ctx.origin}/v1/mcp`, {
      method: "POST",
      headers: { ...ctx.auth(a), accept: "application/json, text/event-stream", "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
      }),
    });
    await res.text();
    const sid = res.headers.get("mcp-session-id");
    if (!sid) throw new Error(`bench: initialize gave no session (${res.status})`);
    sessions.push(sid);
  }
  const headers = (i) => ({
    ...ctx.auth(i),
    accept: "application/json, text/event-stream",
    "mcp-session-id": sessions[i % sessions.length],
    "mcp-protocol-version": "2025-06-18",
  });
  return [
    {
      name: "MCP session tools/list",
      method: "POST",
      path: "/v1/mcp",
      headers,
      body: (i) => ({ jsonrpc: "2.0", id: i + 1, method: "tools/list", params: {} }),
      floor: "do2",
      kind: "read",
      tags: ["session"],
    },
    {
      name: "MCP session tools/call service_usage",
      method: "POST",
      path: "/v1/mcp",
      headers,
      body: (i) => ({ jsonrpc: "2.0", id: i + 1, method: "tools/call", params: { name: "service_usage", arguments: {} } }),
      floor: "do2",
      kind: "read",
      tags: ["session"],
    },
  ];
}
