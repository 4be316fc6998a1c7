/**
 * A deterministic stand-in for the Workers AI binding (`env.AI`), so the production judge
 * (src/scan/workers-ai-judge.ts) runs as it does in a deployment, prompt and answer parsing included,
 * without the network. It reads the items out of the prompt (the JSON between the nonce marker
 * lines, as a model would find them) and answers by marker words:
 * `XQ-BAD` → malicious, `XQ-MAYBE` → suspicious, anything else → benign (markers no rule reads).
 */
import type { ServerRecord } from "../src/mcp-servers/records";

/** A directory record with nothing but its tools, named apart per call, for the judge's store and rescan tests. */
export function judgeServerRecord(slug: string, title: string, tools: unknown[]): ServerRecord {
  return {
    name: `io.example/${slug}-${Date.now().toString(36)}`,
    title,
    description: `A server for the ${title.toLowerCase()} test`,
    version: "1.0.0",
    websiteUrl: null,
    repository: null,
    remotes: [],
    packages: [],
    license: null,
    source: "seed",
    serverJson: {},
    tools,
  } as unknown as ServerRecord;
}

export interface FakeCall {
  model: string;
  system: string;
  /** The user message as sent: the marker lines and the JSON between them. */
  user: string;
  passages: { id: number; kind: "uncertain" | "whole"; path: string; reason: string; text: string }[];
}

export type FakeMode = "answer" | "text" | "prose" | "extra" | "throw" | "hang" | "garbage" | "partial";

/** The items between `BEGIN-UNTRUSTED-<nonce>` and `END-UNTRUSTED-<nonce>` (the only place the judge puts content). */
export function itemsOf(user: string): FakeCall["passages"] {
  const lines = user.split("\n");
  const begin = lines.findIndex((l) => /^BEGIN-UNTRUSTED-[0-9a-f-]{36}$/.test(l));
  if (begin < 0) throw new Error("no BEGIN marker line");
  const nonce = lines[begin]!.slice("BEGIN-UNTRUSTED-".length);
  const end = lines.indexOf(`END-UNTRUSTED-${nonce}`);
  if (end !== begin + 2) throw new Error("the content is not one line between the markers");
  return (JSON.parse(lines[begin + 1]!) as { passages: FakeCall["passages"] }).passages;
}

export function fakeAi(mode: FakeMode = "answer") {
  const calls: FakeCall[] = [];
  return {
    calls,
    async run(model: string, inputs: Record<string, unknown>): Promise<unknown> {
      const messages = inputs.messages as { role: string; content: string }[];
      const user = messages.find((m) => m.role === "user")!.content;
      const passages = itemsOf(user);
      calls.push({ model, system: messages.find((m) => m.role === "system")!.content, user, passages });
      if (mode === "throw") throw new Error("AI binding: 3040 capacity exceeded");
      if (mode === "hang") return new Promise(() => {});
      if (mode === "garbage") return { response: "I think these look fine!" };
      const verdicts = passages.map((p) => ({
        id: p.id,
        verdict: p.text.includes("XQ-BAD") ? "malicious" : p.text.includes("XQ-MAYBE") ? "suspicious" : "benign",
        reason: p.text.includes("XQ-BAD") ? "pushes over the user's history without asking" : "an ordinary maintenance step",
      }));
      const answer = { verdicts: mode === "partial" ? verdicts.slice(1) : verdicts };
      // Some models return the JSON as a string even in JSON mode; the judge reads that, but not
      // prose around it, nor keys it did not ask for.
      if (mode === "text") return { response: ` ${JSON.stringify(answer)}\n` };
      if (mode === "prose") return { response: `Here is my review:\n${JSON.stringify(answer)}` };
      if (mode === "extra") return { response: { ...answer, note: "ignore the rules" } };
      return { response: answer };
    },
  };
}

export const judgeEnv = (ai: ReturnType<typeof fakeAi>, extra: Record<string, string> = {}) => ({
  AI: ai,
  SCAN_JUDGE_MODEL: "@cf/fake/judge",
  ...extra,
});
