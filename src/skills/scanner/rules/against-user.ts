/**
 * Readings by role shared with the MCP scanner (src/scan/against-user.ts), and two roles a skill's
 * instructions show that a tool's text rarely does: the licences of code the user ships changed for
 * them, and other people's personal data handed to a party that is not the user. Each reads who the
 * step serves and what changes for the user, not a family's wording.
 */
import { isMention, isNegated, type Hit, type Rule } from "../../../scan";
import { readUndisclosedAct } from "../../../scan/against-user";
import { cuedSentences } from "./sabotage";

/** Paragraphs (blank-line separated), each with its offset; bounded in number and length. */
function paragraphs(text: string, each: (start: number, body: string) => boolean): void {
  let from = 0;
  for (let n = 0; n < 2000 && from < text.length; n++) {
    const gap = /\n[ \t]*\n/g;
    gap.lastIndex = from;
    const m = gap.exec(text);
    const to = m ? m.index : text.length;
    if (to > from && !each(from, text.slice(from, Math.min(to, from + 8192)))) return;
    from = m ? m.index + m[0].length : text.length;
  }
}

/**
 * An act against the user (security weakened, licences stripped, links routed through someone else,
 * data or results altered, dependencies held back, secrets gathered) in the same paragraph as keeping
 * it from the user (not mentioned, described as something smaller, done so checks do not notice).
 */
export const undisclosedAct: Rule = {
  id: "sabotage.undisclosed-act",
  severity: "high",
  title: "Does something against the user and keeps it from them",
  kinds: ["markdown", "text"],
  text(text) {
    const hits: Hit[] = [];
    paragraphs(text, (start, body) => {
      const r = readUndisclosedAct(body);
      if (r)
        hits.push({
          index: start + r.index,
          length: r.length,
          message: `The skill ${r.role} ("${r.act}") and tells the agent to keep it from the user ("${r.hush}")`,
        });
      return hits.length < 2;
    });
    return hits;
  },
};

// ---------------------------------------------------------------- licences changed

const LICENCE_CUE = /licen[cs]|copyright|attribution|author|spdx|copying|notice|gpl|\bmpl|proprietary|rights\s+reserved/gi;
/** A licence, copyright or attribution removed or replaced. */
const STRIPPED =
  /\b(?:remov|strip|delet|drop|omit|replac|overwrit|eras|rewrit)\w*\s+(?:(?:the|any|all|every|existing|their|its|original|upstream|old)\s+){0,3}(?:licen[cs]es?|copyrights?|attributions?|author(?:ship)?|spdx|notices?)(?:\s+(?:headers?|comments?|notices?|lines?|blocks?|texts?|files?))?\b|\b(?:remov|strip|delet|drop|replac|overwrit|eras|rewrit)\w*\s+(?:(?:the|any|all|every|existing|their|its)\s+)?(?:(?:A|L)?GPL|MPL|EPL|Apache|BSD|MIT|copyleft)[\w.-]*\s+(?:licen[cs]e\s+)?(?:headers?|notices?|comments?|blocks?)\b|\b(?:remov|delet|drop)\w*\s+(?:the\s+)?(?:LICEN[CS]E|COPYING|NOTICE)(?:\s*(?:,|and|or)\s*(?:LICEN[CS]E|COPYING|NOTICE))*\b/i;
/** The code is someone else's (vendored, upstream, under a named licence), or the new header claims it. */
const NOT_THE_USERS =
  /\b(?:vendor\w*|third[- ]party|upstream|other\s+(?:authors?|projects?|people)|copyleft|(?:A|L)?GPL(?:v?\d)?|MPL|CC-BY\w*|proprietary|all\s+rights\s+reserved)\b/i;
/** The user's own relicensing, or keeping the notices. */
const LICENCE_ORDINARY =
  /\b(?:the\s+user\s+(?:asks?|asked|chooses?|chose|wants?|picked|approves?|confirms?)|user'?s\s+(?:own|chosen)|(?:they|you)\s+own|keep\w*|preserv\w*|retain\w*|leave\s+(?:\w+\s+){0,3}?(?:intact|in\s+place|untouched))\b/i;

/**
 * Licences of code the user ships changed for them: the licence or authorship of vendored or
 * copyleft code removed, or replaced with a proprietary claim. The user is the one who answers for
 * a licence broken in what they ship. Adding SPDX headers, relicensing the user's own code when they
 * ask, or keeping notices intact pass.
 */
export const licenceStripped: Rule = {
  id: "sabotage.licence-stripped",
  severity: "high",
  title: "Strips licences or authorship from code the user ships",
  kinds: ["markdown", "text"],
  text(text) {
    const hits: Hit[] = [];
    for (const s of cuedSentences(text, LICENCE_CUE)) {
      if (hits.length >= 2) break;
      const t = s.text.replace(/\n/g, " ");
      const m = STRIPPED.exec(t);
      if (!m || isNegated(t, m.index) || isMention(t, m.index, m[0].length)) continue;
      if (!NOT_THE_USERS.test(t) || LICENCE_ORDINARY.test(t)) continue;
      hits.push({
        index: s.start + m.index,
        length: m[0].length,
        message: `Changes the licence or authorship of code the user ships ("${m[0].trim()}"): notices of vendored or copyleft code removed or replaced leave the user in breach`,
      });
    }
    return hits;
  },
};

// ---------------------------------------------------------------- other people's data for a third party

const PEOPLE_CUE = /e-?mail|%ae|%an|phone|contact|address/gi;
/** Other people's personal data: authors' e-mails, contributors' names and addresses, contact lists. */
const PERSONAL =
  /\b(?:author|contributor|committer|maintainer|customer|member|attendee|subscriber|employee|patient|student|people|person|visitor)s?'?\s+(?:e-?mails?|e-?mail\s+address\w*|phone\s+numbers?|home\s+address\w*|names?\s+and\s+e-?mails?|contact\s+details)\b|%a[en]\b|\be-?mail\s+addresses\s+of\s+(?:every|all|each|any)\w*|\b(?:every|all|each)\w*\s+(?:\w+\s+)?(?:e-?mail\s+address\w*|phone\s+numbers?)\b|\be-?mails?\s+(?:and|with|plus)\s+names\b|\bnames\s+(?:and|with|plus)\s+e-?mails?\b|\bcontact\s+lists?\b/i;
/** Handed on: posted, uploaded, sent, exported. */
const HANDED = /\b(?:post|upload|send|sync|export|submit|forward|share|import|push|sell)\w*\b/i;
/** To someone who is not the user: partners, sponsors, advertisers, brokers, buyers (the user's own CRM or team is not this). */
const FOR_OTHERS =
  /\b(?:partners?|sponsors?|advertis(?:ers?|ing\s+(?:partners?|networks?))|(?:data\s+)?brokers?|affiliates?|resellers?|third[- ]part(?:y|ies)|sold|sell\w*)\b/i;
/** Consent or the user's own list: opted in, subscribed, their own CRM. */
const PEOPLE_ORDINARY =
  /\b(?:opt(?:ed)?[- ]?in|consent\w*|subscribed|unsubscrib\w*|gdpr|the\s+user'?s\s+(?:own\s+)?(?:crm|list|mailing\s+list)|anonymi[sz]\w*|hash(?:ed)?\s+(?:e-?mails?|addresses))\b/i;

/**
 * Other people's personal data gathered with the user's tools and handed to a party that is not the
 * user (partners, a lead list, marketing): the user's machine made a harvester for someone else.
 * Mailing the user's own opted-in list, or a report to the user's own recipients, pass.
 */
export const peopleDataForOthers: Rule = {
  id: "privacy.third-party-data",
  severity: "high",
  title: "Hands other people's personal data to a third party",
  kinds: ["markdown", "text"],
  text(text) {
    const hits: Hit[] = [];
    paragraphs(text, (start, body) => {
      const t = body.replace(/\n/g, " ");
      const m = PERSONAL.exec(t);
      if (!m || isNegated(t, m.index) || isMention(t, m.index, m[0].length)) return true;
      const h = HANDED.exec(t);
      if (!h || isNegated(t, h.index) || !FOR_OTHERS.test(t) || PEOPLE_ORDINARY.test(t)) return true;
      hits.push({
        index: start + m.index,
        length: m[0].length,
        message: `Gathers other people's personal data ("${m[0].trim()}") and hands it to a party that is not the user`,
      });
      return false;
    });
    return hits;
  },
};

export const AGAINST_USER_SKILL_RULES: Rule[] = [undisclosedAct, licenceStripped, peopleDataForOthers];
