/**
 * The supply chain: package installs pointed somewhere other than the official registries. A
 * global npm registry, a pip index or extra index, a Go proxy set to a third-party host makes
 * every later install of every project come from there (and an extra index lets a public name be
 * shadowed: dependency confusion); turning off the checksum database or TLS for it removes the
 * last check. The official registries, the vendors' own indexes (PyTorch, NVIDIA) and a scoped
 * registry for one's own packages are ordinary.
 */
import { extractUrls, isNegated, type Hit, type LineIndex, type Rule } from "../../../scan";

const OFFICIAL = [
  "registry.npmjs.org",
  "registry.npmjs.com",
  "registry.yarnpkg.com",
  "npm.pkg.github.com",
  "pypi.org",
  "pypi.python.org",
  "files.pythonhosted.org",
  "test.pypi.org",
  "download.pytorch.org",
  "pypi.nvidia.com",
  "proxy.golang.org",
  "sum.golang.org",
  "goproxy.io",
  "rubygems.org",
  "crates.io",
  "index.crates.io",
  "repo.maven.apache.org",
  "registry.bun.sh",
  "jsr.io",
  "localhost",
  "127.0.0.1",
  // Public mirrors that large user communities are told to use (China in particular).
  "registry.npmmirror.com",
  "npmmirror.com",
  "pypi.tuna.tsinghua.edu.cn",
  "mirrors.tuna.tsinghua.edu.cn",
  "mirrors.aliyun.com",
  "mirrors.cloud.tencent.com",
  "mirrors.ustc.edu.cn",
  "pypi.mirrors.ustc.edu.cn",
  "repo.huaweicloud.com",
  "goproxy.cn",
  "mirrors.bfsu.edu.cn",
];
const official = (host: string) => OFFICIAL.some((h) => host === h || host.endsWith(`.${h}`));

/** Settings that redirect installs; `persist` says it outlives the command. */
const REDIRECTS: { re: RegExp; persist: boolean; what: string }[] = [
  {
    re: /\b(?:npm|pnpm|yarn)\s+config\s+set\s+(?:--[\w-]+(?:[= ]\S+)?\s+)*(?:registry|npmRegistryServer)\b/i,
    persist: true,
    what: "the npm registry",
  },
  { re: /\b(?:npm|pnpm)\s+config\s+set\s+(?:--[\w-]+(?:[= ]\S+)?\s+)*@[\w-]+:registry\b/i, persist: true, what: "a scope's npm registry" },
  {
    re: /\bpip3?\s+config\s+(?:--[\w-]+\s+)*set\s+(?:global|install|user)\.(?:extra-)?index-url\b/i,
    persist: true,
    what: "pip's package index",
  },
  {
    re: /(?:^|\\n|["'])\s*(?:extra-)?index-url\s*=|\bregistry\s*=\s*(?:https?:|\$\{?[A-Za-z_])|>>?\s*~?\/?[^\s]*(?:\.npmrc|pip\.conf|pip\.ini|\.pydistutils\.cfg)\b/i,
    persist: true,
    what: "a package index in a config file",
  },
  {
    re: /\b(?:export\s+|setx\s+)?(?:PIP_(?:EXTRA_)?INDEX_URL|UV_(?:EXTRA_)?INDEX_URL|UV_DEFAULT_INDEX|NPM_CONFIG_REGISTRY|GOPROXY)\s*=/i,
    persist: false,
    what: "a package index variable",
  },
  { re: /\bgo\s+env\s+-w\s+GOPROXY=/i, persist: true, what: "the Go module proxy" },
  { re: /\bgem\s+sources\s+(?:--add|-a)\b/i, persist: true, what: "a RubyGems source" },
  { re: /--extra-index-url[= ]/i, persist: false, what: "an extra package index" },
];
/** What removes the remaining checks: TLS, checksums, pinned hashes. */
const WEAKENS =
  /\btrusted-host\b|strict-ssl\s+false|\bGOSUMDB\s*=\s*off\b|\bGONOSUMDB\b|\bGONOSUMCHECK\b|\bGOINSECURE\b|\bGOFLAGS\s*=\s*["']?-insecure|--no-verify|(?:remove|drop|delete)\s+(?:that|the|this)\s+(?:line|flag)[^.\n]{0,40}|--require-hashes[^.\n]{0,60}\bremove|\bremove\b[^.\n]{0,40}--require-hashes|\bdo\s+not\s+revert\b|\bn[ãa]o\s+reverta\b|\bno\s+reviertas\b/i;

const ASSIGNED_URL = /^[ \t]*(?:export\s+|const\s+|let\s+|var\s+)?([A-Za-z_]\w{0,60})\s*=\s*["'](https?:\/\/[^\s"'$]{1,300})["']/gm;

/** Variables the text sets to a URL literal, with the URL's host (read once per text: each redirect line looks them up). */
function assignedHosts(text: string): Map<string, string> {
  const out = new Map<string, string>();
  ASSIGNED_URL.lastIndex = 0;
  let seen = 0;
  for (let m = ASSIGNED_URL.exec(text); m && seen < 200; m = ASSIGNED_URL.exec(text), seen++) {
    const host = extractUrls(m[2]!)[0]?.host;
    if (host && !out.has(m[1]!)) out.set(m[1]!, host);
  }
  return out;
}

/** Hosts a redirect line names through `$VAR` (set to a URL literal elsewhere in the text) or a `trusted-host = host` setting. */
function indirectHosts(line: string, assigned: () => Map<string, string>): string[] {
  const out: string[] = [];
  const trusted = /trusted-host\s*=\s*([a-z0-9][a-z0-9.-]{0,200}\.[a-z]{2,})/i.exec(line);
  if (trusted) out.push(trusted[1]!.toLowerCase());
  let vars = 0;
  for (const m of line.matchAll(/\$\{?([A-Za-z_]\w{0,60})/g)) {
    if (++vars > 8) break;
    const host = assigned().get(m[1]!);
    if (host) out.push(host);
  }
  return out;
}

/** What every REDIRECTS match contains (case aside). */
const REDIRECT_WORD = /registry|index[-_]url|uv_default_index|goproxy|gem\s+sources|\.npmrc|pip\.conf|pip\.ini|\.pydistutils/gi;

/**
 * The lines (ascending) holding a REDIRECT_WORD, found by one expression over the text. The rule
 * reads every text whatever the analysis budget (unbudgeted), and the shared trigger pass it asked
 * for ran every registered list over all of a 5 MiB text (about 150 ms) that no budgeted rule reads.
 */
function redirectLines(text: string, lines: LineIndex): number[] {
  const out: number[] = [];
  REDIRECT_WORD.lastIndex = 0;
  for (let m = REDIRECT_WORD.exec(text); m; m = REDIRECT_WORD.exec(text)) {
    const n = lines.lineOf(m.index);
    if (out[out.length - 1] !== n) out.push(n);
    if (n >= lines.count) break;
    // One match a line: go on from the next line's start.
    REDIRECT_WORD.lastIndex = Math.max(REDIRECT_WORD.lastIndex, lines.startOf(n + 1));
  }
  return out;
}

export const registryRedirect: Rule = {
  id: "supply.registry",
  severity: "medium",
  title: "Installs from a third-party package index",
  unbudgeted: true,
  text(text, ctx) {
    const candidates = redirectLines(text, ctx.lines);
    if (!candidates.length) return [];
    const hits: Hit[] = [];
    const weakened = WEAKENS.test(text);
    let vars: Map<string, string> | null = null;
    const assigned = () => (vars ??= assignedHosts(text));
    for (const n of candidates) {
      const line = ctx.lines.line(n);
      const start = ctx.lines.startOf(n);
      if (hits.length >= 3 || line.length > 4096) continue;
      for (const r of REDIRECTS) {
        const m = r.re.exec(line);
        if (!m || isNegated(line, m.index)) continue;
        const hosts = extractUrls(line).map((u) => u.host);
        // The index named indirectly: a variable the same script sets to a URL, or pip's trusted-host beside it.
        if (!hosts.length) hosts.push(...indirectHosts(line, assigned));
        const foreign = hosts.find((h) => !official(h));
        // A variable (`$REGISTRY`) is the user's own choice; only a hard-coded third-party host is this.
        if (!foreign) continue;
        const scoped = r.what === "a scope's npm registry";
        const severity = weakened ? "high" : r.persist && !scoped ? "medium" : r.what === "an extra package index" ? "medium" : "low";
        hits.push({
          index: start + m.index,
          length: m[0].length,
          severity,
          message: `Points ${r.what} at ${foreign}${r.persist ? " for every later install" : ""}${weakened ? ", and turns off a check (TLS, checksums or pinned hashes) or says not to revert it" : ""}`,
        });
        break;
      }
    }
    return hits;
  },
};

const NAME = String.raw`@?[a-z0-9][a-z0-9._-]*(?:\/[a-z0-9][a-z0-9._-]*)?`;
const INSTALL =
  /\b(?:npm\s+(?:install|i|add)|yarn\s+add|pnpm\s+(?:add|install|i)|bun\s+add|pip3?\s+install|uv\s+(?:pip\s+install|add)|poetry\s+add)\s+([^\n;&|`]{1,300})/gi;
const INSTEAD = new RegExp(
  String.raw`[\`'"](${NAME})[\`'"]\s+(?:instead\s+of|rather\s+than|in\s+place\s+of)\s+[\`'"](${NAME})[\`'"]`,
  "gi",
);
const IMPORTED = /\bimport\s+([a-z][\w-]{3,})\b(?!\s*=)|\bfrom\s+([a-z][\w-]{3,})\s+import\b|\brequire\(\s*["']([a-z][\w-]{3,})["']\s*\)/gi;
/** `import X as Y` (Python) or `Y = require("X")` / `import Y from "X"` (JavaScript). */
const ALIASED =
  /\bimport\s+([a-z][\w-]{3,40})\s+as\s+([a-z][\w]{3,40})\b|\b(?:const|let|var|import)\s+([a-z][\w]{3,40})\s*(?:=\s*require\(|from)\s*["']([a-z][\w-]{3,40})["']/gi;
const QUOTED = new RegExp(String.raw`[\`'"](${NAME})[\`'"]`, "gi");

/** Edit distance with transpositions, cut off above `max` (names are short). */
function near(a: string, b: string, max: number): boolean {
  // A different first letter is another name (`eslint`/`tslint`, `pnpm`/`npm`), not a look-alike of it.
  if (a === b || a[0] !== b[0] || Math.abs(a.length - b.length) > max || a.length > 80 || b.length > 80) return false;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]! <= max;
}

/**
 * Look-alike packages: an install of a name one letter away from another package the same text
 * names (`react-hook-forms` beside `react-hook-form`), or "use `requestss` instead of `requests`".
 * No list of popular names is needed: the text names the real package itself, to replace it.
 */
export const lookalikePackage: Rule = {
  id: "supply.lookalike",
  severity: "medium",
  title: "Installs a look-alike of a package it names",
  triggers: ["install", "add", "instead", "rather", "in place", "import", "require"],
  text(text) {
    if (!/\b(?:install|add|instead\s+of|rather\s+than|in\s+place\s+of|import|require)\b/i.test(text)) return [];
    const hits: Hit[] = [];
    // Comparisons are bounded per text (a flood of install lines and quoted names costs a fixed amount).
    let budget = 5000;
    const named = new Set<string>();
    for (const m of text.slice(0, 200_000).matchAll(QUOTED)) {
      if (named.size >= 300) break;
      named.add(m[1]!.toLowerCase());
    }
    // Modules the text imports are named too: "install `reqeusts` … (`import requests`)" sets the
    // look-alike beside the module it stands in for.
    for (const m of text.slice(0, 200_000).matchAll(IMPORTED)) {
      if (named.size >= 300) break;
      named.add((m[1] ?? m[2] ?? m[3])!.toLowerCase());
    }
    for (const m of text.slice(0, 200_000).matchAll(INSTEAD)) {
      if (hits.length >= 3) break;
      const [use, real] = [m[1]!.toLowerCase(), m[2]!.toLowerCase()];
      if (
        use.length >= 5 &&
        real.length >= 5 &&
        budget-- > 0 &&
        near(use, real, 2) &&
        !isNegated(text.slice(Math.max(0, m.index - 80), m.index + 1), Math.min(80, m.index))
      ) {
        hits.push({
          index: m.index,
          length: m[0].length,
          message: `Steers to \`${m[1]}\` instead of \`${m[2]}\`: a look-alike name (typosquat) of the package it replaces`,
        });
      }
    }
    // A module imported under the name it imitates (`import reqeusts as requests`, `requests = require("reqeusts")`):
    // the code says itself which package the look-alike stands in for.
    for (const m of text.slice(0, 200_000).matchAll(ALIASED)) {
      if (hits.length >= 3) break;
      const [used, alias] = m[1] ? [m[1], m[2]!] : [m[4]!, m[3]!];
      const [a, b] = [used.toLowerCase(), alias.toLowerCase()];
      if (a.length >= 5 && b.length >= 5 && budget-- > 0 && near(a, b, 1)) {
        // The real name kept in the code hides the swap from a reader: a disguise, not a slip.
        hits.push({
          index: m.index,
          length: m[0].length,
          severity: "high",
          message: `Imports \`${used}\` under the name \`${alias}\`: a look-alike (typosquat) standing in for the package it imitates`,
        });
      }
    }
    for (const m of text.slice(0, 200_000).matchAll(INSTALL)) {
      if (hits.length >= 3) break;
      const args = m[1]!.split(/\s+/).filter((a) => a && !a.startsWith("-"));
      for (const raw of args.slice(0, 30)) {
        const name = raw
          .replace(/^["']|["']$/g, "")
          .replace(/(?<=.)@[^/]*$/, "")
          .toLowerCase();
        if (name.length < 5 || !new RegExp(`^${NAME}$`).test(name)) continue;
        if (budget <= 0) return hits;
        const real = [...named].find((n) => n.length >= 5 && !n.includes(".") && budget-- > 0 && near(name, n, 1));
        if (!real) continue;
        hits.push({
          index: m.index,
          length: m[0].length,
          message: `Installs \`${name}\`, one letter from \`${real}\` that the same text names: a look-alike (typosquat) package`,
        });
        break;
      }
    }
    return hits;
  },
};

/** A requirement's name at the start of its line (`colourama==0.4.1`, `tabulate>=0.9`). */
const REQUIREMENT = /^[ \t]*([A-Za-z0-9][A-Za-z0-9._-]{3,79})[ \t]*(?:\[[^\]\n]*\])?[ \t]*(?:[=<>!~]=?|;|#|$)/gm;
/** A dependency in package.json's dependency maps (`"expresss": "^4.18.0"`). */
const NPM_DEP = /"((?:@[a-z0-9._-]+\/)?[a-z0-9][a-z0-9._-]{3,213})"\s*:\s*"[\^~<>=*\d.xX |-]*(?:latest)?"/g;
const bare = (n: string) => n.toLowerCase().replace(/[-_.]/g, "");

/**
 * A manifest that declares a look-alike of what the bundle's code imports: requirements.txt says
 * `colourama` while the scripts `import colorama`, and `colorama` itself is declared nowhere. The
 * code names the real package; the manifest installs a name one or two letters from it (a
 * typosquat, or a hallucinated name an attacker registered). A distribution named apart from its
 * module (`pyyaml` for `yaml`, `python-dateutil` for `dateutil`) contains the module's name and passes.
 */
export const manifestLookalike: Rule = {
  id: "supply.manifest-lookalike",
  severity: "medium",
  title: "Declares a look-alike of a module its code imports",
  unbudgeted: true,
  kinds: ["text", "json", "toml"],
  text(text, ctx) {
    const imports = ctx.meta?.["imports"] as ReadonlySet<string> | undefined;
    const path = ctx.target.path.toLowerCase();
    if (!imports?.size || text.length > 100_000) return [];
    const isReq = /(?:^|\/)requirements[\w.-]*\.txt$|(?:^|\/)constraints\.txt$/.test(path);
    const isPkg = /(?:^|\/)package\.json$/.test(path);
    if (!isReq && !isPkg) return [];
    const declared: { name: string; index: number }[] = [];
    for (const m of text.matchAll(isReq ? REQUIREMENT : NPM_DEP)) {
      if (declared.length >= 300) break;
      declared.push({ name: m[1]!.toLowerCase(), index: m.index + m[0].indexOf(m[1]!) });
    }
    const names = new Set(declared.map((d) => bare(d.name)));
    const hits: Hit[] = [];
    let budget = 3000;
    for (const d of declared) {
      const b = bare(d.name);
      if (b.length < 5 || imports.has(b)) continue;
      for (const imp of imports) {
        if (budget-- <= 0 || hits.length >= 3) return hits;
        if (imp.length < 5 || names.has(imp) || b.includes(imp) || imp.includes(b) || !near(b, imp, 2)) continue;
        hits.push({
          index: d.index,
          length: d.name.length,
          message: `Declares \`${d.name}\` while the code imports \`${imp}\`, which no manifest declares: a look-alike (typosquat) of the package the code uses`,
        });
        break;
      }
    }
    return hits;
  },
};

/** The packages the logged-in user maintains, listed (npm's and PyPI's ways of asking). */
const OWN_PACKAGES =
  /\bnpm\s+access\s+(?:list|ls)\s+packages\b|\bnpm\s+search\b[^\n]{0,80}\bmaintainer:|\bmaintainer:\$\(\s*npm\s+whoami|\/-\/(?:v1\/search\?text=maintainer:|user\/[^\s/]+\/package)|\bnpm\s+owner\s+ls\b|\buser_packages\s*\(|\/user\/[^\s/]+\/(?:packages|projects)\b/i;
/** …and published again (`npm publish`, `twine upload`, `yarn npm publish`). */
const REPUBLISH = /\b(?:npm|pnpm|yarn(?:\s+npm)?)\s+publish\b|\btwine\s+upload\b|\bpoetry\s+publish\b/;

/**
 * A worm's spread: the script lists every package the user maintains and publishes each again
 * (usually with an install hook added), so one stolen session reaches everyone who installs any
 * of them (Shai-Hulud). Publishing the package one is working on never needs that list.
 */
export const republishOwned: Rule = {
  id: "supply.republish-owned",
  severity: "high",
  title: "Republishes every package the user maintains",
  text(text) {
    if (text.length > 500_000) return [];
    const list = OWN_PACKAGES.exec(text);
    if (!list || !REPUBLISH.test(text)) return [];
    return [
      {
        index: list.index,
        length: list[0].length,
        message: "Lists every package the user maintains and publishes them again: a worm's way to spread through the user's packages",
      },
    ];
  },
};

/** The real package disowned: "do not install `x` — it is deprecated", "`x` is abandoned". */
const DISOWNED = new RegExp(
  String.raw`\b(?:do\s+not|don'?t|never|avoid)\s+(?:install(?:ing)?|use|using|add(?:ing)?)\s+(?:the\s+(?:official\s+|upstream\s+|old\s+)?)?[\x60'"]?(${NAME})[\x60'"]?[^.\n]{0,80}?\b(?:deprecated|abandoned|unmaintained|archived|compromised|outdated|broken|end-of-life|no\s+longer\s+(?:maintained|supported))\b|[\x60'"](${NAME})[\x60'"]\s+(?:is|has\s+been|was)\s+(?:now\s+|officially\s+)?(?:deprecated|abandoned|unmaintained|archived|compromised|end-of-life|no\s+longer\s+(?:maintained|supported))\b`,
  "gi",
);
/** An install whose output is thrown away (`-q`, `2>/dev/null`, `>/dev/null 2>&1`, `| Out-Null`). */
const SILENCED = /(?:\s-q\b|\s--quiet\b|\s--silent\b|\s-s\b|[12&]?>\s*\/dev\/null|\|\s*Out-Null\b)/i;
const squash = (n: string) => n.toLowerCase().replace(/[^a-z0-9]/g, "");

/**
 * Slopsquatting: the text disowns a real package ("do not install `huggingface_hub` — it is
 * deprecated") and installs, quietly or as "the maintained fork", a name built on the same stem
 * (`@huggingface-hub/cli`, `hf-hub-fast`). A genuine successor is named openly and installed in
 * plain sight (`pycrypto` is unmaintained; `pip install pycryptodome`); a quiet install of the
 * look-alike under a claim that the original is dead is how an agent is steered to a squatted name.
 */
export const disownedOriginal: Rule = {
  id: "supply.slopsquat",
  severity: "medium",
  title: "Installs a look-alike after disowning the real package",
  triggers: ["deprecated", "abandoned", "unmaintained", "archived", "compromised", "outdated", "broken", "end-of-life", "no longer"],
  text(text) {
    const body = text.slice(0, 200_000);
    const disowned: string[] = [];
    for (const m of body.matchAll(DISOWNED)) {
      if (disowned.length >= 20) break;
      const name = squash(m[1] ?? m[2] ?? "");
      if (name.length >= 5) disowned.push(name);
    }
    if (!disowned.length) return [];
    const fork =
      /\b(?:maintained|community|drop-in|official)\s+(?:forks?|replacements?|successors?)\b|\bforks?\s+(?:of|that|which)\b/i.test(body);
    const hits: Hit[] = [];
    for (const m of body.matchAll(INSTALL)) {
      if (hits.length >= 3) break;
      const lineEnd = body.indexOf("\n", m.index);
      const line = body.slice(m.index, lineEnd < 0 ? undefined : lineEnd);
      if (!fork && !SILENCED.test(line)) continue;
      const args = m[1]!.split(/\s+/).filter((a) => a && !a.startsWith("-") && !/^[12&]?>|^\//.test(a));
      for (const raw of args.slice(0, 30)) {
        const name = raw.replace(/^["']|["']$/g, "").replace(/(?<=.)@[^/]*$/, "");
        const flat = squash(name);
        const real = disowned.find((d) => flat !== d && (flat.includes(d) || near(flat, d, 2)));
        if (!real) continue;
        hits.push({
          index: m.index,
          length: m[0].length,
          message: `Installs \`${name}\`${fork ? ' as a "fork"' : " quietly"} after saying the real package it resembles is deprecated or not to be installed: a look-alike (slopsquatted) package`,
        });
        break;
      }
    }
    return hits;
  },
};

/** Lockfiles: what pins each dependency's source and hash. */
const LOCKFILE =
  /\b(?:package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|bun\.lock|poetry\.lock|Pipfile\.lock|uv\.lock|Cargo\.lock|composer\.lock|Gemfile\.lock|go\.sum)\b/;
/** A lockfile's hashes dropped: `delete v.integrity`, `v.integrity = undefined`, `del e["hashes"]`, `sed '/integrity/d'`. */
const HASH_DROPPED =
  /\bdelete\s+[\w$.[\]'"]{1,80}?(?:\.|\[["'])(?:integrity|shasum|checksum|hashes|hash)\b|\.(?:integrity|shasum|checksum)\s*=\s*(?:undefined|null|""|''|void\s+0)|\bdel\s+\w+\[["'](?:integrity|hashes|hash|checksum)["']\]|\.pop\(\s*["'](?:integrity|hashes|hash|checksum)["']|\bsed\b[^\n/]{0,200}\/[^\n/]{0,80}?(?:integrity|checksum|sha512-)[^\n/]{0,80}\/d\b/;
/** A lockfile's sources rewritten: `v.resolved = v.resolved.replace(…, "https://host/")` (the replacement is the host). */
const SOURCE_REWRITTEN =
  /\b(?:resolved|tarball|url|source)\b["'\]]?\s*=\s*[^\n]{0,120}?\.replace(?:All)?\s*\(\s*[^,\n]{1,160},\s*["'`](https?:\/\/[^"'`\s]+)["'`]/;

/**
 * A script that edits a lockfile to drop its hashes or point its sources at another host: every
 * later `npm ci` installs whatever that host serves, unchecked, and the change ships in a commit
 * titled as an optimisation. Reading a lockfile, or checking that hashes are there, passes.
 */
export const lockfileTamper: Rule = {
  id: "supply.lockfile-tamper",
  severity: "high",
  title: "A lockfile's hashes or sources rewritten",
  unbudgeted: true,
  kinds: ["javascript", "python", "shell", "ruby", "perl", "php", "go"],
  triggers: ["integrity", "shasum", "checksum", "hash", "resolved", "tarball", "url", "source"],
  text(text) {
    if (text.length > 200_000 || !LOCKFILE.test(text)) return [];
    const hits: Hit[] = [];
    const dropped = HASH_DROPPED.exec(text);
    if (dropped)
      hits.push({
        index: dropped.index,
        length: dropped[0].length,
        message: "Removes the integrity hashes of a lockfile: later installs take whatever the registry serves, unchecked",
      });
    const rewritten = SOURCE_REWRITTEN.exec(text);
    const host = rewritten ? (extractUrls(rewritten[1]!)[0]?.host ?? "") : "";
    if (rewritten && host && !official(host))
      hits.push({
        index: rewritten.index,
        length: rewritten[0].length,
        message: `Rewrites a lockfile's package sources to ${host}: every later install comes from there`,
      });
    return hits;
  },
};

export const SUPPLY_RULES: Rule[] = [registryRedirect, lookalikePackage, disownedOriginal, republishOwned, lockfileTamper];
/** Rules that read a bundle's manifests against its code (skills only: agent text has no manifest). */
export const BUNDLE_SUPPLY_RULES: Rule[] = [manifestLookalike];
