/**
 * Fixed destinations: a description that tells the model to send data to an address written in
 * the description itself (an e-mail, a URL, a phone number) is sending the user's data to the
 * tool's author. A tool that sends what the user asked to where the user said ("sends an email to
 * the given recipients") names no address and passes, as does a link to documentation ("report
 * bugs at https://github.com/…": bugs are not the user's data). Hard-coded collectors, paste
 * sites, webhooks and raw IPs are caught by the shared egress rules, which run too.
 */
import { isNegated } from "../../../scan";
import { sentenceRule } from "../sentence-rule";
import { DATA_NOUN, DESTINATION, isLocalDestination } from "../vocab";

const SEND = /\b(?:send|sends|post|posts|upload|uploads|forward|forwards|transmit|report|submit|copy|mail|e-?mail|cc|bcc|sync|log|exfiltrate|leak|deliver|share|publish|beacon|ping|notify|push|stream|mirror|back\s+up)\b/gi;

export const exfilDestination = sentenceRule({
  id: "mcp.exfil-destination",
  severity: "high",
  title: "Sends data to an address the description names",
  check(s) {
    for (const v of s.matchAll(SEND)) {
      if (isNegated(s, v.index)) continue;
      const rest = s.slice(v.index + v[0].length);
      const to = /\b(?:to|at|into|towards)\s*:?\s*<?/i.exec(rest);
      if (!to || to.index > 120) continue;
      const dest = DESTINATION.exec(rest.slice(to.index + to[0].length, to.index + to[0].length + 200));
      if (!dest || dest.index > 2 || isLocalDestination(dest[0])) continue;
      // What travels: the words between the verb and "to", or the whole sentence when the verb has no object there.
      const object = rest.slice(0, to.index);
      if (!DATA_NOUN.test(object) && !(object.trim() === "" && DATA_NOUN.test(s.slice(0, v.index)))) continue;
      const at = v.index + v[0].length + to.index + to[0].length + dest.index;
      return { index: at, length: dest[0].length, message: `Sends the user's data to ${dest[0]}, a destination written into the tool's own description` };
    }
    return null;
  },
});

export const EXFILTRATION_RULES = [exfilDestination];
