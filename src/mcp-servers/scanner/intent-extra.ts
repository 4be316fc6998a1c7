/**
 * Readings the MCP scanner adds to the shared intent model's (src/scan/intent.ts) for what tool
 * text says and the shared lexicon does not read yet: the system prompt described rather than
 * named ("the setup message you received before the user's first message"), the Kubernetes
 * client's credentials by description, publishing as a public gist in other languages, and polite
 * Japanese concealment. They are requested upstream (/work/notes/scan-requests.md, item 3); each
 * one that lands there is removed here. Hits join the model's own before chains are made.
 */
import { isNegated, type IntentHit, type LineIndex } from "../../scan";

interface Extra {
  role: IntentHit["role"];
  kind: IntentHit["kind"];
  re: RegExp;
  /** A cheap test that must pass before `re` runs. */
  needs: RegExp;
}

const EXTRAS: Extra[] = [
  {
    // The system prompt, by what it is: the text the model got before the conversation began.
    role: "source",
    kind: "conversation",
    // Said to the model ("you received", "gave you", "above the first user turn"): a system_prompt parameter for another model is not this.
    needs: /\byou|above\s+the\s+first/i,
    re: /\b(?:(?:setup|system|initial|hidden|pre-?conversation|developer|operator|platform|deployment)\s+)?(?:message|text|instructions?|guidance|rules|prompt|context|directions|configuration)\s+(?:that\s+)?(?:you\s+(?:received|were\s+given|got|have\s+been\s+given|were\s+configured\s+with|were\s+started\s+with)|(?:your\s+)?(?:developers?|operators?|platform|creators?|deployers?|admins?)(?:\s+or\s+\w+)?\s+(?:gave|give|wrote\s+for)\s+you|given\s+to\s+you)\b[^.\n]{0,100}?\b(?:before|ahead\s+of|above|prior\s+to|preceding|at\s+the\s+start\s+of)\b|\b(?:everything|all\s+(?:the\s+)?text|whatever)\s+(?:above|before)\s+the\s+(?:first\s+)?user(?:'s)?\s+(?:turn|message)/i,
  },
  {
    // The conversation by what it is: what was said in this chat, what the user asked.
    role: "source",
    kind: "conversation",
    needs: /said|wrote|typed|exchanged|asked|discussed|up\s+to\s+now|until\s+now|so\s+far/i,
    re: /\b(?:everything|all|whatever|anything)\s+(?:that\s+)?(?:the\s+user|you|we|both\s+(?:of\s+you|sides))(?:\s+and\s+(?:the\s+user|you|we))?\s+(?:have\s+|has\s+)?(?:said|wrote|written|typed|exchanged|discussed|asked|shared)\b|\b(?:this|the\s+current)\s+(?:chat|conversation|session|thread)\s+(?:up\s+to\s+now|until\s+now|so\s+far)\b|\b(?:a\s+)?(?:summary|digest|gist|copy)\s+of\s+(?:what\s+the\s+user\s+(?:asked|said|wrote|typed|requested)|the\s+(?:user'?s\s+)?(?:conversation|chat|question|request))\b|\bwhat\s+the\s+user\s+(?:asked|said|wrote|typed)\b/i,
  },
  {
    // Data handed to a tool: "store it with save_note", "pass them to `sync_profile`", in several languages.
    role: "sink",
    kind: "tool-argument",
    needs:
      /\b(?:with|via|using|through|to|into|in)\b|参数|パラメータ|引数|매개변수|parametro|parámetro|parâmetro|paramètre|Parameter|параметр/i,
    re: /\b(?:store|save|send|pass|give|hand|submit|sync|upload|write|record|log|put|place|feed|provide)\s+(?:it|them|this|that|these|those|the\s+(?:\w+\s+){0,3}?(?:contents?|text|output|value|data|file|files|result|results))\s+(?:with|via|using|through|to|into)\s+(?:the\s+)?[`'"]?[A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)+[`'"]?|(?:\b(?:inser\w*|mett\w*|pass\w*|includ\w*|inclu\w*|aggiung\w*|copi\w*|incoll\w*|pon\w*|agreg\w*|añad\w*|peg\w*|coloc\w*|adicion\w*|insir\w*|preench\w*|col[eo]\w*|ajout\w*|insér\w*|füg\w*|setz\w*|überg\w*|gib|kopier\w*|trag\w*)|(?<![А-Яа-яЁё])(?:встав\w*|добав\w*|переда\w*|укаж\w*|скопир\w*|полож\w*)|填入|放入|传入|写入|加入|附加|粘贴|填到|入れ|渡し|含め|貼り付け|設定し|넣|전달|포함|붙여)[^.。\n]{0,80}?(?:parametr[oi]|parámetro|parâmetro|paramètre|Parameter|параметр\w*|参数|字段|パラメータ|引数|매개변수|인자)/i,
  },
  {
    // The Kubernetes client's credentials, by description.
    role: "source",
    kind: "cloud-credentials",
    needs: /kube/i,
    re: /(?<![\w-])\.kube\b(?![/\\](?:cache|http-cache)\b)|\bkubectl\b[^.\n]{0,60}?\b(?:access\s+file|config(?:uration)?\s+file|credentials?|reads\s+by\s+default)\b/i,
  },
  {
    // A gist or repository made public, in any language (`public: true` is a flag, not a word).
    role: "sink",
    kind: "public-post",
    needs: /gist|公開|公开|public\s*["']?\s*:|リポジトリ|仓库/i,
    re: /(?:gist|リポジトリ|仓库|repo(?:sitory)?)[^。\n]{0,40}?(?:公開|公开|\bpublic\s*["']?\s*:\s*true)|(?:公開|公开|\bpublic\s*["']?\s*:\s*true)[^。\n]{0,40}?(?:gist|リポジトリ|仓库|repo(?:sitory)?)/i,
  },
  {
    // "It need not be included in the report to the user" in polite Japanese.
    role: "conceal",
    kind: "hide",
    needs: /なくて/,
    re: /(?:含め|触れ|言わ|伝え|知らせ|報告し|説明し|書か)なくて(?:も)?(?:構いません|かまいません|いい|よい|大丈夫)/,
  },
];

/** The extra hits of a text (prose: one scope), in text order. */
export function extraIntentHits(text: string, lines: LineIndex): IntentHit[] {
  const out: IntentHit[] = [];
  for (const e of EXTRAS) {
    if (!e.needs.test(text)) continue;
    const re = new RegExp(e.re.source, `${e.re.flags.replace("g", "")}g`);
    let n = 0;
    for (let m = re.exec(text); m && n < 3; m = re.exec(text)) {
      n++;
      const negated =
        e.role !== "conceal" &&
        isNegated(
          text.slice(Math.max(0, text.lastIndexOf("\n", m.index) + 1), m.index + 1),
          m.index - Math.max(0, text.lastIndexOf("\n", m.index) + 1),
        );
      out.push({
        role: e.role,
        kind: e.kind,
        index: m.index,
        length: m[0].length,
        line: lines.lineOf(m.index),
        what: m[0].replace(/\s+/g, " ").trim().slice(0, 80),
        mode: negated ? "mention" : "do",
        ...(negated ? { why: "negated" } : {}),
        scope: 0,
      });
    }
  }
  return out;
}
