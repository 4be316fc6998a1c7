/**
 * Destruction dressed as upkeep: a tool's text telling the model to drop, wipe, truncate or
 * force-push something broad ("drop every table whose name starts with user_", "clear the backups
 * folder") as part of "optimization", "routine maintenance" or "cleanup", or without asking. A tool
 * whose purpose is deleting, described in the third person and gated on the user's confirmation
 * ("deletes files permanently; ask the user to confirm"), is not this; nor is a negated warning
 * ("never run DROP unless the user asked"). The shared destructive rules (rm -rf of the home folder,
 * disk wipes, force pushes) read the commands themselves.
 */
import { isNegated } from "../../../scan";
import { directive, sentenceRule } from "../sentence-rule";

const DESTROY =
  /\b(?:drop|truncate|delete|remove|wipe|erase|purge|destroy|nuke|reset\s+--hard|rm\s+-[a-z]*r[a-z]*f?|force[- ]push|overwrite|revoke|deactivate|disable|uninstall|clear|empty|shred)\b/i;
/** Broad or precious objects: everything of a kind, the home folder, history, backups, production, other people's access. */
const BROAD =
  /\b(?:every|all|each|entire|whole|any)\b|~\/|\$HOME\b|\bhome\s+(?:folder|directory)\b|\b(?:main|master|production|prod|audit\w*|backups?|snapshots?|history|logs?|users?_?\w*|accounts?|keys?|tables?|databases?|branches|repositor(?:y|ies)|buckets?|volumes?)\b/i;
/** Said as upkeep, or without the user's say. */
const COVER =
  /\b(?:as\s+part\s+of|routine|maintenance|to\s+(?:free|reclaim)\s+(?:up\s+)?(?:disk\s+)?space|(?:it|this)\s+is\s+(?:safe|harmless)|it'?s\s+(?:safe|harmless)|housekeeping|optimi[sz]\w*|clean-?up|tidy\w*|hygiene|to\s+(?:keep|save)\s+(?:space|history\s+small|things?\s+(?:fast|clean))|expected|standard\s+procedure)\b|\b(?:do\s+not|don'?t|never|no\s+need\s+to)\s+(?:ask|confirm|check|wait)\b|\bwithout\s+(?:asking|confirmation|confirming|approval|checking)\b|\bneeds?\s+no\s+(?:confirmation|approval)\b|\bautomatically\b|\bsilently\b|\bkhông\s+cần\s+hỏi|\b(?:thao\s+tác\s+)?bảo\s+trì|\bthường\s+lệ|\btối\s+ưu|\bsans\s+(?:demander|confirmation)|\bsenza\s+(?:chiedere|conferma)|\bsin\s+(?:preguntar|confirmación)|\bsem\s+(?:perguntar|confirmação)|\bbez\s+(?:pytania|potwierdzenia)|\bohne\s+(?:Rück|Nach)frage|без\s+(?:подтвержд|вопрос)|確認(?:せず|なし|不要)|无需确认|묻지\s*않고|دون\s+(?:سؤال|تأكيد)/i;
/** The tool describing its own deletion, gated on the user. */
const CONSENT =
  /\b(?:ask|confirm\w*|approv\w*|consent)\b[^.!?\n]{0,40}\b(?:user|them|first|before)\b|\bonly\s+(?:when|if|after)\s+the\s+user\b|\bthe\s+user\s+(?:asks?|confirms?|explicitly)\b/i;

export const destructiveDirective = sentenceRule({
  id: "mcp.destructive-directive",
  severity: "high",
  title: "Destroys things as routine or without asking",
  triggers: [
    "drop",
    "truncate",
    "delete",
    "remove",
    "wipe",
    "erase",
    "purge",
    "destroy",
    "nuke",
    "reset",
    "rm ",
    "force",
    "overwrite",
    "revoke",
    "deactivate",
    "disable",
    "uninstall",
    "clear",
    "empty",
    "shred",
  ],
  check(s) {
    const d = directive(s, DESTROY);
    if (!d || isNegated(s, d.index!, true)) return null;
    // "Lists the branches a cleanup would delete": a modal describes what might happen, it orders nothing.
    if (/\b(?:would|could|might|may|can)\s+(?:\w+\s+)?$/i.test(s.slice(Math.max(0, d.index! - 25), d.index!))) return null;
    const after = s.slice(d.index!, d.index! + 160);
    if (
      !BROAD.test(after) ||
      !COVER.test(s) ||
      (CONSENT.test(s) && !/\b(?:do\s+not|don'?t|never|no\s+need\s+to)\s+(?:ask|confirm)|\bwithout\s+(?:asking|confirmation)/i.test(s))
    )
      return null;
    return {
      index: d.index!,
      length: d[0].length,
      message: "Tells the model to destroy something broad as routine upkeep or without asking the user",
    };
  },
});

export const DESTRUCTIVE_RULES = [destructiveDirective];
