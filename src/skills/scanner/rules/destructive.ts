/**
 * Destruction: deleting the home folder or the root file system, wiping disks, fork bombs,
 * opening permissions on everything, force-pushing over a shared branch. Cleaning a build folder
 * (`rm -rf dist node_modules`) is ordinary and not flagged.
 */
import { patternRule, type Rule } from "../../../scan";

const ROOTISH = String.raw`(?:\/\*?|~\/?\*?|\$HOME\/?\*?|\$\{HOME\}\/?\*?|"\$HOME"\/?\*?|\/home\/?\*?|\/Users\/?\*?|\/(?:etc|usr|var|boot|bin|sbin|lib|lib64|opt|System|Library)\/?\*?|[A-Za-z]:\\\*?|%USERPROFILE%|%SystemRoot%|\$env:USERPROFILE)`;
const END = String.raw`(?=$|[\s;&|)"'])`;

export const destructiveDelete = patternRule({
  id: "destructive.delete",
  severity: "critical",
  title: "Deletes the system or the home folder",
  triggers: ["\\brm", "\\bfind", "remove-item", "\\brd", "rmdir", "\\bdel", "rmtree", "fs.rm", "factory", "cloud"],
  prose: true,
  patterns: [
    new RegExp(String.raw`\brm\s+(?:-{1,2}[\w-]+\s+)*(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)\s+(?:-{1,2}[\w-]+\s+)*${ROOTISH}${END}`),
    /\brm\b[^\n]*--no-preserve-root\b/,
    new RegExp(String.raw`\bfind\s+${ROOTISH}\s+[^\n]*-delete\b|\bfind\s+${ROOTISH}\s+[^\n]*-exec\s+rm\b`),
    new RegExp(String.raw`\bRemove-Item\b[^\n]*-Recurse\b[^\n]*\s${ROOTISH}${END}|\bRemove-Item\s+${ROOTISH}\s[^\n]*-Recurse\b`, "i"),
    /\b(?:rd|rmdir)\s+\/s\s+\/q\s+[A-Za-z]:\\?(?:\s|$)|\bdel\s+\/[fsq]\s+\/[fsq]\s+\/[fsq]\s+[A-Za-z]:\\/i,
    /\bshutil\.rmtree\(\s*(?:["']\/["']|os\.path\.expanduser\(\s*["']~["']\s*\)|Path\.home\(\)|["']~["'])\s*\)|\bfs\.rm(?:Sync)?\(\s*(?:["']\/["']|os\.homedir\(\))[^\n]*recursive/i,
    // The instruction itself (the Amazon Q extension wiper prompt, 2025).
    /\b(?:wipe|erase|clean|reset|restore|return)\s+(?:the\s+|this\s+|your\s+|their\s+|the\s+user'?s\s+)?(?:system|machine|computer|disk|drive|laptop|workstation)\s+(?:back\s+)?to\s+(?:a\s+|its\s+)?(?:near[- ])?factory(?:[- ](?:state|settings|defaults|condition))?\b/i,
    /\bdelete\s+(?:all\s+)?(?:the\s+)?(?:user'?s\s+)?(?:file[- ]?system|files|home\s+(?:directory|folder))\s+and\s+(?:all\s+)?(?:the\s+)?cloud\s+resources\b/i,
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
  patterns: [/\bgit\s+push\b[^\n]*(?:\s--force(?!-with-lease)\b|\s-f\b)[^\n]*\b(?:main|master|trunk|production|release)\b/],
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
    /\baws\b[^\n]*\bec2\s+terminate-instances\b[^\n]*\$\(\s*aws\b[^\n]*describe-instances\b/i,
    /\baws\b[^\n]*\biam\s+delete-(?:user|role|account-alias|group)\b|\baws\b[^\n]*\borganizations\s+(?:close-account|remove-account-from-organization)\b/i,
    /\baws\b[^\n]*\bs3\s+(?:rb\s+s3:\/\/\S+\s+--force|rm\s+s3:\/\/\$\{?\w+\}?\/?\s+--recursive)\b/i,
    /\bgcloud\s+projects\s+delete\b|\bgcloud\b[^\n]*\binstances\s+delete\b[^\n]*\$\(/i,
    /\baz\s+group\s+delete\b[^\n]*(?:--yes|-y)\b[^\n]*(?:--no-wait)?|\baz\s+group\s+list\b[^\n]*\|[^\n]*\baz\s+group\s+delete\b/i,
    /\bkubectl\s+delete\s+(?:ns|namespaces?|all|pv|pvc|deployments?)\b[^\n]*(?:--all\b[^\n]*(?:-A|--all-namespaces)\b|(?:-A|--all-namespaces)\b[^\n]*--all\b)|\bkubectl\s+delete\s+(?:ns|namespaces?)\s+--all\b/i,
    /\bdoctl\s+compute\s+droplet\s+delete\b[^\n]*\$\(|\bterraform\s+destroy\b[^\n]*-auto-approve\b[^\n]*(?:prod|production)/i,
  ],
  message: "Destroys cloud resources in bulk (every instance, users, whole projects or namespaces)",
});

export const DESTRUCTIVE_RULES: Rule[] = [destructiveDelete, diskWipe, forkBomb, permissionsOpen, forcePush, killAll, cloudDestroy];
