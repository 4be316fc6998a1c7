// A CPU profile of the Worker that `wrangler dev` runs, through its inspector (the DevTools
// protocol wrangler proxies to workerd): `Profiler.start` before some requests, `Profiler.stop`
// after, written as a .cpuprofile that Chrome DevTools (Performance panel) or VS Code opens.
// scripts/bench.mjs uses it with BENCH_PROFILE=<folder> (docs/profiling.md).

/** Connects to the inspector of `wrangler dev --inspector-port <port>` (the Worker's isolate). */
export async function connectInspector(port) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
  const url = targets.find((t) => t.webSocketDebuggerUrl)?.webSocketDebuggerUrl;
  if (!url) throw new Error(`no inspector target on port ${port}`);
  // The inspector proxy (miniflare) accepts only local and DevTools origins.
  const ws = new WebSocket(url, { headers: { origin: `http://127.0.0.1:${port}` } });
  await new Promise((resolve, reject) => {
    ws.addEventListener("open", resolve, { once: true });
    ws.addEventListener("error", () => reject(new Error(`inspector at ${url} refused the connection`)), { once: true });
  });
  let id = 0;
  const pending = new Map();
  ws.addEventListener("message", (ev) => {
    const msg = JSON.parse(String(ev.data));
    const p = msg.id !== undefined && pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if (msg.error) p.reject(new Error(`${msg.error.message} (${JSON.stringify(msg.error)})`));
    else p.resolve(msg.result);
  });
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const n = ++id;
      pending.set(n, { resolve, reject });
      ws.send(JSON.stringify({ id: n, method, params }));
    });
  // workerd's profiler samples only once the runtime and debugger domains are on.
  await send("Runtime.enable");
  await send("Debugger.enable");
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: 100 });
  return {
    start: () => send("Profiler.start"),
    stop: async () => (await send("Profiler.stop")).profile,
    close: () => ws.close(),
  };
}

/** The frames with the most self time (samples where the frame itself was running), idle and GC apart. */
export function topFrames(profile, n = 5) {
  const byId = new Map(profile.nodes.map((x) => [x.id, x]));
  const self = new Map();
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]);
    const dt = profile.timeDeltas[i + 1] ?? 0;
    const f = node.callFrame;
    if (f.functionName === "(idle)" || f.functionName === "(program)") continue;
    total += dt;
    const file = f.url ? f.url.split("/").pop() : "";
    const key = `${f.functionName || "(anonymous)"} ${file}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + dt);
  }
  return {
    totalMs: total / 1000,
    top: [...self]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([frame, us]) => ({ frame, ms: us / 1000, share: total ? us / total : 0 })),
  };
}
