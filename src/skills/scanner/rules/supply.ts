/**
 * The supply chain: package installs pointed somewhere other than the official registries. A
 * global npm registry, a pip index or extra index, a Go proxy set to a third-party host makes
 * every later install of every project come from there (and an extra index lets a public name be
 * shadowed: dependency confusion); turning off the checksum database or TLS for it removes the
 * last check. The official registries, the vendors' own indexes (PyTorch, NVIDIA) and a scoped
 * registry for one's own packages are ordinary.
 */
import { extractUrls, isNegated, triggerLines, type Hit, type Rule } from "../../../scan";

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
    re: /^\s*(?:extra-)?index-url\s*=|\bregistry\s*=\s*https?:|>>?\s*~?\/?[^\s]*(?:\.npmrc|pip\.conf|pip\.ini|\.pydistutils\.cfg)\b/i,
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

/** Every REDIRECTS match contains one of these. */
const REDIRECT_TRIGGERS = [
  "registry",
  "index-url",
  "index_url",
  "goproxy",
  "gem sources",
  "uv_default_index",
  ".npmrc",
  "pip.conf",
  "pip.ini",
  ".pydistutils",
];

export const registryRedirect: Rule = {
  id: "supply.registry",
  severity: "medium",
  title: "Installs from a third-party package index",
  text(text, ctx) {
    const candidates = triggerLines(text, ctx.lines, REDIRECT_TRIGGERS);
    if (!candidates.size) return [];
    const hits: Hit[] = [];
    const weakened = WEAKENS.test(text);
    for (const n of [...candidates].sort((a, b) => a - b)) {
      const line = ctx.lines.line(n);
      const start = ctx.lines.startOf(n);
      if (hits.length >= 3 || line.length > 4096) continue;
      for (const r of REDIRECTS) {
        const m = r.re.exec(line);
        if (!m || isNegated(line, m.index)) continue;
        const hosts = extractUrls(line).map((u) => u.host);
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

export const SUPPLY_RULES: Rule[] = [registryRedirect];
