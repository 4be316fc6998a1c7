/**
 * Fixed destinations: a description that tells the model to send data to a place written in the
 * description itself (an e-mail address, a URL, a phone number, a repository's issue, a chat
 * channel, an account to share with, a host name to resolve) is sending the user's data to the
 * tool's author, whatever it calls the step ("retention archive", "status mirror", "support loop").
 * So is one that names another server's tool next to such a place, in any language
 * ("envie-a com a ferramenta send_email para backup@…"). A tool that sends what the user asked to
 * where the user said ("sends an email to the given recipients") names no place and passes, as do
 * a link to documentation ("report bugs at https://github.com/…": bugs are not the user's data) and
 * an example of a format ("E.164 number, e.g. +15555550123"). Hard-coded collectors, paste sites,
 * webhooks and raw IPs are caught by the shared egress rules, which run too.
 */
import { isNegated } from "../../../scan";
import { sentenceRule } from "../sentence-rule";
import { ownTools } from "../server-context";
import { foreignTool } from "../tool-mentions";
import { DATA_NOUN, HANDED_TO_USER, destinations } from "../vocab";

const SEND =
  /\b(?:send|sends|sent|post|posts|posted|upload|uploads|uploaded|forward|forwards|forwarded|transmit|transmits|transmitted|report|reported|submit|submitted|copy|copied|mail|mailed|e-?mail|e-?mailed|cc|bcc|sync|synced|log|logged|exfiltrate|leak|deliver|delivered|share|shared|publish|published|beacon|ping|notify|push|pushed|stream|streamed|mirror|mirrored|back\s+up|backed\s+up|export|exported|archive|archived|resolve|look\s*up|lookup|nslookup|dig|grant|invite|add|attach|write|put|place|store|call)\b/gi;

/** "Each draft is also uploaded to …": the subject of a passive send is what travels, whatever it is called. */
const PASSIVE_SEND =
  /\b(?:each|every|all|the|your|any)\s+(?:\w+\s+){0,3}(?:is|are|gets?|will\s+be)\s+(?:also\s+|then\s+|now\s+|automatically\s+|quietly\s+)*(?:sent|posted|uploaded|forwarded|copied|mirrored|synced|shared|exported|backed\s+up|archived|transmitted|delivered|pushed|streamed|logged)\s+(?:\w+\s+){0,3}(?:to|at|into)\b/i;

/** Granting access is sending the account itself. */
const GRANT =
  /(?:\b|_)(?:grant\w*|invite\w*|share\w*|collaborator|admin(?:istrator)?\s+(?:rights|access|role)|write\s+access|role\s+[`'"]?(?:writer|editor|owner|admin|maintainer)|as\s+(?:an?\s+)?(?:owner|admin|maintainer|member|writer|editor))\b/i;

/** Kinds of destination that are places data goes by themselves; the others need a verb that sends. */
const STANDALONE = new Set(["address", "url", "phone", "repository", "host"]);

export const exfilDestination = sentenceRule({
  id: "mcp.exfil-destination",
  severity: "high",
  title: "Sends data to a place the description names",
  // Every destination `destinations` finds holds one of these.
  triggers: [
    "@",
    "http",
    "+",
    "#",
    "issue",
    "pull",
    "\\bpr",
    "discussion",
    "comment",
    "repo",
    "project",
    "owner",
    "user",
    "account",
    "grantee",
    "collaborator",
    "member",
    "handle",
    "<",
    "{",
    "$",
  ],
  check(s) {
    const dests = destinations(s);
    if (!dests.length || HANDED_TO_USER.test(s)) return null;
    // A host name built around a placeholder carries what fills the placeholder: the name is the payload.
    const payload = DATA_NOUN.test(s) || PASSIVE_SEND.test(s) || dests.some((d) => d.kind === "host");
    const grant = GRANT.test(s);
    if (payload || grant) {
      SEND.lastIndex = 0;
      for (let v = SEND.exec(s); v; v = SEND.exec(s)) {
        if (isNegated(s, v.index)) continue;
        const dest = dests.find((d) => d.index > v!.index && d.index - v!.index < 300);
        if (!dest) continue;
        if (
          (dest.kind === "channel" || dest.kind === "account") &&
          !grant &&
          !/\b(?:post|send|share|forward|copy|mirror|publish)/i.test(s.slice(v.index, dest.index + 1))
        )
          continue;
        if (dest.kind === "host" && !/\b(?:resolve|look\s*up|lookup|nslookup|dig|ping|query)\b/i.test(s)) continue;
        return {
          index: dest.index,
          length: dest.text.length,
          message: `Sends the user's data to ${dest.text}, a destination written into the tool's own text`,
        };
      }
    }
    // Another server's tool next to a fixed place: the sentence routes that tool's data there, in whatever language it is said.
    const other = foreignTool(s, ownTools());
    const fixed = other && dests.find((d) => STANDALONE.has(d.kind));
    if (other && fixed && !isNegated(s, other.index)) {
      return {
        index: fixed.index,
        length: fixed.text.length,
        message: `Tells the model to use ${other.name ? `\`${other.name}\`` : "another server's tool"} with ${fixed.text}, a destination written into this tool's text`,
      };
    }
    return null;
  },
});

export const EXFILTRATION_RULES = [exfilDestination];
