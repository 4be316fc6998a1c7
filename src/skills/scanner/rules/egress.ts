/**
 * Where data goes: hard-coded destinations that legitimate skills have no reason to carry. Raw IP
 * addresses (public ones: loopback and private addresses are local development), cloud metadata
 * endpoints (credential theft from the instance), paste and file-drop sites, request collectors,
 * chat webhooks with their tokens, tunnels, and DNS lookups built from command output (DNS
 * exfiltration). A skill that posts to the user's own webhook takes it from an environment
 * variable; one that carries its own collector URL is sending the user's data to its author.
 */
import {
  classifyUrl,
  extractSocketHosts,
  extractUrls,
  isNegated,
  needing,
  parseIpHost,
  patternRule,
  type Hit,
  type Rule,
} from "../../../scan";

const KIND_MESSAGE: Record<string, string> = {
  "raw-ip": "Sends traffic to a hard-coded",
  metadata: "Reaches the",
  paste: "Uses the",
  collector: "Sends data to the",
  "chat-webhook": "Posts to a hard-coded",
  tunnel: "Talks to a host behind the",
};

const KIND_RULE: Record<string, string> = {
  "raw-ip": "egress.raw-ip",
  metadata: "egress.cloud-metadata",
  paste: "egress.paste-site",
  collector: "egress.collector",
  "chat-webhook": "egress.chat-webhook",
  tunnel: "egress.tunnel",
};

/** URLs need `://`; the socket forms (`/dev/tcp/…`, `nc h p`, `tcp:h:p`, `connect((…`, `user@ip`) have their own words. */
const URL_TRIGGERS = ["://"];
const SOCKET_TRIGGERS = ["://", "/dev/", "\\bnc", "netcat", "telnet", "socat", "tcp", "udp", "connect(", "@"];

// The engine gives each line to every egress rule in turn: extract and classify its URLs once.
let lastLine: string | null = null;
let lastUrls: { u: ReturnType<typeof extractUrls>[number]; c: ReturnType<typeof classifyUrl> }[] = [];
let lastSocketLine: string | null = null;
let lastSockets: ReturnType<typeof extractSocketHosts> = [];
function classifiedUrls(line: string) {
  if (line !== lastLine) {
    lastUrls = extractUrls(line).map((u) => ({ u, c: classifyUrl(u.url) }));
    lastLine = line;
  }
  return lastUrls;
}
function socketHosts(line: string) {
  if (line !== lastSocketLine) {
    lastSockets = extractSocketHosts(line);
    lastSocketLine = line;
  }
  return lastSockets;
}

function egressRule(kind: keyof typeof KIND_RULE, title: string): Rule {
  return {
    id: KIND_RULE[kind]!,
    severity: "high",
    title,
    triggers: kind === "raw-ip" || kind === "metadata" ? SOCKET_TRIGGERS : URL_TRIGGERS,
    line(line) {
      const hits: Hit[] = [];
      for (const { u, c } of classifiedUrls(line)) {
        if (c.kind !== kind) continue;
        if (c.kind === "raw-ip" && c.ip!.range !== "public") continue;
        if (isNegated(line, u.offset)) continue;
        hits.push({
          index: u.offset,
          length: u.length,
          severity: c.ip?.obfuscated ? "critical" : "high",
          message: `${KIND_MESSAGE[kind]} ${c.label}`,
        });
      }
      if (kind === "raw-ip" || kind === "metadata") {
        for (const s of socketHosts(line)) {
          const ip = parseIpHost(s.host);
          if (!ip) continue;
          const isMeta = ip.range === "metadata";
          if ((kind === "metadata") !== isMeta || (!isMeta && ip.range !== "public")) continue;
          hits.push({
            index: s.offset,
            length: s.length,
            severity: ip.obfuscated ? "critical" : "high",
            message: `Opens a connection to ${isMeta ? "the cloud metadata endpoint" : "the raw IP address"} ${ip.ip}`,
          });
        }
      }
      return hits.slice(0, 3);
    },
  };
}

export const rawIp = egressRule("raw-ip", "Raw IP destination");
export const cloudMetadata = egressRule("metadata", "Cloud metadata endpoint");
export const pasteSite = egressRule("paste", "Paste or file-drop site");
export const collector = egressRule("collector", "Request collector");
export const chatWebhook = egressRule("chat-webhook", "Hard-coded chat webhook");
const tunnelUrls = egressRule("tunnel", "Tunnel host");

/** Ports that give a remote party a shell or a desktop on this machine. */
const REMOTE_ACCESS: Record<string, string> = {
  "22": "SSH server",
  "23": "telnet server",
  "3389": "remote desktop",
  "5900": "VNC server",
  "5985": "WinRM",
  "5986": "WinRM",
};
const SSH_REVERSE =
  /\bssh\b[^\n|;&]*?\s-[a-zA-Z]*R\s*(?:[\w.*-]+:|\[[^\]]*\]:)?\d+:(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\]|[\w.-]+):(\d+)\b/i;
const TUNNEL_TOOL =
  /\bngrok\s+tcp\s+(?:[\w.-]+:)?(\d+)\b|\bbore\s+local\s+(\d+)\b|\bcloudflared\b[^\n]*--url\s+(?:tcp|ssh|rdp):\/\/[\w.[\]:-]*?:(\d+)\b|\bzrok\s+share\b[^\n]*tcpTunnel\b[^\n]*:(\d+)\b|\bpinggy\b[^\n]*-R\s*0?:?[\w.-]*:(\d+)/i;

/**
 * Tunnels: talking to a host behind a throwaway tunnel name (someone else's machine, often a
 * command server), and opening one from this machine: `ssh -R 80:localhost:22 serveo.net` or
 * `ngrok tcp 22` hands the user's SSH server (or desktop) to whoever holds the other end. Sharing
 * a dev server through a tunnel (`ngrok http 3000`) is ordinary and only noted.
 */
export const tunnel: Rule = {
  id: tunnelUrls.id,
  severity: tunnelUrls.severity,
  title: "Tunnel host or reverse tunnel",
  triggers: ["://", "ssh", "ngrok", "bore", "cloudflared", "zrok", "pinggy"],
  line(line, ctx) {
    const hits = [...((tunnelUrls.line!(line, ctx) as Hit[] | null) ?? [])];
    const m = SSH_REVERSE.exec(line) ?? TUNNEL_TOOL.exec(line);
    if (m && !isNegated(line, m.index)) {
      const port = m.slice(1).find(Boolean)!;
      const service = REMOTE_ACCESS[port];
      const hosts = [...line.matchAll(/(?:@|\s)((?:[\w-]+\.)+[a-z]{2,}|\d{1,3}(?:\.\d{1,3}){3})\b/gi)].map((h) => h[1]!.toLowerCase());
      const viaTunnel =
        /\b(?:ngrok|bore|cloudflared|zrok|pinggy)\b/i.test(m[0]) || hosts.some((h) => classifyUrl(`https://${h}/`).kind === "tunnel");
      const publicIp = hosts.some((h) => parseIpHost(h)?.range === "public");
      if (service) {
        hits.push({
          index: m.index,
          length: m[0].length,
          severity: viaTunnel || publicIp ? "high" : "medium",
          message: `Exposes this machine's ${service} (port ${port}) to ${viaTunnel ? "the internet through a public tunnel" : "a remote host"}: whoever holds the other end can log in`,
        });
      } else if (viaTunnel) {
        hits.push({ index: m.index, length: m[0].length, severity: "low", message: `Shares local port ${port} through a public tunnel` });
      }
    }
    return hits;
  },
};

export const dnsExfil = patternRule({
  id: "egress.dns-exfil",
  severity: "high",
  title: "DNS exfiltration",
  triggers: [
    "nslookup",
    "dig",
    "host",
    "drill",
    "resolve-dnsname",
    "gethostbyname",
    "getaddrinfo",
    "dns.",
    "resolver.",
    "gethost",
    "lookup",
    "getbyname",
  ],
  patterns: [
    // The substitution is glued to the name it builds (`$(…).x.example.net`): a backtick that only closes inline Markdown code is not one.
    needing(/\$\(|`/, /\b(?:nslookup|dig|host|drill|Resolve-DnsName)\b[^\n]*?(?:\$\(|`)[^\n`)]*[`)][\w.-]*\.[a-z0-9-]+\.[a-z]{2,}/i),
    // One label or several taken from variables ("$i.$chunk.zone.example"): a tunnel sends data in pieces.
    /\b(?:nslookup|dig|host|Resolve-DnsName)\b(?:\s+[-+][\w=-]{1,20}){0,4}\s+["']?(?:\$\{?\w+\}?\.){1,4}[a-z0-9-]+\.[a-z]{2,}/i,

    // The same in code: a resolver call on a name built from several interpolated labels or a slice of data (`gethostbyname(f"{hx[i:i+30]}.{i}.zone.example.net")`); one label (`f"{region}.api.example.com"`) is a host name.
    /\b(?:gethostbyname(?:_ex)?|getaddrinfo|dns\.(?:resolve\w*|lookup)|resolver\.(?:resolve|query)|Dns\.GetHost(?:Entry|Addresses)\w*|net\.Lookup\w*|InetAddress\.getByName)\s*\(\s*(?:f["']|`)(?:(?:[^"'`\n{}$]{0,40}(?:\{[^{}\n]{1,60}\}|\$\{[^{}\n]{1,60}\})\.){2,4}|[^"'`\n{}$]{0,40}\$?\{[^{}\n]{0,40}\[[^\]\n]{0,20}:[^\]\n]{0,20}\][^{}\n]{0,20}\}\.)(?:[a-z0-9-]{1,63}\.){1,6}[a-z]{2,24}["'`]/i,
    // The same built with `%` or `.format()`: two or more filled labels, or one filled from a slice of data.
    /\b(?:gethostbyname(?:_ex)?|getaddrinfo|resolver\.(?:resolve|query))\s*\(\s*["'](?:(?:%[sdx]|\{\w{0,20}\})\.){2,4}(?:[a-z0-9-]{1,63}\.){1,6}[a-z]{2,24}["']\s*(?:%|\.format\()|\b(?:gethostbyname(?:_ex)?|getaddrinfo|resolver\.(?:resolve|query))\s*\(\s*["'](?:%s|\{\w{0,20}\})\.(?:[a-z0-9-]{1,63}\.){1,6}[a-z]{2,24}["']\s*(?:%\s*\(?|\.format\()\s*\w+\[[^\]\n]{0,20}:[^\]\n]{0,20}\]/i,
  ],
  message: "Builds a DNS name from local data and resolves it: data leaves in the query",
});

export const EGRESS_RULES: Rule[] = [rawIp, cloudMetadata, pasteSite, collector, chatWebhook, tunnel, dnsExfil];
