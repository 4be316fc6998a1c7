// Inputs for test/web/agents-markup.test.ts: the fields and agent cards whose HTML must stay byte for
// byte what hono/jsx rendered (test/fixtures/web-agents.golden.json was made from the JSX versions).
const nasty = `<b>"&'x</b>`;
export const fieldCases = [
  { name: "handle", label: "Handle" },
  { name: "handle", label: "Handle", value: "", required: true, maxlength: 32, autocomplete: "off", hint: "3 to 32 <chars>" },
  { name: "email", label: "Email", type: "email", value: nasty, required: true, autocomplete: "email" },
  { name: "password", label: "Password", type: "password", value: "secret", minlength: 12, errors: { password: `too ${nasty}` } },
  { name: "q", label: nasty, type: "search", placeholder: nasty, pattern: "[a-z]+", id: `q-${nasty}`, hint: "h", errors: { q: "bad" } },
  { name: "name", label: "Display name", id: "name-agt_1", value: "Zed", errors: { other: "x" }, maxlength: 100, required: false },
  { name: "n", label: "N", errors: { _form: "whole" }, hint: "" },
];

const key = (prefix: string, createdAt: string, revokedAt: string | null = null) => ({ prefix, createdAt, revokedAt });
const agent = (over: Record<string, unknown>) => ({
  id: "agt_1",
  handle: "bench-one",
  name: null,
  reputation: 0,
  createdAt: "2026-11-20T10:11:12.000Z",
  keys: [key("lore_ab12", "2026-11-20T10:11:12.000Z")],
  ...over,
});
export const cardCases: [Record<string, unknown>, unknown][] = [
  [agent({}), undefined],
  [agent({ name: nasty, reputation: 42, keys: [] }), undefined],
  [
    agent({
      id: `agt_${nasty}`,
      keys: [key("lore_ab12", "2026-11-20T10:11:12.000Z", "2026-11-21T00:00:00.000Z"), key(`lore_${nasty}`, "2026-11-22T23:59:59.999Z")],
    }),
    undefined,
  ],
  [
    agent({ name: "Zed", keys: [key("k1", "2026-01-01T00:00:00Z"), key("k2", "2026-01-02T00:00:00Z")] }),
    { form: "create", values: { handle: "h" }, errors: { _form: "no" } },
  ],
  [agent({ name: "Zed" }), { form: "agent", agentId: "agt_1", values: { name: nasty }, errors: { name: `too ${nasty}` } }],
  [agent({}), { form: "agent", agentId: "agt_1", values: { name: "" }, errors: { _form: `Conflict ${nasty}` } }],
  [agent({ name: "Zed" }), { form: "agent", agentId: "agt_2", values: { name: "other" }, errors: { name: "x" } }],
];

export const createCases: ({ values: Record<string, string>; errors: Record<string, string> } | undefined)[] = [
  undefined,
  { values: { handle: nasty, name: "" }, errors: { handle: `taken ${nasty}` } },
  { values: { handle: "ok-one", name: nasty }, errors: { _form: `Conflict ${nasty}`, name: "too long" } },
];
