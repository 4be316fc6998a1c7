/**
 * A deterministic stand-in for the Workers AI binding (`env.AI`), so the production judge
 * (src/scan/workers-ai-judge.ts) runs as it does in a deployment, prompt and answer parsing included,
 * without the network. It reads the passages out of the prompt and answers by marker words:
 * `XQ-BAD` → malicious, `XQ-MAYBE` → suspicious, anything else → benign (markers no rule reads).
 */
export interface FakeCall {
  model: string;
  system: string;
  passages: { id: number; path: string; reason: string; text: string }[];
}

export type FakeMode = "answer" | "text" | "throw" | "hang" | "garbage" | "partial";

export function fakeAi(mode: FakeMode = "answer") {
  const calls: FakeCall[] = [];
  return {
    calls,
    async run(model: string, inputs: Record<string, unknown>): Promise<unknown> {
      const messages = inputs.messages as { role: string; content: string }[];
      const passages = (JSON.parse(messages.find((m) => m.role === "user")!.content) as { passages: FakeCall["passages"] }).passages;
      calls.push({ model, system: messages.find((m) => m.role === "system")!.content, passages });
      if (mode === "throw") throw new Error("AI binding: 3040 capacity exceeded");
      if (mode === "hang") return new Promise(() => {});
      if (mode === "garbage") return { response: "I think these look fine!" };
      const verdicts = passages.map((p) => ({
        id: p.id,
        verdict: p.text.includes("XQ-BAD") ? "malicious" : p.text.includes("XQ-MAYBE") ? "suspicious" : "benign",
        reason: p.text.includes("XQ-BAD") ? "pushes over the user's history without asking" : "an ordinary maintenance step",
      }));
      const answer = { verdicts: mode === "partial" ? verdicts.slice(1) : verdicts };
      // Some models return the JSON as text even in JSON mode; the judge reads both.
      return mode === "text" ? { response: `Here is my review:\n${JSON.stringify(answer)}` } : { response: answer };
    },
  };
}

export const judgeEnv = (ai: ReturnType<typeof fakeAi>, extra: Record<string, string> = {}) => ({
  AI: ai,
  SCAN_JUDGE_MODEL: "@cf/fake/judge",
  ...extra,
});
