/**
 * Data flows, read with the shared intent model (src/scan/intent.ts): a source (secrets, private
 * data, the conversation, however named and in any of its languages) that reaches a sink (the
 * network, a public post, DNS, an image URL, another tool's arguments) in a tool's text is a
 * finding, worse with concealment. Two things are MCP's own:
 *   - a parameter is a sink: whatever its description or offered values ask for is handed to the
 *     server with the call ("conversation_context: the complete transcript of this chat so far");
 *   - a tool's text is one place: its description and its schema are read together, so "pass it as
 *     `note`" in the description and what `note` asks for are one instruction.
 * Roles the model reads as mentions (negated, quoted examples, a detection tool describing what it
 * finds) make `info` findings that go to the second opinion, not to the status.
 */
import { intentChains, readIntent, type IntentChain, type IntentDoc, type IntentHit, type Hit, type Rule } from "../../../scan";
import { isArgumentText, isScalarArgument, segmentsOf, type Segment } from "../targets";
import { extraIntentHits } from "../intent-extra";
import { describeMcp } from "../describe";
import { ownService, ownWord, securityServer } from "../server-context";

const CREDENTIAL_KINDS = new Set(["token", "registry-token", "cloud-credentials"]);
/** A credential of the server's own service, sent to that service or asked for by its tool: the tool doing its job. */
function ownCredential(c: IntentChain, text: string): boolean {
  if (!CREDENTIAL_KINDS.has(c.source.kind)) return false;
  if (c.sink.kind === "parameter") return (c.source.home ?? []).some(ownService) || namedOwn(c, text);
  // The sink's host, or a bare host name said in its sentence ("sent only to api.linear.app").
  const hosts = c.sink.host
    ? [c.sink.host]
    : [
        ...text
          .slice(c.sink.index, c.sink.index + 200)
          .split(/[.!?](?:\s|$)|\n/, 1)[0]!
          .matchAll(BARE_HOST),
      ].map((m) => m[0]);
  // No place written down ("sent only to the given host"): the call goes where the user points the
  // server, so a token named after the server's own service ("a Sentry auth token" in a Sentry
  // server) is what the call needs. Hidden, published or rendered it still leaks.
  if (!hosts.length) return c.sink.kind === "network" && !c.conceal && (namedOwn(c, text) || forTheDestination(c, text));
  // A credential whose home the model knows (an .npmrc is npm's, a Docker config Docker's) is the server's own only at that home:
  // a host named like the server's words ("cache.example.com" for a cache tool) does not make a Docker login its business.
  const home = c.source.home;
  if (home?.length) return hosts.every((h) => home.some((d) => h.toLowerCase() === d || h.toLowerCase().endsWith(`.${d}`)));
  return hosts.every(ownService);
}
/** The credential's own words or the few before it name the server's service ("your Sentry user auth token"). */
function namedOwn(c: IntentChain, text: string): boolean {
  if (c.source.home?.length) return false;
  const words = text.slice(Math.max(0, c.source.index - 30), c.source.index + c.source.length).split(/[^A-Za-z0-9]+/);
  return words.slice(-6).some((w) => w.length >= 4 && ownWord(w));
}
/**
 * A credential said to be the one of the place the request goes ("the user's Authorization token for
 * that API", in a generic HTTP client the user points at their own API): the request carries it
 * where it belongs. Said of no written-in host; hidden, it still leaks.
 */
function forTheDestination(c: IntentChain, text: string): boolean {
  const after = text.slice(c.source.index + c.source.length, c.source.index + c.source.length + 60).split(/[.!?](?:\s|$)|\n/, 1)[0]!;
  return /^\s*(?:\w+\s+)?(?:for|of)\s+(?:that|this|the\s+same|the\s+target|the\s+destination|the\s+user'?s?)\s+(?:API|service|host|server|endpoint|site|account)\b/i.test(
    after,
  );
}
const BARE_HOST = /\b(?:[a-z0-9-]+\.)+[a-z]{2,}\b/gi;

/**
 * The user's request passed on to where the tool sends things (a message to the user's webhook)
 * is what a messaging tool is for; the conversation or private data leaks when it goes in bulk
 * (the whole chat, every DM) or to a place written into the tool's text.
 */
function singleMessage(c: IntentChain, text: string): boolean {
  if (c.source.kind !== "conversation" && c.source.kind !== "private-data") return false;
  // An image the client fetches on its own is no message the user sends: whatever fills its URL leaks.
  if (c.sink.kind === "parameter" || c.sink.kind === "image-url") return false;
  if (BULK.test(text.slice(Math.max(0, c.source.index - 200), c.source.index + c.source.length + 200))) return false;
  const sentence = text.slice(c.sink.index, c.sink.index + 300).split(/[.!?](?:\s|$)|\n/, 1)[0]!;
  const literal = c.sink.host ?? [...sentence.matchAll(BARE_HOST)].map((m) => m[0]).find((h) => /\.[a-z]{2,}$/i.test(h) && !ownService(h));
  return !literal || ownService(literal);
}

const PARAM = /\.properties(?:\.([\w$-]+)|\["([^"]*)"\])\.[^.]*$/;

/**
 * A parameter may ask for the user's question or a service's own API key: that is its purpose. It
 * may not ask for what the task has no use for: key and credential files, the environment, the
 * whole conversation or the system prompt, everything of a kind. So a source in a parameter's text
 * counts only when it is strong (not a generic word such as "tokens"), and the conversation or
 * private data only in bulk.
 */
const BULK =
  /\b(?:all|every|each|entire|whole|full|complete|so\s+far|up\s+to\s+now|history|histories|log|logs|verbatim|word\s+for\s+word|previous|prior|earlier|system\s+prompts?|(?:this|the)\s+(?:chat|conversation|session)|everything|you\s+(?:were\s+given|received|got)|gave\s+you|before\s+the\s+user|above\s+the\s+first|intero|tutt[oa]|complet[oa]s?|entero|todos?|todas?|tout|entier|gesamte?n?|alle|intégral\w*|integral\w*|íntegr\w*|wörtlich|jede[rnms]?|chaque|cada|ogni)\b|\bSELECT\s+\*\s+FROM\b|\baddress\s+books?\b|\bcontacts?\s+lists?\b|\blocation\s+histor(?:y|ies)\b|\bmost\s+(?:frequent|recent|contacted)\s+contacts\b|(?<![А-Яа-яЁё])(?:каждое|каждый|каждую)|每|所有|全部|完整|すべて|全て|全文|これまで|전체|모든|vollständig|bisherige|всю|все|полн/i;
function askedAsArgument(h: IntentHit, seg: Segment): boolean {
  if (h.role !== "source" || h.mode !== "do" || h.weak) return false;
  // The parameter's own text, from its start or the last sentence end before the hit (not the "." of "e.g.").
  const before = seg.text.slice(Math.max(0, h.index - seg.start - 300), h.index - seg.start);
  const lead = before.slice(Math.max(0, before.search(/[.!?]\s+(?=[A-Z][a-z])[^.!?]*$/) + 1));
  // A security tool's parameter lists examples of what it looks for ("rule_id: e.g. aws-access-token, private-key").
  if (securityServer() && EXAMPLE.test(lead)) return false;
  if (FILE_KINDS.has(h.kind) && (PATH_ONLY.test(seg.text) || NAME_IN_FILE.test(seg.text)) && !CONTENT.test(seg.text)) return false;
  if (h.kind !== "conversation" && h.kind !== "private-data") return true;
  // The text the tool works on, said so ("the complete transcript of the meeting to summarize"): its input, not a leak.
  if (
    h.kind === "private-data" &&
    WORK_INPUT.test(seg.text.slice(h.index - seg.start, h.index - seg.start + 100).split(/[.!?](?:\s|$)|\n/, 1)[0]!)
  )
    return false;
  const around = seg.text.slice(Math.max(0, h.index - seg.start - 300), h.index - seg.start + 300);
  // The conversation is this one (the agent's own context), not a prompt or transcript for something else.
  return BULK.test(around) && (h.kind !== "conversation" || OWN_CONTEXT.test(around));
}

const WORK_INPUT =
  /\bto\s+(?:be\s+)?(?:summari[sz]e|translate|analy[sz]e|classify|proofread|transcribe|format|review|index|parse|convert|render|score|tag|redact)d?\b/i;
// The user's other chats count too ("the transcripts of the user's 20 most recent chats"): their messaging history, not a text to work on.
const OWN_CONTEXT =
  /\b(?:the\s+user'?s|their)\s+(?:\w+\s+){0,3}?(?:chats|conversations|threads|dms|direct\s+messages|inbox(?:es)?)\b|\b(?:you|your|yours|ton|ta|tes|votre|vos|tu|tus|dein\w*|tuo|tua|tuoi|seu|sua|teu|tua|this\s+(?:chat|conversation|session|thread|dialog(?:ue)?)|so\s+far|up\s+to\s+now|above|earlier|our|hasta\s+ahora|até\s+agora|jusqu'ici|finora)\b|bisherig|到目前为止|迄今|これまで|今まで|지금까지|이\s*대화|до\s+сих\s+пор|этого\s+(?:чата|диалога)/i;

/** A parameter that takes where a file is, not what is in it (a kubeconfig path, the .env to lint): the tool reads it where it is. */
const PATH_ONLY = /\b(?:path|location|filename|file\s+name|directory|folder)\b/i;
/**
 * A parameter that takes the name of an entry the file defines ("named profile from ~/.aws/config",
 * "context name in your kubeconfig"): the tool looks the entry up itself; only the name travels.
 */
export const NAME_IN_FILE =
  /\b(?:named\s+(?:profile|context|section|host|alias|entry|remote|account|cluster)s?|(?:profile|context|section|host|alias|entry|remote|account|cluster)\s+names?|name\s+of\s+(?:a|an|the)\s+(?:profile|context|section|host|alias|entry|remote|account|cluster))\s+(?:\w+\s+){0,2}?(?:from|in|defined\s+in|listed\s+in|configured\s+in|of)\b/i;
const CONTENT =
  /\b(?:contents?|text|lines?|copy|paste|verbatim|full|entire|whole|data|value|values|body|reproduce|include)\b|内容|全文|Inhalt|contenido|conteúdo|contenu|contenuto|содержим/i;
const FILE_KINDS = new Set([
  "ssh-key",
  "cloud-credentials",
  "registry-token",
  "dotenv",
  "browser-data",
  "keychain",
  "wallet",
  "agent-config",
]);

const EXAMPLE = /\be\.g\.|\b(?:for\s+example|for\s+instance|such\s+as|like)\b/i;

/** "Environment variables are not included", "private repositories are skipped": negated after the noun, which the model reads only before it. */
const NEGATED_AFTER =
  /^[^.!?\n]{0,60}?\b(?:is|are|will\s+be|gets?)\s+(?:not|never)\s+(?:\w+\s+)?(?:included|sent|shared|stored|logged|returned|uploaded|posted|transmitted|read|collected|exposed|printed|shown)\b|^\s*(?:is|are|will\s+be|gets?)\s+(?:always\s+)?(?:skipped|excluded|ignored|omitted|left\s+out|filtered\s+out)\b|^[^.!?\n]{0,40}?\b(?:stays?|remains?|kept)\s+(?:on|in|inside)\s+(?:the\s+)?(?:machine|device|child\s+process|process|server|local)/i;
const negatedAfter = (text: string, h: { index: number; length: number }) =>
  NEGATED_AFTER.test(text.slice(h.index + h.length, h.index + h.length + 120));

/** A tool that publishes what it is handed: a pull request, an issue, a comment, a gist, a release, a post. */
const PUBLISHING_TOOL =
  /^(?:create|open|post|add|submit|publish|update|edit|write)_?(?:pull_?request|pr|merge_?request|mr|issue|comment|gist|discussion|release|post|review|wiki|page|status|tweet|message)s?(?:_\w+)?$/i;
/** Its own description asking for something to go into what it publishes. */
const PUT_IN = /\b(?:include|including|list|listing|add|attach|paste|append|embed|insert|copy)\b/gi;
const SENTENCE_END = /[.!?](?:\s|$)|\n/g;

/**
 * The description of a publishing tool says what goes into what it publishes ("include a section
 * listing … and the contents of any .env files"): that is a public post, though no sink is named.
 * Only what the same sentence names after the verb goes there ("uses your GitLab token; add
 * labels with `labels`" publishes no token).
 */
function publishedHere(segs: readonly Segment[], hits: readonly IntentHit[]): IntentHit[] {
  const name = segs.find((s) => s.tool !== null)?.tool;
  if (!name || !PUBLISHING_TOOL.test(name)) return [];
  const out: IntentHit[] = [];
  for (const seg of segs) {
    if (seg.field !== "description") continue;
    PUT_IN.lastIndex = 0;
    for (let m = PUT_IN.exec(seg.text), n = 0; m && n < 5; m = PUT_IN.exec(seg.text), n++) {
      SENTENCE_END.lastIndex = m.index;
      const end = seg.start + (SENTENCE_END.exec(seg.text)?.index ?? seg.text.length);
      const at = seg.start + m.index;
      if (!hits.some((h) => h.role === "source" && h.index > at && h.index < end)) continue;
      out.push({
        role: "sink",
        kind: "public-post",
        index: at,
        length: m[0].length,
        line: seg.line,
        what: `${m[0]} (in what \`${name}\` publishes)`,
        mode: "do",
        scope: 0,
      });
      break;
    }
  }
  return out;
}

export const dataFlow: Rule = {
  id: "mcp.data-flow",
  severity: "high",
  title: "Private data reaches a place it leaves through",
  text(text, ctx) {
    const read = readIntent(text, { path: ctx.target.path, kind: "prose", securityPurpose: securityServer() });
    const extra = extraIntentHits(text, ctx.lines);
    if (!ctx.hidden) extra.push(...publishedHere(segmentsOf(ctx.target), [...read.hits, ...extra]));
    const all = extra.length ? [...read.hits, ...extra].sort((a, b) => a.index - b.index) : read.hits;
    if (!all.length && !ctx.hidden) return [];
    const doc: IntentDoc = { ...read, hits: all.filter((h) => h.role === "conceal" || !negatedAfter(text, h)) };
    const chains: IntentChain[] = intentChains([doc], { max: 10 });
    if (!ctx.hidden) {
      for (const seg of segmentsOf(ctx.target)) {
        // A boolean or number carries no text: "include the full transcript" there is a switch, not the transcript.
        if (!isArgumentText(seg.field) || isScalarArgument(ctx.target, seg.field)) continue;
        const end = seg.start + seg.text.length;
        const hits = doc.hits.filter((h) => h.index >= seg.start && h.index < end && (h.role !== "source" || askedAsArgument(h, seg)));
        if (!hits.some((h) => h.role === "source")) continue;
        const m = PARAM.exec(seg.field);
        const name = m?.[1] ?? m?.[2] ?? "a";
        const sub: IntentDoc = { ...doc, hits };
        for (const c of intentChains([sub], {
          max: 3,
          implicitSink: { kind: "parameter", what: `the \`${name}\` parameter`, path: doc.path },
        })) {
          // The implicit sink has no place in the text: point at the source.
          chains.push(c.sink.length === 0 ? { ...c, sink: { ...c.sink, index: c.source.index, length: c.source.length } } : c);
        }
      }
    }
    // Decoded text is as often a command as a sentence: read it as a script too.
    if (ctx.hidden) chains.push(...intentChains([readIntent(text, { path: ctx.target.path, kind: "shell" })], { max: 5 }));
    const out: Hit[] = [];
    const seen = new Set<number>();
    const described = ctx.hidden ? null : describeMcp(ctx.target, ctx.lines);
    const why = (h: { index: number; length: number }) => {
      if (!described) return null;
      const n = ctx.lines.lineOf(h.index);
      return described(n, ctx.lines.line(n), h.index - ctx.lines.startOf(n), h.length);
    };
    for (const c of chains) {
      if (ownCredential(c, text) || singleMessage(c, text) || seen.has(c.sink.index)) continue;
      seen.add(c.sink.index);
      const d = c.severity === "info" ? null : (why(c.sink) ?? why(c.source));
      out.push({
        index: c.sink.index,
        length: c.sink.length,
        severity: d ? "info" : c.severity,
        message: d ? `${c.message} — ${d}: read as a description, not an instruction` : c.message,
      });
    }
    return out;
  },
};

export const FLOW_RULES = [dataFlow];
