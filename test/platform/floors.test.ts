/**
 * The import rule of src/ (docs/adding-an-operation.md, "Floors"): every file stands on a floor and
 * imports only from its own folder and from the floors below it. Areas stand side by side on one
 * floor: an area imports another only where AREAS below allows it, and only through that area's
 * entry file (`src/<area>/index.ts`), so what an area offers the others is written in one place.
 */
import { describe, expect, it } from "vitest";

/** Bottom up. A unit is a folder (or one top-level file) of src/. */
const FLOORS: { floor: string; units: string[] }[] = [
  { floor: "ground", units: ["env.ts", "db"] },
  { floor: "core", units: ["core"] },
  // What several areas know, with no storage or route of its own: the scan engine and the rule sets
  // built on it, the ecosystems (names, versions, topics), the harnesses (their data and configs).
  { floor: "knowledge", units: ["scan", "skills/scanner", "mcp-servers/scanner", "ecosystems", "harnesses"] },
  // One small client per outside source.
  { floor: "sources", units: ["sources"] },
  {
    floor: "areas",
    units: [
      "auth",
      "billing",
      "chat",
      "community",
      "forum",
      "freshness",
      "kb",
      "mcp-servers",
      "models",
      "packages",
      "quota",
      "setup",
      "skills",
      "sync",
    ],
  },
  // What puts the areas together: the operation list, seeds, schedules, the dashboard, admin, the MCP endpoint, the app;
  // and the helper Workers' entries: the scanner's (src/scan-worker), which serves the rule sets over a service
  // binding, and the MCP SDK's (src/mcp-worker), which serves the SDK over another.
  {
    floor: "top",
    units: [
      "operations.ts",
      "seeds.ts",
      "maintenance.ts",
      "scheduled.ts",
      "web",
      "admin",
      "mcp",
      "app.ts",
      "index.ts",
      "scan-worker",
      "mcp-worker",
    ],
  },
];

/**
 * Which units of its own floor a unit may import (any unit of a lower floor it may import anyway).
 * On the areas' floor this list is the whole map of who uses whom, and it has no circle.
 */
const SAME_FLOOR: Record<string, string[]> = {
  ground: [],
  db: ["env.ts"],
  "skills/scanner": ["scan"],
  "mcp-servers/scanner": ["scan", "skills/scanner"],
  harnesses: ["ecosystems"],
  auth: ["quota"],
  billing: ["quota"],
  chat: [],
  community: [],
  forum: ["skills"],
  freshness: ["models"],
  kb: ["forum", "quota"],
  "mcp-servers": ["skills"],
  models: [],
  packages: ["freshness"],
  quota: [],
  setup: ["freshness", "skills"],
  skills: ["quota"],
  sync: ["auth", "billing", "chat", "freshness", "kb", "skills"],
  "operations.ts": [],
  "seeds.ts": [],
  "maintenance.ts": [],
  web: [],
  admin: ["seeds.ts"],
  mcp: ["operations.ts"],
  "app.ts": ["operations.ts", "web", "admin", "mcp"],
  "scheduled.ts": ["maintenance.ts"],
  "index.ts": ["app.ts", "scheduled.ts", "mcp"],
  "scan-worker": [],
  "mcp-worker": [],
};

const AREAS = new Set(FLOORS.find((f) => f.floor === "areas")!.units);
const FLOOR_OF = new Map(FLOORS.flatMap((f, i) => f.units.map((u) => [u, i] as const)));
/** Longest first, so src/skills/scanner/x.ts is the scanner's, not the skills area's. */
const UNITS = [...FLOOR_OF.keys()].sort((a, b) => b.length - a.length);

const unitOf = (rel: string): string | null =>
  UNITS.find((u) => (u.endsWith(".ts") ? rel === u || rel === u.replace(/\.ts$/, "") : rel === u || rel.startsWith(`${u}/`))) ?? null;

/** `a/b/../c` → `a/c`; paths are relative to src/. */
function join(dir: string, spec: string): string {
  const parts = dir ? dir.split("/") : [];
  for (const p of spec.split("/")) {
    if (p === ".." && parts.length > 0 && parts.at(-1) !== "..") parts.pop();
    else if (p !== ".") parts.push(p);
  }
  return parts.join("/");
}

const IMPORT =
  /(?:^|[\s;])(?:import|export)\b[^;"'`]*?\bfrom\s*["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']\s*\)|^import\s+["']([^"']+)["']/gm;

/** Every relative import of every src file that lands inside src/: [file, specifier, target], paths relative to src/. */
function srcImports(): { file: string; spec: string; target: string }[] {
  const files = import.meta.glob("../../src/**/*.{ts,tsx}", { query: "?raw", import: "default", eager: true }) as Record<string, string>;
  const out: { file: string; spec: string; target: string }[] = [];
  for (const [path, text] of Object.entries(files)) {
    const file = path.replace(/^(?:\.\.\/)+src\//, "");
    const dir = file.split("/").slice(0, -1).join("/");
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2] ?? m[3]!;
      if (!spec.startsWith(".")) continue;
      const target = join(dir, spec).replace(/\.(tsx?|js)$/, "");
      if (target.startsWith("..")) continue; // data/ and the like: not code
      out.push({ file, spec, target });
    }
  }
  return out;
}

/** What the rule says of one import: null when it is allowed, else why not. */
function breach(file: string, target: string): string | null {
  const from = unitOf(file);
  const to = unitOf(target);
  if (!from) return `${file} stands on no floor (place its folder in FLOORS)`;
  if (!to) return `${target} stands on no floor (place its folder in FLOORS)`;
  if (from === to) return null;
  const ff = FLOOR_OF.get(from)!;
  const tf = FLOOR_OF.get(to)!;
  if (tf > ff) return `runs back up: ${from} (${FLOORS[ff]!.floor}) imports ${to} (${FLOORS[tf]!.floor})`;
  if (tf === ff && !(SAME_FLOOR[from] ?? []).includes(to)) return `${from} may not import ${to} (not in its SAME_FLOOR list)`;
  // The Worker's entry takes the Durable Object classes from their own files: the area's entry file
  // loads its operations, which the objects' isolates never use (src/index.ts).
  if (from === "index.ts" && AREAS.has(to) && /^[a-z-]+\/[a-z-]+\.do$/.test(target)) return null;
  if (AREAS.has(to) && target !== to && target !== `${to}/index`) return `enters ${to} past its entry file (import "${to}/index.ts")`;
  return null;
}

describe("floors: which part of src/ may import which", () => {
  const imports = srcImports();

  it("reads every src file's imports", () => {
    expect(imports.length).toBeGreaterThan(800);
    expect(new Set(imports.map((i) => i.file)).size).toBeGreaterThan(180);
  });

  it("every import stands on its floor or below, and enters another area only through its entry file", () => {
    const offending = imports.flatMap(({ file, spec, target }) => {
      const why = breach(file, target);
      return why ? [`${file}: "${spec}": ${why}`] : [];
    });
    expect(offending).toEqual([]);
  });

  it("core imports no area, only env.ts and db/, and env.ts imports nothing", () => {
    const fromCore = imports.filter((i) => unitOf(i.file) === "core" && !/^(env|db\/[a-z-]+|core\/.+)$/.test(i.target));
    expect(fromCore).toEqual([]);
    const envTs = Object.values(import.meta.glob("../../src/env.ts", { query: "?raw", import: "default", eager: true }))[0] as string;
    expect(envTs).not.toMatch(/^import /m);
  });

  it("the areas' map has no circle", () => {
    const seen = new Map<string, "open" | "done">();
    const circle: string[] = [];
    const visit = (u: string, path: string[]): void => {
      if (seen.get(u) === "done") return;
      if (seen.get(u) === "open") {
        circle.push([...path, u].join(" -> "));
        return;
      }
      seen.set(u, "open");
      for (const v of SAME_FLOOR[u] ?? []) visit(v, [...path, u]);
      seen.set(u, "done");
    };
    for (const u of Object.keys(SAME_FLOOR)) visit(u, []);
    expect(circle).toEqual([]);
  });

  it("the rule catches what it should", () => {
    expect(breach("sources/pypi.ts", "freshness/topics")).toMatch(/runs back up/);
    expect(breach("quota/quota.client.ts", "billing/billing.service")).toMatch(/may not import billing/);
    expect(breach("sync/sync.service.ts", "skills/stack")).toMatch(/past its entry file/);
    expect(breach("sync/sync.service.ts", "skills")).toBeNull();
    expect(breach("index.ts", "quota/quota.do")).toBeNull();
    expect(breach("index.ts", "quota/quota.ops")).toMatch(/past its entry file/);
    expect(breach("app.ts", "quota/quota.do")).toMatch(/past its entry file/);
    expect(breach("mcp-servers/scanner/hidden.ts", "skills/scanner/rules/markdown")).toBeNull();
    expect(breach("core/rest.ts", "quota")).toMatch(/runs back up/);
    expect(breach("newarea/x.ts", "core/errors")).toMatch(/no floor/);
  });
});

describe("zod is imported as zod/v4", () => {
  // The MCP SDK, loaded with import() on the first MCP request, imports "zod/v4", so the bundler
  // wraps zod's modules to initialise them on demand. Imported through the package root ("zod"),
  // whose re-export the bundler drops as free of side effects, zod is then never initialised
  // before Lore's schemas are built, and the deployed Worker fails at start-up ("not a
  // constructor") while vitest, which does not bundle, passes.
  it('no src file imports "zod" itself', () => {
    const files = import.meta.glob("../../src/**/*.{ts,tsx}", { query: "?raw", import: "default", eager: true }) as Record<string, string>;
    const offending = Object.entries(files).flatMap(([path, text]) =>
      [...text.matchAll(IMPORT)].some((m) => (m[1] ?? m[2] ?? m[3]) === "zod") ? [path] : [],
    );
    expect(offending).toEqual([]);
  });
});
