/**
 * The form field, the form error, the agents page's cards and its new-agent form are written as text
 * (src/web/markup.ts's helpers), not JSX: they are most of that page, and as JSX they were most of
 * its CPU above its reads. These hold them byte for byte to what hono/jsx rendered for the same input
 * (test/fixtures/web-agents.golden.json, made from the JSX versions), escaping included.
 */
import { describe, expect, it } from "vitest";
import golden from "../fixtures/web-agents.golden.json";
import { Field, fieldHtml, FormError, formErrorHtml } from "../../src/web/components";
import { agentCardHtml, newAgentHtml } from "../../src/web/pages/agents";
import { cardCases, createCases, fieldCases } from "./agents-markup.cases";

describe("the agents page's markup written as text renders as hono/jsx did", () => {
  it("fields: every attribute, a password's value left out, hints and errors", () => {
    expect(fieldCases.map((p) => fieldHtml(p as never))).toEqual(golden.fields);
    // The JSX component is the same text, marked as already escaped.
    expect(fieldCases.map((p) => String(Field(p as never)))).toEqual(golden.fields);
  });

  it("form errors: only `_form` shows, escaped", () => {
    const cases: (Record<string, string> | undefined)[] = [undefined, {}, { _form: `No <b>"&'` }, { name: "x" }];
    expect(cases.map((e) => formErrorHtml(e))).toEqual(golden.formErrors);
    expect(cases.map((e) => String(FormError({ errors: e }) ?? ""))).toEqual(golden.formErrors);
  });

  it("agent cards: names, keys active and revoked, ids that need escaping, and form state for this card or another", () => {
    expect(cardCases.map(([a, s]) => agentCardHtml(a as never, s as never))).toEqual(golden.cards);
  });

  it("the new-agent form, blank and after a failed create", () => {
    expect(createCases.map((c) => newAgentHtml(c))).toEqual(golden.newAgent);
  });
});
