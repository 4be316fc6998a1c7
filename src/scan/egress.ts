/**
 * Where text sends things: URL extraction and a classification of hosts that matter for
 * exfiltration and command-and-control. Raw IP addresses in any notation (dotted, decimal,
 * hex, octal, IPv6), paste and file-drop sites, request collectors (webhook.site and friends),
 * chat webhooks (Discord, Telegram, Slack, Teams), tunnels (ngrok, trycloudflare …), cloud
 * metadata endpoints. Also the hosts of well-known installer scripts, which a caller may treat
 * more leniently (`curl https://sh.rustup.rs | sh` is how Rust is installed).
 */

export interface UrlHit {
  url: string;
  host: string;
  offset: number;
  length: number;
}

const URL_RE = /\b(?:https?|wss?|ftp):\/\/[^\s"'`<>()[\]{}\\|^]+/gi;
/** `.` `,` `;` `:` `!` `?` */
const TRAILING_PUNCTUATION = new Set([0x2e, 0x2c, 0x3b, 0x3a, 0x21, 0x3f]);

/** Every http(s)/ws(s)/ftp URL with its host (lowercased, brackets kept off IPv6). */
export function extractUrls(text: string): UrlHit[] {
  const out: UrlHit[] = [];
  // exec on the module's global expression, not matchAll (which copies it on every call: most of
  // the cost of a text of a hundred thousand short lines, each asked for its URLs).
  URL_RE.lastIndex = 0;
  for (let m = URL_RE.exec(text); m; m = URL_RE.exec(text)) {
    // The trailing punctuation a sentence puts after a URL, trimmed by a loop (a `[.,;:!?]+$` replace tried every dot of the URL).
    const raw = m[0];
    let end = raw.length;
    while (end > 0 && TRAILING_PUNCTUATION.has(raw.charCodeAt(end - 1))) end--;
    const url = end === raw.length ? raw : raw.slice(0, end);
    const host = hostOf(url);
    if (host) out.push({ url, host, offset: m.index, length: url.length });
  }
  return out;
}

const HOST = /^[a-z]+:\/\/(?:[^@/?#]*@)?(\[[^\]]+\]|[^/:?#]+)/i;

function hostOf(url: string): string | null {
  const m = HOST.exec(url);
  if (!m) return null;
  const h = m[1]!;
  return (h.charCodeAt(0) === 0x5b || h.charCodeAt(h.length - 1) === 0x5d ? h.replace(/^\[|\]$/g, "") : h).toLowerCase();
}

export type IpRange = "loopback" | "private" | "link-local" | "unspecified" | "metadata" | "public";

export interface IpInfo {
  /** Normalized form (dotted quad, or the IPv6 text). */
  ip: string;
  version: 4 | 6;
  range: IpRange;
  /** Written in a form other than a plain dotted quad (decimal, hex, octal): a sign of evasion. */
  obfuscated: boolean;
}

function parseIpv4Part(p: string): number | null {
  if (/^0x[0-9a-f]+$/i.test(p)) return parseInt(p, 16);
  if (/^0[0-7]+$/.test(p)) return parseInt(p, 8);
  if (/^(0|[1-9]\d*)$/.test(p)) return Number(p);
  return null;
}

const IPV4_UNITS = /^[0-9a-fx.]+$/i;

/** IPv4 in the forms `inet_aton` accepts (1–4 parts, each decimal, hex or octal). */
function parseIpv4(host: string): { value: number; obfuscated: boolean } | null {
  // Every form below is written with digits, hex letters, `x` and dots: a name is passed over at one test.
  if (!IPV4_UNITS.test(host)) return null;
  const parts = host.split(".");
  if (parts.length < 1 || parts.length > 4 || parts.some((p) => p === "")) return null;
  const nums = parts.map(parseIpv4Part);
  if (nums.some((n) => n === null)) return null;
  const n = nums as number[];
  const last = n[n.length - 1]!;
  const lastMax = 2 ** (8 * (5 - n.length)) - 1;
  if (n.slice(0, -1).some((x) => x > 255) || last > lastMax) return null;
  let value = 0;
  for (const x of n.slice(0, -1)) value = value * 256 + x;
  value = value * 2 ** (8 * (5 - n.length)) + last;
  const plain = parts.length === 4 && parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p));
  // A single decimal number below 256 is just a number, not an address anyone writes.
  if (parts.length === 1 && !/^0x/i.test(parts[0]!) && value < 16_777_216) return null;
  return { value, obfuscated: !plain };
}

function v4Range(v: number): IpRange {
  const a = v >>> 24;
  const b = (v >>> 16) & 255;
  if (v === 0) return "unspecified";
  if (a === 127) return "loopback";
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127)) {
    // 100.100.100.200 is Alibaba Cloud's metadata service (inside the carrier-grade NAT range).
    if (v === ((100 << 24) | (100 << 16) | (100 << 8) | 200) >>> 0) return "metadata";
    return "private";
  }
  if (a === 169 && b === 254) return v === 0xa9fea9fe ? "metadata" : "link-local";
  return "public";
}

function v6Range(ip: string): IpRange {
  const s = ip.toLowerCase();
  if (s === "::1") return "loopback";
  if (s === "::") return "unspecified";
  if (s === "fd00:ec2::254") return "metadata";
  if (/^fe[89ab]/.test(s)) return "link-local";
  if (/^f[cd]/.test(s)) return "private";
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (mapped) {
    const v4 = parseIpv4(mapped[1]!);
    if (v4) return v4Range(v4.value);
  }
  return "public";
}

const dotted = (v: number) => [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join(".");

/** An IP literal host in any notation, with its range; null for a name. */
export function parseIpHost(host: string): IpInfo | null {
  const h = host.replace(/^\[|\]$/g, "").replace(/\.$/, "");
  if (h.includes(":")) {
    if (!/^[0-9a-f:.]+$/i.test(h) || (h.match(/::/g)?.length ?? 0) > 1) return null;
    return { ip: h.toLowerCase(), version: 6, range: v6Range(h), obfuscated: false };
  }
  const v4 = parseIpv4(h);
  if (!v4) return null;
  return { ip: dotted(v4.value), version: 4, range: v4Range(v4.value), obfuscated: v4.obfuscated };
}

export type HostKind = "raw-ip" | "metadata" | "paste" | "collector" | "chat-webhook" | "tunnel" | "installer" | "other";

export interface HostClass {
  kind: HostKind;
  host: string;
  ip?: IpInfo;
  /** What the service is, for messages ("paste site pastebin.com"). */
  label: string;
}

const DISCORD_HOSTS = ["discord.com", "discordapp.com", "ptb.discord.com", "canary.discord.com"];

/** Paste and anonymous file-drop services: where stolen data is posted and second stages are hosted. */
export const PASTE_HOSTS = [
  "pastebin.com",
  "paste.ee",
  "pastebin.pl",
  "hastebin.com",
  "hastebin.skyra.pw",
  "ghostbin.com",
  "ghostbin.co",
  "rentry.co",
  "rentry.org",
  "dpaste.com",
  "dpaste.org",
  "termbin.com",
  "paste.rs",
  "controlc.com",
  "justpaste.it",
  "privatebin.net",
  "paste.mozilla.org",
  "ix.io",
  "sprunge.us",
  "0bin.net",
  "pastelink.net",
  "transfer.sh",
  "0x0.st",
  "file.io",
  "tmpfiles.org",
  "temp.sh",
  "bashupload.com",
  "oshi.at",
  "catbox.moe",
  "litterbox.catbox.moe",
  "gofile.io",
  "anonfiles.com",
  "uguu.se",
  "pixeldrain.com",
  "paste.c-net.org",
] as const;

/** Request collectors and out-of-band interaction catchers. */
export const COLLECTOR_HOSTS = [
  "webhook.site",
  "requestbin.com",
  "requestbin.net",
  "pipedream.net",
  "requestcatcher.com",
  "hookbin.com",
  "beeceptor.com",
  "postb.in",
  "ptsv2.com",
  "ptsv3.com",
  "webhook.cool",
  "typedwebhook.tools",
  "interact.sh",
  "oast.pro",
  "oast.live",
  "oast.site",
  "oast.online",
  "oast.fun",
  "oast.me",
  "oastify.com",
  "burpcollaborator.net",
  "canarytokens.com",
  "canarytokens.org",
  "dnslog.cn",
  "ceye.io",
  "requestinspector.com",
  "mockbin.org",
  "webhookrelay.com",
  "ngrok-webhook.site",
] as const;

/** Tunnels that expose a machine (often an attacker's) under a throwaway public name. */
export const TUNNEL_HOSTS = [
  "ngrok.io",
  "ngrok.app",
  "ngrok-free.app",
  "ngrok.dev",
  "ngrok-free.dev",
  "trycloudflare.com",
  "loca.lt",
  "localtunnel.me",
  "serveo.net",
  "serveousercontent.com",
  "localhost.run",
  "lhr.life",
  "lhr.rocks",
  "pinggy.io",
  "pinggy.link",
  "a.pinggy.online",
  "bore.pub",
  "tunnelmole.net",
  "tunnelmole.com",
  "devtunnels.ms",
  "playit.gg",
  "telebit.cloud",
  "localxpose.io",
  "loclx.io",
  "pagekite.me",
  "zrok.io",
  "share.zrok.io",
] as const;

/** Hosts that serve the official install scripts of widely used developer tools. */
export const INSTALLER_HOSTS = [
  "sh.rustup.rs",
  "rustup.rs",
  "bun.sh",
  "astral.sh",
  "deno.land",
  "deno.com",
  "get.docker.com",
  "get.pnpm.io",
  "fnm.vercel.app",
  "get.volta.sh",
  "volta.sh",
  "install.python-poetry.org",
  "pyenv.run",
  "ollama.com",
  "claude.ai",
  "opencode.ai",
  "cli.github.com",
  "sdk.cloud.google.com",
  "awscli.amazonaws.com",
  "get.helm.sh",
  "raw.githubusercontent.com/nvm-sh/nvm",
  "raw.githubusercontent.com/Homebrew/install",
  "starship.rs",
  "get.jetpack.io",
  "nixos.org",
  "install.determinate.systems",
  "dot.net",
  "cursor.com",
  "tailscale.com",
  "mise.run",
  "get.rvm.io",
  "sh.vector.dev",
  "foundry.paradigm.xyz",
  "get.k3s.io",
  "rye.astral.sh",
  "get.scoop.sh",
  "community.chocolatey.org",
  "get.sdkman.io",
  "install.julialang.org",
] as const;

const INSTALLER_DOMAINS: readonly string[] = INSTALLER_HOSTS.filter((h) => !h.includes("/"));
/** Installer hosts named with a path (a user's folder on a shared host): the URL's host and path must start with one. */
const INSTALLER_PREFIXES: readonly string[] = INSTALLER_HOSTS.filter((h) => h.includes("/"));

const ON_DISCORD = 1;
const ON_PASTE = 2;
const ON_COLLECTOR = 4;
const ON_TUNNEL = 8;
const ON_INSTALLER = 16;
let domainIndex: Map<string, number> | null = null;
/** The lists (ON_* bits) that hold `host` or a domain it is a subdomain of: each suffix after a dot looked up once (one lookup per label, not one comparison per domain). */
function domainBits(host: string): number {
  if (!domainIndex) {
    domainIndex = new Map();
    const lists: [readonly string[], number][] = [
      [DISCORD_HOSTS, ON_DISCORD],
      [PASTE_HOSTS, ON_PASTE],
      [COLLECTOR_HOSTS, ON_COLLECTOR],
      [TUNNEL_HOSTS, ON_TUNNEL],
      [INSTALLER_DOMAINS, ON_INSTALLER],
    ];
    for (const [list, bit] of lists) for (const d of list) domainIndex.set(d, (domainIndex.get(d) ?? 0) | bit);
  }
  let bits = domainIndex.get(host) ?? 0;
  for (let i = host.indexOf("."); i !== -1; i = host.indexOf(".", i + 1)) bits |= domainIndex.get(host.slice(i + 1)) ?? 0;
  return bits;
}

/** Classifies one URL (the path matters for chat webhooks and for installer scripts on shared hosts). */
export function classifyUrl(url: string): HostClass {
  const host = hostOf(url) ?? "";
  // Which host lists the host or a parent domain of it is on, in one walk of its labels (not one per list).
  const on = domainBits(host);
  const path = url.replace(/^[a-z]+:\/\/[^/]+/i, "");
  const ip = parseIpHost(host);
  if (ip) {
    if (ip.range === "metadata") return { kind: "metadata", host, ip, label: `cloud metadata endpoint ${ip.ip}` };
    return { kind: "raw-ip", host, ip, label: `raw IP address ${ip.ip}${ip.obfuscated ? ` (written as ${host})` : ""}` };
  }
  if (host === "metadata.google.internal" || host === "metadata" || host === "instance-data.ec2.internal") {
    return { kind: "metadata", host, label: `cloud metadata endpoint ${host}` };
  }
  if (
    ((on & ON_DISCORD) !== 0 && /^\/api\/(v\d+\/)?webhooks\/\d+/i.test(path)) ||
    (host === "api.telegram.org" && /^\/bot\d+:[\w-]+/i.test(path)) ||
    (host === "hooks.slack.com" && /^\/(services|workflows|triggers)\/[A-Z0-9]+\//.test(path)) ||
    (host.endsWith(".webhook.office.com") && /webhook/i.test(path))
  ) {
    return { kind: "chat-webhook", host, label: `chat webhook on ${host}` };
  }
  if ((on & ON_PASTE) !== 0) return { kind: "paste", host, label: `paste/file-drop site ${host}` };
  if ((on & ON_COLLECTOR) !== 0) return { kind: "collector", host, label: `request collector ${host}` };
  if ((on & ON_TUNNEL) !== 0) return { kind: "tunnel", host, label: `tunnel ${host}` };
  if (url.startsWith("https://")) {
    if ((on & ON_INSTALLER) !== 0 || INSTALLER_PREFIXES.some((h) => `${host}${path}`.startsWith(h))) {
      return { kind: "installer", host, label: `installer script host ${host}` };
    }
  }
  return { kind: "other", host, label: host };
}

/** Hosts written outside URLs in network commands: `nc 203.0.113.5 4444`, `/dev/tcp/h/p`, `connect(("h", p))`, `user@h:`. */
const SOCKET_HOST_RE =
  /(?:\/dev\/(?:tcp|udp)\/([^/\s]+)\/\d+)|(?:\b(?:nc|ncat|netcat|telnet|socat)\b[^\n|;&]*?\s(\d[\d.]{6,}\d|0x[0-9a-f]+|\d{8,10})\s+\d{1,5}\b)|(?:(?:tcp4?|udp4?|TCP4?|UDP4?):(\d[\d.]{6,}\d):\d{1,5})|(?:connect\(\s*\(\s*["'](\d[\d.]{6,}\d)["']\s*,\s*\d{1,5})|(?:TCPClient\(\s*["'](\d[\d.]{6,}\d)["'])|(?:\b[\w.-]+@(\d{1,3}(?:\.\d{1,3}){3})(?=[:\s]))/g;

export interface SocketHostHit {
  host: string;
  offset: number;
  length: number;
}

export function extractSocketHosts(text: string): SocketHostHit[] {
  const out: SocketHostHit[] = [];
  SOCKET_HOST_RE.lastIndex = 0;
  for (let m = SOCKET_HOST_RE.exec(text); m; m = SOCKET_HOST_RE.exec(text)) {
    const host = m.slice(1).find((g) => g !== undefined);
    if (host) out.push({ host: host.toLowerCase(), offset: m.index, length: m[0].length });
  }
  return out;
}
