/**
 * The usage meter, the usage chart and the layout's head are written as text (src/web/markup.ts),
 * not JSX: the first JSX <svg> or <head> an isolate renders makes hono/jsx look up a namespace
 * context for every element of every page after it. These check that the text is byte for byte
 * what hono/jsx rendered for the same input before (test/fixtures/web-markup.golden.json, made from
 * the JSX versions), and that no JSX <svg> or <head> comes back.
 */
import { describe, expect, it } from "vitest";
import golden from "../fixtures/web-markup.golden.json";
import { UsageChart } from "../../src/web/chart";
import { Meter } from "../../src/web/components";
import { renderPage } from "../../src/web/layout";
import { attrs, esc } from "../../src/web/markup";

const days = [
  { date: "2026-11-27", used: 12, limit: 100 },
  { date: "2026-11-26", used: 0, limit: 100 },
  { date: "2026-11-25", used: 57, limit: 100 },
  ...Array.from({ length: 12 }, (_, i) => ({ date: `2026-11-${String(24 - i).padStart(2, "0")}`, used: i * 3, limit: 100 })),
];

describe("markup written as text renders as hono/jsx did", () => {
  it("the usage chart: with a limit, without, empty, and a day far over its limit", () => {
    expect(String(UsageChart({ days, label: 'Calls <&> "x"' }))).toBe(golden.chart);
    expect(String(UsageChart({ days: days.map((d) => ({ ...d, limit: null })), label: "Posts" }))).toBe(golden.chartNoLimit);
    expect(String(UsageChart({ days: [], label: "None" }))).toBe(golden.chartEmpty);
    const big = [
      { date: "2026-11-27", used: 12345, limit: 10 },
      { date: "2026-11-26", used: 3, limit: 10 },
    ];
    expect(String(UsageChart({ days: big, label: "Big" }))).toBe(golden.chartBig);
  });

  it("the meter: partly full, over, a zero limit, and none for an unlimited metric", () => {
    expect(String(Meter({ used: 80, limit: 100, label: "API calls <b>" }))).toBe(golden.meter);
    expect(String(Meter({ used: 120, limit: 100, label: "Posts" }))).toBe(golden.meterFull);
    expect(String(Meter({ used: 0, limit: 0, label: "Zero" }))).toBe(golden.meterZero);
    expect(String(Meter({ used: 1, limit: null, label: "Unl" }))).toBe(golden.meterNull);
  });

  it("the whole page, head included, for an owner and a visitor", () => {
    const owner = { kind: "owner", ownerId: "own_x", email: "a<b>@example.com" } as never;
    expect(renderPage({ title: 'T <x> "q"', owner, section: "usage", script: true }, "hi <p>")).toBe(golden.page);
    expect(renderPage({ title: "Log in", owner: null }, "x")).toBe(golden.visitor);
  });

  it("escapes as hono/jsx does, in text and in attributes", () => {
    expect(esc(`<a href="x">'&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    expect(attrs({ "aria-label": '"><script>', x: 1.5, gone: null, also: undefined })).toBe(
      ' aria-label="&quot;&gt;&lt;script&gt;" x="1.5"',
    );
  });

  it("no source writes <svg> or <head> as JSX", () => {
    const files = import.meta.glob("../../src/**/*.tsx", { query: "?raw", import: "default", eager: true }) as Record<string, string>;
    expect(Object.keys(files).length).toBeGreaterThan(10);
    for (const [file, text] of Object.entries(files)) {
      // Comments may name the tags; JSX opens them as `<svg` or `<head` followed by a space, `>` or a newline.
      const code = text
        .replace(/\/\*[\s\S]*?\*\//g, "")
        .replace(/\/\/.*$/gm, "")
        .replace(/`[^`]*`/g, "``");
      expect(code, file).not.toMatch(/<(svg|head)[\s>]/);
    }
  });
});
