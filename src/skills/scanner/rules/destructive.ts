/**
 * Destruction: deleting the home folder or the root file system, wiping disks, fork bombs,
 * opening permissions on everything, force-pushing over a shared branch. Cleaning a build folder
 * (`rm -rf dist node_modules`) is ordinary and not flagged.
 */
import { contextOf, headThenTail, isNegated, needing, patternRule, triggerLineSets, type Rule } from "../../../scan";

const ROOTISH = String.raw`(?:\/\*?|~\/?\*?|\$HOME\/?\*?|\$\{HOME\}\/?\*?|"\$HOME"\/?\*?|\/home\/?\*?|\/Users\/?\*?|\/(?:etc|usr|var|boot|bin|sbin|lib|lib64|opt|System|Library)\/?\*?|[A-Za-z]:\\\*?|%USERPROFILE%|%SystemRoot%|\$env:USERPROFILE)`;
const USER_DIR = String.raw`["']?(?:~|\$HOME|\$\{HOME\})["']?\/(?:Documents|Desktop|Pictures|Photos|Music|Videos|Movies|Downloads|Projects|projects|src|code|Code|repos|workspace|dev|git|\.ssh|\.gnupg|Library)\/?["']?`;
const END = String.raw`(?=$|[\s;&|)"'])`;

export const destructiveDelete = patternRule({
  id: "destructive.delete",
  severity: "critical",
  title: "Deletes the system or the home folder",
  triggers: [
    "\\brm",
    "\\bfind",
    "remove-item",
    "\\brd",
    "rmdir",
    "\\bdel",
    "rmtree",
    "fs.rm",
    "factory",
    "cloud",
    "home",
    "disk",
    "drive",
    "filesystem",
    "file system",
    "root",
  ],
  prose: true,
  patterns: [
    new RegExp(String.raw`\brm\s+(?:-{1,2}[\w-]+\s+)*(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)\s+(?:-{1,2}[\w-]+\s+)*${ROOTISH}${END}`),
    needing(/--no-preserve-root/, /\brm\b[^\n]*--no-preserve-root\b/),
    new RegExp(String.raw`\bfind\s+${ROOTISH}\s+[^\n]*-delete\b|\bfind\s+${ROOTISH}\s+[^\n]*-exec(?:dir)?\s+rm\b`),
    // The home folder emptied from inside it: `cd ~ && find . -mindepth 1 ! -name .cache -exec rm -rf {} +`,
    // `cd $HOME; rm -rf ./*`. A find that keeps only what it names (`-name '*.pyc'`) picks files, not everything.
    new RegExp(
      String.raw`\bcd\s+["']?(?:~|\$HOME|\$\{HOME\})["']?\/?\s*(?:&&|;)\s*(?:find\s+\.\/?\s+(?:(?:-(?:max|min)depth\s+\d+|(?:!|-not)\s+-i?name\s+\S+|-type\s+[df])\s+)*(?:-delete\b|-exec(?:dir)?\s+rm\b)|rm\s+(?:-{1,2}[\w-]+\s+)*(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)\s+(?:-{1,2}[\w-]+\s+)*(?:\.\/?\*|\*|\.\[!\.\]\*|\.\/?)${END})`,
    ),
    // The user's own folders in the home folder: documents, projects, keys (a cache under ~/.cache is not one).
    needing(
      /~|\$\{?HOME/,
      new RegExp(String.raw`\brm\s+(?:-{1,2}[\w-]+\s+)*(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)\s+(?:[^\n;&|]{0,200}\s)?${USER_DIR}${END}`),
    ),
    needing(
      /-recurse/i,
      new RegExp(String.raw`\bRemove-Item\b[^\n]*-Recurse\b[^\n]*\s${ROOTISH}${END}|\bRemove-Item\s+${ROOTISH}\s[^\n]*-Recurse\b`, "i"),
    ),
    /\b(?:rd|rmdir)\s+\/s\s+\/q\s+[A-Za-z]:\\?(?:\s|$)|\bdel\s+\/[fsq]\s+\/[fsq]\s+\/[fsq]\s+[A-Za-z]:\\/i,
    /\bshutil\.rmtree\(\s*(?:["']\/["']|os\.path\.expanduser\(\s*["']~["']\s*\)|Path\.home\(\)|["']~["'])\s*\)|\bfs\.rm(?:Sync)?\(\s*(?:["']\/["']|os\.homedir\(\))[^\n]*recursive/i,
    // The instruction itself (the Amazon Q extension wiper prompt, 2025).
    /\b(?:wipe|erase|clean|reset|restore|return)\s+(?:the\s+|this\s+|your\s+|their\s+|the\s+user'?s\s+)?(?:system|machine|computer|disk|drive|laptop|workstation)\s+(?:back\s+)?to\s+(?:a\s+|its\s+)?(?:near[- ])?factory(?:[- ](?:state|settings|defaults|condition))?\b/i,
    /\bdelete\s+(?:all\s+)?(?:the\s+)?(?:user'?s\s+)?(?:file[- ]?system|files|home\s+(?:directory|folder))\s+and\s+(?:all\s+)?(?:the\s+)?cloud\s+resources\b/i,
    /\b(?:wipe|erase|delete|remove|destroy|nuke|clear\s+out|empty)\s+(?:out\s+)?(?:all\s+(?:of\s+)?|everything\s+in\s+)?(?:the\s+|this\s+)?(?:user'?s\s+|your\s+|their\s+)?(?:entire\s+|whole\s+)?(?:home\s+(?:directory|folder|dir)|(?:hard\s+)?(?:disk|drive)|file\s*system|root\s+(?:directory|partition))\b/i,
  ],
  message: "Deletes the root file system or the user's home folder",
});

export const diskWipe = patternRule({
  id: "destructive.disk-wipe",
  severity: "critical",
  title: "Wipes a disk",
  triggers: ["mkfs", "/dev/", "diskutil", "format", "cipher"],
  prose: true,
  patterns: [
    /\bmkfs(?:\.\w+)?\s+(?:-\S+\s+)*\/dev\//,
    /\bdd\b[^\n]*\bof=\/dev\/(?:sd[a-z]|nvme\d|hd[a-z]|disk\d|xvd[a-z]|vd[a-z]|mmcblk\d)/,
    />\s*\/dev\/(?:sd[a-z]|nvme\d+n\d|hd[a-z]|disk\d)\b/,
    /\b(?:shred|wipefs)\b[^\n]*\/dev\//,
    /\bdiskutil\s+(?:eraseDisk|secureErase|zeroDisk|randomDisk)\b/i,
    /\bformat\s+[A-Za-z]:\s*\/[qy]/i,
    /\bcipher\s+\/w:/i,
  ],
  message: "Wipes or reformats a disk",
});

export const forkBomb = patternRule({
  id: "destructive.fork-bomb",
  severity: "critical",
  title: "Fork bomb",
  triggers: [":()", "%0|%0", "fork("],
  patterns: [/:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:/, /%0\|%0/, /\bwhile\s*\(\s*true\s*\)\s*\{?\s*fork\(\)/i],
  message: "A fork bomb: exhausts the machine's processes",
});

export const permissionsOpen = patternRule({
  id: "destructive.permissions",
  severity: "high",
  title: "Opens permissions on the system",
  triggers: ["chmod", "chown"],
  prose: true,
  patterns: [
    new RegExp(String.raw`\bchmod\s+(?:-\w+\s+)*(?:0?777|a\+rwx|ugo\+rwx)\s+(?:-\w+\s+)*${ROOTISH}${END}`),
    new RegExp(String.raw`\bchown\s+(?:-\w+\s+)*-R\s+\S+\s+${ROOTISH}${END}`),
    /\bchmod\s+(?:-\w+\s+)*(?:0?777|a\+rwx)\s+(?:~\/)?\.ssh\b/,
  ],
  message: "Makes system or home files writable by everyone",
});

export const forcePush = patternRule({
  id: "destructive.force-push",
  severity: "medium",
  title: "Force-push over a shared branch",
  triggers: ["push"],
  prose: true,
  patterns: [
    /\bgit\s+(?:-C\s+\S{1,200}\s+)?push\b[^\n]*(?:\s--force(?!-with-lease)\b|\s-f\b)[^\n]*\b(?:main|master|trunk|production|release)\b/,
  ],
  message: "Force-pushes over a shared branch, destroying others' history",
});

export const killAll = patternRule({
  id: "destructive.kill-all",
  severity: "high",
  title: "Kills every process",
  triggers: ["kill"],
  prose: true,
  patterns: [/\bkill\s+-9\s+-1\b/, /\bkillall5\b/, /\btaskkill\b[^\n]*\/f[^\n]*\/im\s+\*/i],
  message: "Kills every process the user owns",
});

/**
 * Destroying a cloud account's resources in bulk: every instance, users, whole projects or
 * resource groups, every Kubernetes namespace. Tearing down one named test stack with a
 * confirmation is ordinary; these forms take everything or skip the confirmation.
 */
export const cloudDestroy = patternRule({
  id: "destructive.cloud",
  severity: "high",
  title: "Destroys cloud resources",
  triggers: ["aws", "gcloud", "\\baz", "kubectl", "doctl", "terraform"],
  prose: true,
  patterns: [
    // `aws` then anything: tried from every `aws` of a window (`~/.aws/credentials` …) to its end, so only where the command is.
    headThenTail(
      /\baws\b/,
      /\bec2\s+terminate-instances\b[^\n]*\$\(\s*aws\b[^\n]*describe-instances\b/,
      /\baws\b[^\n]*\bec2\s+terminate-instances\b[^\n]*\$\(\s*aws\b[^\n]*describe-instances\b/i,
    ),
    headThenTail(
      /\baws\b/,
      /\biam\s+delete-(?:user|role|account-alias|group)\b|\borganizations\s+(?:close-account|remove-account-from-organization)\b/,
      /\baws\b[^\n]*\biam\s+delete-(?:user|role|account-alias|group)\b|\baws\b[^\n]*\borganizations\s+(?:close-account|remove-account-from-organization)\b/i,
    ),
    headThenTail(
      /\baws\b/,
      /\bs3\s+(?:rb\s+s3:\/\/\S+\s+--force|rm\s+s3:\/\/\$\{?\w+\}?\/?\s+--recursive)\b/,
      /\baws\b[^\n]*\bs3\s+(?:rb\s+s3:\/\/\S+\s+--force|rm\s+s3:\/\/\$\{?\w+\}?\/?\s+--recursive)\b/i,
    ),
    /\bgcloud\s+projects\s+delete\b|\bgcloud\b[^\n]*\binstances\s+delete\b[^\n]*\$\(/i,
    /\baz\s+group\s+delete\b[^\n]*(?:--yes|-y)\b[^\n]*(?:--no-wait)?|\baz\s+group\s+list\b[^\n]*\|[^\n]*\baz\s+group\s+delete\b/i,
    /\bkubectl\s+delete\s+(?:ns|namespaces?|all|pv|pvc|deployments?)\b[^\n]*(?:--all\b[^\n]*(?:-A|--all-namespaces)\b|(?:-A|--all-namespaces)\b[^\n]*--all\b)|\bkubectl\s+delete\s+(?:ns|namespaces?)\s+--all\b/i,
    /\bdoctl\s+compute\s+droplet\s+delete\b[^\n]*\$\(|\bterraform\s+destroy\b[^\n]*-auto-approve\b[^\n]*(?:prod|production)/i,
  ],
  message: "Destroys cloud resources in bulk (every instance, users, whole projects or namespaces)",
});

const HOME_DIR = String.raw`(?:~|\$HOME|\$\{HOME\}|"\$HOME"|'\$HOME'|\/home\/[\w.-]+|\/Users\/[\w.-]+|\/root|%USERPROFILE%|\$env:USERPROFILE)`;
/** Where a developer's keys, credentials and logins live: deleting them locks the user out and destroys what cannot be re-created. */
const KEY_DIRS = String.raw`(?:\.(?:ssh|gnupg|aws|azure|kube|docker|password-store|netrc|git-credentials|npmrc|pypirc|config(?:\/(?:gcloud|gh|op|1Password))?|local\/share\/keyrings|mozilla|thunderbird)|Library\/Keychains)(?:\/(?:\*|id_\w+|private-keys[\w.-]*|credentials|secring[\w.]*))?\/?(?=["'\s;&|)]|$)`;

/**
 * Deleting the user's keys and credentials: `rm -rf ~/.ssh ~/.gnupg ~/.aws`, every dot folder in
 * the home folder, a keychain. Presented as "clearing stale caches"; nothing brings them back.
 * Removing a cache folder (`~/.cache/x`, `~/.npm/_cacache`) is not this.
 */
export const credentialWipe = patternRule({
  id: "destructive.credentials",
  severity: "critical",
  title: "Deletes keys and credentials",
  triggers: ["\\brm", "rmtree", "remove-item", "find", "unlink", "shred"],
  prose: true,
  patterns: [
    new RegExp(String.raw`\b(?:rm|shred|unlink)\s+(?:-{1,2}[\w-]+\s+)*[^\n;&|]*?${HOME_DIR}[\/\\](?:${KEY_DIRS})`),
    new RegExp(
      String.raw`\bshutil\.rmtree\([^\n)]*["'](?:${HOME_DIR})?\/?(?:${KEY_DIRS})|\bRemove-Item\b[^\n]*${HOME_DIR}[\/\\](?:${KEY_DIRS})`,
      "i",
    ),
    new RegExp(String.raw`\bfind\s+${HOME_DIR}\/?\s[^\n]*-name\s+["']?\.\*["']?[^\n]*(?:-delete\b|-exec\s+rm\b)`),
  ],
  message: "Deletes the user's SSH keys, credentials or keychains (presented as cleanup; they cannot be re-created)",
});

/**
 * Rewriting shared history beyond recovery: force-pushing every branch or tag, mirroring over a
 * remote, expiring the reflog and pruning so overwritten work is gone. Force-pushing one's own
 * branch with a lease is how a rebase is published, and is not this.
 */
export const gitHistory = patternRule({
  id: "destructive.git-history",
  severity: "high",
  title: "Destroys git history",
  triggers: ["push", "reflog", "reset"],
  prose: true,
  patterns: [
    /\bgit\s+push\b[^\n;&|]*(?:\s--force(?!-with-lease)\b|\s-f\b)[^\n;&|]*\s--(?:all|mirror|tags)\b|\bgit\s+push\b[^\n;&|]*\s--(?:all|mirror|tags)\b[^\n;&|]*(?:\s--force(?!-with-lease)\b|\s-f\b)|\bgit\s+push\b[^\n;&|]*\s--mirror\b/,
    /\bgit\s+reflog\s+expire\b[^\n]*--expire(?:-unreachable)?=(?:now|all|0)\b/,
    // Every repository found under the home directory (or the disk) reset back or force-pushed: work the
    // user did not name is thrown away, in their clones and on their remotes. `git -C dir` is the same git.
    /(?:\bfind\s+["']?(?:\$HOME|\$\{HOME\}|~|\/)["'\/]?[^\n]{0,200}?\.git\b|\bfor\s+\w+\s+in\s+["']?(?:\$HOME|\$\{HOME\}|~)\/[^\n;]{0,100}\*)[^\n]{0,300}?\bgit\s+(?:-C\s+\S{1,200}\s+)?(?:push\s+(?:[^\n;&|'"]{0,80}?\s)?(?:-f|--force(?!-with-lease))\b|reset\s+--hard\s+\S*~\d)/,
  ],
  message: "Overwrites or erases git history so that lost work cannot be recovered (force-pushing every branch, expiring the reflog)",
});

const DB_DESTROY =
  /\b(?:DROP\s+(?:SCHEMA|DATABASE|TABLE|COLLECTION|KEYSPACE)|TRUNCATE(?:\s+TABLE)?\s+\w|dropdb\b|db\.dropDatabase\(\)|FLUSHALL|FLUSHDB|prisma\s+(?:migrate\s+reset|db\s+push\s+--force-reset)|(?:rails|rake)\s+db:(?:drop|reset|schema:load)|manage\.py\s+(?:flush|reset_db)|migrate:(?:fresh|reset)|db:wipe|DELETE\s+FROM\s+\w+\s*(?:;|["'`]|$))/i;
const PROD =
  /\.env\.prod(?:uction)?\b|\$\{?PROD(?:UCTION)?_(?:DATABASE|DB|PG|POSTGRES|MYSQL|MONGO|REDIS)\w*|\$\{?(?:DATABASE|DB|PG|POSTGRES|MYSQL|MONGO|REDIS)\w*_PROD(?:UCTION)?\b|\bprod(?:uction)?\s+(?:connection\s+string|database(?:\s+url)?|db|DATABASE_URL|credentials|cluster)\b|\b(?:the\s+)?production\s+(?:connection|database|data)\b|\b(?:DATABASE_URL|DB_URL|DB_HOST|PG\w+|MONGO\w*|REDIS\w*)\w*\s*=\s*["'$(]?[^\n]*\bprod|--env(?:ironment)?[=\s]+["']?prod(?:uction)?\b|\b(?:RAILS|RACK|APP)_ENV=production\b|\b(?:use|target|against|point\s+(?:it\s+)?at|connect\s+to)\s+(?:the\s+)?prod(?:uction)?\b/i;

/** Every PROD match contains "prod"; every DB_DESTROY match one of these. */
const PROD_AND_DB: readonly (readonly string[])[] = [
  ["prod"],
  ["drop", "truncate", "dropdb", "dropdatabase", "flushall", "flushdb", "reset", "db:", "flush", "migrate:", "delete from"],
];

/**
 * Destroying production data: a schema dropped, tables truncated or a database reset, in a
 * section (or script) that points the commands at production. Resetting a local development
 * database is ordinary; doing it to production, usually "without confirmation", is not.
 */
export const productionData: Rule = {
  id: "destructive.production-data",
  severity: "high",
  title: "Destroys production data",
  text(text, ctx) {
    const [prodLines, dbLines] = triggerLineSets(text, ctx.lines, PROD_AND_DB) as [Set<number>, Set<number>];
    if (!prodLines.size || !dbLines.size) return [];
    const sectionOf = (n: number) => (ctx.target.kind === "markdown" ? (contextOf(ctx.target)?.section(n) ?? 0) : 0);
    const prodScopes = new Set<number>();
    const destroys: { n: number; index: number; length: number }[] = [];
    for (const n of prodLines) {
      const line = ctx.lines.line(n);
      const p = PROD.exec(line.length > 4096 ? line.slice(0, 4096) : line);
      if (p && !isNegated(line, p.index, true)) prodScopes.add(sectionOf(n));
    }
    if (!prodScopes.size) return [];
    for (const n of dbLines) {
      const line = ctx.lines.line(n);
      const d = DB_DESTROY.exec(line.length > 4096 ? line.slice(0, 4096) : line);
      if (d && !isNegated(line, d.index, true)) destroys.push({ n, index: ctx.lines.startOf(n) + d.index, length: d[0].length });
      if (destroys.length > 20) break;
    }
    return destroys
      .filter((d) => prodScopes.has(sectionOf(d.n)))
      .slice(0, 3)
      .map((d) => ({
        index: d.index,
        length: d.length,
        message: "Drops or resets a database that the same instructions point at production",
      }));
  },
};

const HOME_ROOT = String.raw`(?:os\.homedir\(\)|Path\.home\(\)|os\.path\.expanduser\(\s*["']~\/?["']\s*\)|process\.env\.HOME|os\.environ\[\s*["']HOME["']\s*\]|["']?\$HOME["']?|\$env:USERPROFILE)`;
/** A recursive walk called on the home folder itself: `walk(os.homedir())`, `os.walk(Path.home())`. */
const WALK_HOME = new RegExp(
  String.raw`\b(?:walk\w*|traverse\w*|visit\w*|recurse\w*|scan\w*|rglob|os\.walk|readdirSync|glob)\s*\(\s*${HOME_ROOT}\s*[,)]|\bfind\s+${HOME_ROOT}\s[^\n]{0,200}?(?:-delete\b|-exec\s+(?:rm|shred|truncate|cp\s+\/dev\/null))|\bGet-ChildItem\s+${HOME_ROOT}[^\n|]{0,200}-Recurse[^\n|]{0,200}\|\s*(?:Remove-Item|Set-Content|Clear-Content)`,
  "i",
);
/** What is done to each file: written over or removed. */
const PER_FILE =
  /\b(?:writeFileSync|writeFile|unlinkSync|unlink|rmSync|truncateSync|os\.remove|os\.unlink|shutil\.rmtree|write_text|write_bytes|Set-Content|Remove-Item|Clear-Content)\s*\(|\bopen\([^)\n]{0,200}["']w[b+]?["']|-delete\b|-exec\s+rm\b/;
/** A loop over a directory listing's entries (one line; bounded, so a long line costs linear time). */
const LOOP = /\bfor\b[^\n]{0,120}?\b(?:of|in)\b[^\n]{0,120}?(?:readdirSync|readdir|os\.walk|\.rglob|\.iterdir|\bfiles\b)/;
/** The write or delete happens for an entry of the listing: within five lines of the loop. */
function loopWrites(text: string, lines: { count: number; line: (n: number) => string }): boolean {
  let seen = 0;
  for (let n = 1; n <= lines.count && seen < 200; n++) {
    const l = lines.line(n);
    if (l.length > 4096 || !/\bfor\b/.test(l) || !LOOP.test(l)) continue;
    seen++;
    for (let k = n; k <= Math.min(lines.count, n + 5); k++) {
      const body = lines.line(k);
      if (PER_FILE.test(body.length > 4096 ? body.slice(0, 4096) : body)) return true;
    }
  }
  return false;
}
const RECURSIVE = /\breaddirSync\b|\breaddir\s*\(|\bos\.walk\b|\.rglob\(|\bwalkSync\b|\bisDirectory\(\)|\bfind\s|-Recurse\b|\.iterdir\(/;

/** The code asks where the machine is: its time zone, locale, language or country by IP. */
const REGION_TEST = /\b(?:timeZone|tzname|getTimezoneOffset|resolvedOptions|locale|LANG|LC_ALL|geoip|ipinfo|ip-api|country(?:_?code)?)\b/;
/** …against places written into it (`Europe/Moscow`, `ru-RU`, `be_BY`). */
const REGION_LITERAL = /\b(?:Europe|Asia|America|Africa|Australia)\\?\/\(?[A-Z][a-z]+|\b[a-z]{2}(?:\[[-_]{1,2}\]|[-_])[A-Z]{2}\b/;

/** A walk that descends into every folder (a listing of one folder is not a wipe). */
const SELF_RECURSION =
  /\bisDirectory\(\)\s*\?\s*[\w$]+\(|\bos\.walk\b|\.rglob\(|\bwalkSync\b|-Recurse\b|\brecursive\s*:\s*true\b|\bfind\s+\S+[^\n]{0,80}-type\s+f\b/;

/**
 * Every file under the home folder written over or removed (node-ipc-style protestware: a time
 * zone or locale check, then a heart emoji over every file). Reading the home folder is not this;
 * writing or deleting each file found under it is. A walk that starts elsewhere (the working
 * folder, Documents) counts when the code first checks the machine's region against places
 * written into it: geofenced destruction, whatever folders it picks.
 */
export const massOverwrite: Rule = {
  id: "destructive.mass-overwrite",
  severity: "critical",
  title: "Overwrites or deletes every file under the home folder",
  kinds: ["javascript", "python", "shell", "powershell", "ruby", "perl", "php", "go", "batch"],
  text(text, ctx) {
    // The rare part first: a walk called on the home folder itself, or one behind a region check.
    const head = text.slice(0, 500_000);
    const m = WALK_HOME.exec(head) ?? (REGION_TEST.test(head) && SELF_RECURSION.test(head) ? REGION_LITERAL.exec(head) : null);
    if (!m || !RECURSIVE.test(text)) return [];
    // The write or delete happens for each entry of a directory listing, within a few lines of the loop.
    if (!loopWrites(text, ctx.lines)) return [];
    const gated =
      /\b(?:timeZone|getTimezoneOffset|tzname|locale|LANG\b|country|geoip|ipinfo|ip-api|getDate\(\)|Date\.now\(\)|datetime\.now\(\)|date\s+\+)/.test(
        text,
      );
    return [
      {
        index: m.index,
        length: m[0].length,
        message: `Walks the home folder and writes over or deletes each file in it${gated ? ", behind a time, locale or region check" : ""}`,
      },
    ];
  },
};

/**
 * A time bomb: a script that compares today's date with a date written into it and does something
 * else after it (deletes, uploads), so it behaves while it is reviewed and turns later. Scripts
 * compare against a variable or a file's age for expiry and rotation; a literal date is the tell.
 */
export const timeBomb = patternRule({
  id: "destructive.time-bomb",
  severity: "medium",
  title: "Behaves differently after a date written into it",
  kinds: ["shell", "powershell", "python", "javascript", "ruby", "perl", "php", "batch"],
  triggers: ["date", "now", "today", "get-date", "time"],
  patterns: [
    /\$\(\s*date\s+\+%[%\w-]+\s*\)["']?\s*(?:-gt|-ge|-lt|-le|-eq|>|>=|<|<=|==)\s*["']?(?:20\d{6}|20\d\d-\d\d-\d\d|1[6-9]\d{8})\b/,
    /\b(?:datetime|date)\.(?:now|today|utcnow)\(\s*\)[^\n]{0,40}?(?:>|>=|<|<=)\s*(?:datetime\.)?(?:datetime|date)\(\s*20\d\d\s*,/,
    /\b(?:Date\.now\(\s*\)|new\s+Date\(\s*\))[^\n]{0,30}?(?:>|>=)\s*(?:new\s+Date\(\s*(?:["'`]20\d\d-|20\d\d\s*,)|Date\.parse\(\s*["'`]20\d\d-|1[6-9]\d{11}\b)/,
    /\(Get-Date\)\s*-(?:gt|ge)\s*(?:\[datetime\])?\s*["']20\d\d-/i,
    /\btime\.time\(\s*\)\s*(?:>|>=)\s*1[6-9]\d{8}\b/,
    // The date written as a call (`Date.UTC(2026, 11, 1)`, `+new Date("2026-12-01")`, `datetime(2026, 12, 1).timestamp()`, `fromisoformat("2026-…")`), either side.
    /\b(?:Date\.now\(\s*\)|new\s+Date\(\s*\)(?:\.getTime\(\s*\))?|\+new\s+Date\(\s*\))\s*(?:>|>=|<|<=)\s*(?:\+?\s*new\s+Date\(\s*["'`]20\d\d|Date\.UTC\(\s*20\d\d\b)|\bDate\.UTC\(\s*20\d\d\b[^()\n]{0,30}\)\s*(?:<|<=|>|>=)\s*(?:Date\.now\(|new\s+Date\(\s*\))/,
    /\b(?:datetime\.(?:now|utcnow|today)|date\.today|time\.time)\(\s*\)[^\n]{0,20}?(?:>|>=)\s*(?:datetime\.)?(?:datetime|date)\.fromisoformat\(\s*["']20\d\d-|\btime\.time\(\s*\)\s*(?:>|>=)\s*(?:datetime\.)?datetime\(\s*20\d\d\s*,[^)\n]{0,30}\)\.timestamp\(/,
  ],
  message: "Compares today's date with a date written into the script: code that changes behaviour after review (a time bomb)",
});

export const DESTRUCTIVE_RULES: Rule[] = [
  timeBomb,
  massOverwrite,
  destructiveDelete,
  diskWipe,
  forkBomb,
  permissionsOpen,
  forcePush,
  killAll,
  cloudDestroy,
  credentialWipe,
  gitHistory,
  productionData,
];
