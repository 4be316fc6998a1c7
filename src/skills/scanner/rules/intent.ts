/**
 * Intent chains (src/scan/intent.ts): a source of secrets or private data that reaches a sink,
 * in one text — a script, a section of SKILL.md, a fenced block, hidden text the engine decoded.
 * Chains across files (SKILL.md and the script it runs) are added by the scanner's entry point,
 * which reads every top-level text once and hands the readings to this rule (`meta.intentDocs`).
 */
import { intentChains, readIntent, type Hit, type IntentDoc, type Rule, type ScanTarget } from "../../../scan";

export const INTENT_RULE_ID = "exfil.chain";
const CODE: ReadonlySet<string> = new Set(["shell", "powershell", "batch", "python", "javascript", "ruby", "perl", "php", "go"]);

export const intentChain: Rule = {
  id: INTENT_RULE_ID,
  severity: "high",
  title: "Secrets or private data sent somewhere",
  text(text, ctx) {
    const cached = !ctx.hidden ? (ctx.meta?.intentDocs as Map<ScanTarget, IntentDoc> | undefined)?.get(ctx.target) : undefined;
    const doc =
      cached && cached.text === text
        ? cached
        : readIntent(text, {
            path: ctx.target.path,
            kind: ctx.target.kind === "binary" ? "text" : ctx.target.kind,
            securityPurpose: ctx.meta?.securityPurpose === true,
            ...(ctx.target.describes ? { describes: ctx.target.describes } : {}),
          });
    const hits: Hit[] = [];
    const docs = [doc];
    // Decoded text inside a Markdown or text file is usually a command: read it as code too.
    if (ctx.hidden && !CODE.has(ctx.target.kind)) docs.push(readIntent(text, { path: ctx.target.path, kind: "shell" }));
    const seen = new Set<number>();
    for (const d of docs) {
      for (const c of intentChains([d], { max: 5 })) {
        if (seen.has(c.sink.index)) continue;
        seen.add(c.sink.index);
        hits.push({ index: c.sink.index, length: c.sink.length, severity: c.severity, message: c.message });
      }
    }
    return hits;
  },
};

export const INTENT_RULES: Rule[] = [intentChain];
