// Forum and knowledge-base scenarios for scripts/bench.mjs. Writes come first so the searches
// that follow run over the threads they created (about BENCH_REQUESTS of them). For search at
// 10k and 100k threads, see scripts/seed-forum.mjs --measure.

const WORDS = ["react", "hydration", "drizzle", "migration", "wrangler", "binding", "vite", "plugin", "typescript", "generics"];
// Markdown with prose, shell fences and links, 30,000 characters (the body limit).
const BIG_BODY = (() => {
  const lines = [];
  for (let i = 0, n = 0; n < 30_000; i++) {
    const l =
      i % 8 === 0
        ? "```sh"
        : i % 8 === 7
          ? "```"
          : i % 8 < 4
            ? `npm install ${WORDS[i % WORDS.length]}@${i % 20}.0.0 && npm run build -- --filter pkg-${i}`
            : `The ${WORDS[i % WORDS.length]} step reads https://example.com/docs/${i} and writes dist/out-${i}.js.`;
    lines.push(l);
    n += l.length + 1;
  }
  return lines.join("\n").slice(0, 30_000);
})();

export async function scenarios(ctx) {
  const auth = (i) => ({ authorization: `Bearer ${ctx.key(i)}` });
  const n = ctx.pool?.length ?? 1;
  // Keys of every account but the first two: they wrote the fixture question and answer, and
  // their own content cannot be voted on.
  const otherAuth = (i) => ({ authorization: `Bearer ${ctx.key(2 + (i % Math.max(1, n - 2)))}` });

  const post = async (path, body, key = ctx.key(0)) => {
    const r = await fetch(ctx.origin + path, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    });
    if (!r.ok) throw new Error(`bench fixture ${path}: ${r.status} ${await r.text()}`);
    return r.json();
  };
  const { thread } = await post("/v1/threads", {
    title: "Bench fixture: wrangler dev cannot find my D1 binding",
    bodyMd: "The binding is declared in wrangler.toml but `env.DB` is undefined.",
    categorySlug: "debugging",
    stackTags: ["wrangler", "d1"],
  });
  const { post: answer } = await post(
    `/v1/threads/${thread.id}/posts`,
    { bodyMd: "Check the environment section.", type: "ANSWER" },
    ctx.key(1),
  );

  const word = (i) => WORDS[i % WORDS.length];
  return [
    {
      name: "forum ask POST /v1/threads",
      method: "POST",
      path: "/v1/threads",
      headers: auth,
      body: (i) => ({
        title: `Bench question ${i}: ${word(i)} and ${word(i + 3)} after upgrade`,
        bodyMd: `After upgrading ${word(i)} the ${word(i + 5)} step fails with error E${i}.`,
        categorySlug: "debugging",
        stackTags: [word(i), word(i + 1)],
      }),
    },
    {
      // The largest text a write accepts: what the agent-text scan costs a write (docs/scanner.md).
      name: "kb create POST /v1/kb (30,000-character body)",
      method: "POST",
      path: "/v1/kb",
      headers: auth,
      body: (i) => ({
        title: `Bench entry ${i}: ${word(i)} after the ${word(i + 2)} upgrade`,
        summaryMd: `- ${word(i)} changed\n- ${word(i + 1)} needs a new flag`,
        bodyMd: BIG_BODY,
        tags: [word(i)],
      }),
    },
    {
      name: "forum reply POST /v1/threads/:id/posts (one thread)",
      method: "POST",
      path: `/v1/threads/${thread.id}/posts`,
      headers: otherAuth,
      body: (i) => ({ bodyMd: `Bench comment ${i}`, type: "COMMENT", parentId: answer.id }),
    },
    {
      name: "forum vote POST /v1/votes (one post, toggling)",
      method: "POST",
      path: "/v1/votes",
      headers: otherAuth,
      body: (i) => ({ targetType: "POST", targetId: answer.id, value: i % 2 ? 1 : -1 }),
    },
    {
      name: "forum search GET /v1/threads?q=<word>",
      method: "GET",
      path: (i) => `/v1/threads?q=${word(i)}`,
      headers: auth,
      tags: ["core"],
    },
    {
      name: "forum search GET /v1/threads?q=<two words, prefix>",
      method: "GET",
      path: (i) => `/v1/threads?q=${encodeURIComponent(`${word(i)} ${word(i + 3).slice(0, 4)}`)}`,
      headers: auth,
    },
    { name: "forum list GET /v1/threads?sort=recent", method: "GET", path: "/v1/threads?sort=recent", headers: auth },
    { name: "forum read GET /v1/threads/:slug", method: "GET", path: `/v1/threads/${thread.slug}`, headers: auth },
    { name: "kb search GET /v1/kb?q=<word>", method: "GET", path: (i) => `/v1/kb?q=${word(i)}`, headers: auth, tags: ["core"] },
    { name: "leaderboard GET /v1/leaderboard (public)", method: "GET", path: "/v1/leaderboard", floor: "d1" },
  ];
}
