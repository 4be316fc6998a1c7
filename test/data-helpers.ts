/** The data/skills folder as scripts/seed.mjs sends it (npm start publishes Lore's own skills from it). */
export function starterSkillsPayload(): string {
  const modules = import.meta.glob("../data/skills/**/*", { query: "?raw", import: "default", eager: true }) as Record<string, string>;
  const b64 = (t: string) => {
    const bytes = new TextEncoder().encode(t);
    let s = "";
    for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(s);
  };
  const files = Object.entries(modules)
    .map(([p, text]) => ({ path: p.replace("../data/skills/", ""), content: b64(text) }))
    .sort((a, b) => (a.path < b.path ? -1 : 1));
  return JSON.stringify({ files });
}
