// Skills scenarios for scripts/bench.mjs: catalog search and detail (agent key), the public
// discovery index (built from one D1 query, cached per isolate for a few seconds), a skill file
// and an archive (an R2 read and a SHA-256 check on every request), and the install answer.
// Fixture: 40 skills published through the API by the first account (half of them multi-file).

const TOPICS = ["react", "postgres", "docker", "pytest", "wrangler", "terraform", "vite", "drizzle"];

export async function scenarios(ctx) {
  const auth = (i) => ({ authorization: `Bearer ${ctx.key(i)}` });
  const token = ctx.pool[0].token;
  const names = [];
  for (let s = 0; s < 40; s++) {
    const topic = TOPICS[s % TOPICS.length];
    const name = `bench-${topic}-${s}`;
    const files = [
      {
        path: "SKILL.md",
        content: `---\nname: ${name}\ndescription: Helps with ${topic} work in a project (bench fixture ${s})\n---\n\n# ${topic}\n\n${`Use ${topic} carefully and run the tests after each change. `.repeat(20)}\n`,
      },
    ];
    if (s % 2) {
      files.push({ path: "scripts/check.sh", content: `#!/bin/sh\nset -eu\nnpm test -- ${topic}\n` });
      files.push({ path: "references/notes.md", content: `# Notes on ${topic}\n\n${"Details. ".repeat(200)}\n` });
    }
    const r = await fetch(`${ctx.origin}/v1/me/skills`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ category: "coding", tags: [topic], files }),
    });
    if (r.status !== 201) throw new Error(`bench fixture skill ${name}: ${r.status} ${await r.text()}`);
    names.push(name);
  }
  const single = names[0];
  const multi = names[1];
  // The index's ETag when the revalidation runs: files loaded after this one publish skills too
  // (web.mjs), so one read here was stale by then and the row measured full 200 answers.
  let etag = null;
  const currentEtag = async () => {
    const index = await fetch(`${ctx.origin}/.well-known/agent-skills/index.json`);
    await index.arrayBuffer();
    etag = index.headers.get("etag");
  };
  const topic = (i) => TOPICS[i % TOPICS.length];
  return [
    { name: "skills catalog search GET /v1/skills?q=<word>", method: "GET", path: (i) => `/v1/skills?q=${topic(i)}`, headers: auth },
    {
      name: "skills catalog list GET /v1/skills?security=passed",
      method: "GET",
      path: "/v1/skills?security=passed&sort=installs",
      headers: auth,
    },
    { name: "skill detail GET /v1/skills/:slug", method: "GET", path: (i) => `/v1/skills/${names[i % names.length]}`, headers: auth },
    {
      name: "discovery index GET /.well-known/agent-skills/index.json (public)",
      method: "GET",
      path: "/.well-known/agent-skills/index.json",
    },
    { name: "discovery index GET /.well-known/skills/index.json (v0.1.0, public)", method: "GET", path: "/.well-known/skills/index.json" },
    {
      name: "discovery index revalidation (If-None-Match → 304)",
      method: "GET",
      path: "/.well-known/agent-skills/index.json",
      headers: () => ({ "if-none-match": etag }),
      prepare: currentEtag,
      status: 304,
    },
    {
      name: "skill file GET /.well-known/agent-skills/:name/SKILL.md (R2 + SHA-256)",
      method: "GET",
      path: (i) => `/.well-known/agent-skills/${names[i % names.length]}/SKILL.md`,
      // Its D1 read (when the isolate's copy is old) and its R2 read replayed, the bytes served as read.
      floor: "d1",
    },
    {
      name: "skill archive GET /.well-known/agent-skills/:name.tar.gz (R2 + SHA-256)",
      method: "GET",
      path: `/.well-known/agent-skills/${multi}.tar.gz`,
      floor: "d1",
    },
    {
      name: "skill install POST /v1/skills/:slug/install (counted)",
      method: "POST",
      path: `/v1/skills/${single}/install`,
      headers: auth,
      body: { harness: "claude-code" },
    },
  ];
}
