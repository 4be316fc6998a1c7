// Typosquat detection on a labelled corpus (not a timing test): recall on the malicious snapshot's
// records that name the package they imitate, false alarms on real packages that are not in the
// popular set. Same functions as the check (neighbourKeys + classify), with the index in memory.
import { describe, expect, it } from "vitest";
import { classify, neighbourKeys } from "../../src/packages/typo";
import { packageKey } from "../../src/ecosystems/topics";
import type { Ecosystem } from "../../src/ecosystems/versions";
import malicious from "../../data/packages/malicious.tsv?raw";
import popularNpm from "../../data/packages/popular-npm.txt?raw";
import popularPypi from "../../data/packages/popular-pypi.txt?raw";
import popularCargo from "../../data/packages/popular-cargo.txt?raw";

const names = (t: string) => t.split("\n").filter((l) => l && !l.startsWith("#"));
const POPULAR_SET = 10_000;

function detector(eco: Ecosystem, popular: string[]) {
  const keys = popular.map((n) => packageKey(eco, n));
  const exact = new Set(keys);
  const index = new Map<string, number[]>();
  keys.forEach((k, rank) => {
    for (const nk of neighbourKeys(eco, k)) {
      const l = index.get(nk);
      if (l) l.push(rank);
      else index.set(nk, [rank]);
    }
  });
  return (name: string): string | null => {
    const c = packageKey(eco, name);
    if (exact.has(c)) return null;
    let best: number | null = null;
    for (const nk of neighbourKeys(eco, c, true)) {
      for (const rank of index.get(nk) ?? []) if ((best === null || rank < best) && classify(eco, c, keys[rank]!)) best = rank;
    }
    return best === null ? null : keys[best]!;
  };
}

/** Deterministic typos of a name, one per trick class (typogard's classes). */
function typosOf(eco: Ecosystem, name: string): [string, string][] {
  const out: [string, string][] = [];
  const bare = name.replace(/^@[^/]+\//, "");
  const scope = name.slice(0, name.length - bare.length);
  const at = Math.floor(bare.length / 2);
  if (bare.length >= 5) {
    out.push(["omitted", scope + bare.slice(0, at) + bare.slice(at + 1)]);
    out.push(["repeated", scope + bare.slice(0, at) + bare[at] + bare.slice(at)]);
    out.push(["swapped", scope + bare.slice(0, at - 1) + bare[at] + bare[at - 1] + bare.slice(at + 1)]);
    const keyboard: Record<string, string> = {
      a: "s",
      e: "w",
      i: "o",
      o: "p",
      n: "m",
      r: "t",
      s: "a",
      t: "y",
      l: "k",
      c: "v",
      u: "y",
      d: "f",
      m: "n",
      p: "o",
    };
    const j = [...bare].findIndex((ch, k) => k > 0 && keyboard[ch]);
    if (j > 0) out.push(["keyboard", scope + bare.slice(0, j) + keyboard[bare[j]!] + bare.slice(j + 1)]);
  }
  if (/[-_.]/.test(bare)) out.push(["separator", scope + bare.replace(/[-_.]/g, "")]);
  if (bare.split(/[-_.]/).length === 2) out.push(["swapped-words", scope + bare.split(/[-_.]/).reverse().join("-")]);
  const h = bare.search(/[aeo]/);
  if (h >= 0)
    out.push([
      "homoglyph",
      scope + bare.slice(0, h) + ({ a: "а", e: "е", o: "о" } as Record<string, string>)[bare[h]!] + bare.slice(h + 1),
    ]);
  out.push(["suffix", `${name}${eco === "pypi" ? "-py" : "-js"}`]);
  return out.filter(([, t]) => t !== name);
}

describe("typosquat detection, measured", () => {
  it("finds generated typos of popular names, by trick", () => {
    const lists: [Ecosystem, string][] = [
      ["npm", popularNpm],
      ["pypi", popularPypi],
      ["cargo", popularCargo],
    ];
    const byKind: Record<string, { n: number; hit: number; right: number }> = {};
    for (const [eco, text] of lists) {
      const all = names(text);
      const detect = detector(eco, all.slice(0, POPULAR_SET));
      const popularKeys = new Set(all.map((n) => packageKey(eco, n)));
      for (const name of all.slice(0, 300)) {
        for (const [kind, typo] of typosOf(eco, name)) {
          if (popularKeys.has(packageKey(eco, typo))) continue; // the typo is itself a real popular name
          const k = (byKind[kind] ??= { n: 0, hit: 0, right: 0 });
          const hit = detect(typo);
          k.n++;
          if (hit) k.hit++;
          if (hit === packageKey(eco, name)) k.right++;
        }
      }
    }
    const total = Object.values(byKind).reduce((a, k) => ({ n: a.n + k.n, hit: a.hit + k.hit, right: a.right + k.right }), {
      n: 0,
      hit: 0,
      right: 0,
    });
    console.log(
      `[typo-eval] generated typos of the top 300 names per ecosystem: ${JSON.stringify({ ...Object.fromEntries(Object.entries(byKind).map(([k, v]) => [k, `${v.hit}/${v.n} found, ${v.right} with the right target`])), total: `${(total.hit / total.n).toFixed(3)} recall, ${(total.right / total.n).toFixed(3)} right target` })}`,
    );
    expect(total.hit / total.n).toBeGreaterThan(0.97);
    expect(total.right / total.n).toBeGreaterThan(0.97);
  }, 120_000);

  it("catches most labelled typosquats and rarely flags real packages", () => {
    const lists: [Ecosystem, string, string][] = [
      ["npm", "npm", popularNpm],
      ["pypi", "pypi", popularPypi],
      ["cargo", "cargo", popularCargo],
    ];
    const rows = names(malicious).map((l) => l.split("\t"));
    const report: Record<string, unknown> = {};
    let tpAll = 0,
      fnAll = 0,
      fpAll = 0,
      negAll = 0;
    for (const [eco, tsvEco, text] of lists) {
      const all = names(text);
      const detect = detector(eco, all.slice(0, POPULAR_SET));
      const popularKeys = new Set(all.slice(0, POPULAR_SET).map((n) => packageKey(eco, n)));
      // Positives: malicious reports that say they are typosquats (of a popular name, when they name it).
      const positives = rows.filter(
        (r) =>
          r[0] === tsvEco &&
          (r[5] === "typosquat" || (r[5]?.startsWith("typosquat:") && popularKeys.has(packageKey(eco, r[5].slice(10))))) &&
          !popularKeys.has(packageKey(eco, r[1]!)),
      );
      const unique = [...new Map(positives.map((r) => [packageKey(eco, r[1]!), r])).values()];
      let tp = 0,
        right = 0,
        named = 0;
      for (const r of unique) {
        const hit = detect(r[1]!);
        const target = r[5]!.startsWith("typosquat:") ? packageKey(eco, r[5]!.slice(10)) : null;
        if (target) named++;
        if (hit) {
          tp++;
          if (hit === target) right++;
        }
      }
      // Negatives: real, widely used packages outside the popular set (the lists' lower ranks).
      const negatives = all.slice(POPULAR_SET);
      const fps = negatives.filter((n) => detect(n));
      tpAll += tp;
      fnAll += unique.length - tp;
      fpAll += fps.length;
      negAll += negatives.length;
      report[eco] = {
        positives: unique.length,
        recall: +(tp / Math.max(1, unique.length)).toFixed(3),
        namedTargets: named,
        targetRight: right,
        negatives: negatives.length,
        falseAlarmRate: +(fps.length / negatives.length).toFixed(3),
        falseAlarmExamples: fps.slice(0, 8).map((n) => `${n}~${detect(n)}`),
      };
    }
    report.overall = {
      recall: +(tpAll / (tpAll + fnAll)).toFixed(3),
      falseAlarmRate: +(fpAll / negAll).toFixed(3),
      labelled: tpAll + fnAll,
      negatives: negAll,
    };
    console.log(`[typo-eval] ${JSON.stringify(report, null, 1)}`);
    // Budgets, not exact figures: a change that loses real typosquats or raises false alarms fails here.
    expect((report.overall as { recall: number }).recall).toBeGreaterThanOrEqual(0.65);
    expect((report.overall as { falseAlarmRate: number }).falseAlarmRate).toBeLessThan(0.045);
  }, 120_000);
});
