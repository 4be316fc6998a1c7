// One advisory from two sources: an offline snapshot line (data/advisories) and the live OSV record
// of the same id and `modified`. The live record outranks the snapshot line on that tie, so loading
// either again changes nothing; between two records of one source and one `modified`, what is
// served decides (summary, severity, aliases, the affected rows in one normal form), so a correction
// within the same millisecond is applied and spellings of the same content are not a change.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { osvStatements } from "../../src/freshness/advisories";
import { advisorySnapshotLoader } from "../../src/freshness/advisory-seed";
import type { OsvRecord } from "../../src/sources/osv";

const changes = async (id: string) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM sync_changes WHERE kind = 'advisory' AND ref = ?").bind(id).first<{ n: number }>())!.n;
const stored = (id: string) =>
  env.DB.prepare("SELECT summary, severity, aliases, source, source_rank FROM advisories WHERE id = ?")
    .bind(id)
    .first<Record<string, unknown>>();
const rows = async (id: string) =>
  (await env.DB.prepare("SELECT name, ranges, versions FROM advisory_affected WHERE advisory_id = ? ORDER BY name").bind(id).all()).results;

/** A pypa snapshot line as data/advisories/pypi.jsonl holds it: summary cut, no severity label, ranges only. */
const snapshotLine = (
  id: string,
  modified: string,
  summary = "Cross-site scripting in the wiki processor of demo-pkg before 2.0 allows remote attackers to inject",
) =>
  JSON.stringify({
    id,
    aliases: ["CVE-2031-0001"],
    summary,
    published: "2031-01-01T00:00:00Z",
    modified,
    affected: [
      {
        package: { ecosystem: "PyPI", name: "demo-pkg" },
        ranges: [{ type: "ECOSYSTEM", events: [{ introduced: "0" }, { fixed: "2.0" }] }],
      },
    ],
  });
const loadSnapshot = (line: string) => advisorySnapshotLoader("pypi")(env as never, line);

/** The live OSV record of the same advisory: full summary, a severity label, the versions enumerated next to the ranges. */
const live = (id: string, modified: string, over: Partial<OsvRecord> = {}): OsvRecord =>
  ({
    id,
    aliases: ["CVE-2031-0001", "GHSA-demo-demo-demo"],
    summary: "Cross-site scripting in the wiki processor of demo-pkg before 2.0 allows remote attackers to inject script via an IMG tag",
    published: "2031-01-01T00:00:00Z",
    modified,
    database_specific: { severity: "MODERATE" },
    affected: [
      {
        package: { ecosystem: "PyPI", name: "demo-pkg" },
        ranges: [{ type: "ECOSYSTEM", events: [{ introduced: "0" }, { fixed: "2.0" }] }],
        versions: ["1.0", "1.1", "1.2"],
      },
    ],
    ...over,
  }) as OsvRecord;
const ingest = async (r: OsvRecord, at: number) => {
  const res = await env.DB.batch(await osvStatements(env.DB, [r], at));
  return res.reduce((n, x) => n + (x.meta.changes ?? 0), 0);
};

describe("one advisory from a snapshot line and the live OSV record", () => {
  it("the live record outranks the snapshot line of the same `modified`: reloading either changes nothing and logs nothing", async () => {
    const id = "PYSEC-2031-9001";
    await loadSnapshot(snapshotLine(id, "2031-02-01T10:00:00Z"));
    expect(await changes(id)).toBe(1);
    expect(await stored(id)).toMatchObject({ severity: null, source_rank: 0 });

    // The live record of the same instant (OSV spells it with microseconds): it replaces the snapshot line once.
    let at = Date.parse("2031-02-02T00:00:00Z");
    await ingest(live(id, "2031-02-01T10:00:00.000000Z"), at);
    expect(await changes(id)).toBe(2);
    const osv = await stored(id);
    expect(osv).toMatchObject({ severity: "MODERATE", source: `https://osv.dev/vulnerability/${id}`, source_rank: 1 });
    const osvRows = await rows(id);

    // Snapshot reloads and ingests, alternating: nothing flips.
    for (let i = 0; i < 3; i++) {
      await loadSnapshot(snapshotLine(id, "2031-02-01T10:00:00Z"));
      at += 1000;
      expect(await ingest(live(id, "2031-02-01T10:00:00.000000Z"), at)).toBe(0);
    }
    expect(await changes(id)).toBe(2);
    expect(await stored(id)).toEqual(osv);
    expect(await rows(id)).toEqual(osvRows);

    // A newer snapshot line still wins on `modified`, whatever its rank.
    await loadSnapshot(snapshotLine(id, "2031-03-01T00:00:00Z", "Corrected later in the snapshot"));
    expect(await changes(id)).toBe(3);
    expect(await stored(id)).toMatchObject({ summary: "Corrected later in the snapshot", source_rank: 0 });
  });

  it("the same content in another form is not a change: versions the ranges cover, list and key order", async () => {
    const id = "GHSA-demo-form-0001";
    let at = Date.parse("2031-04-01T00:00:00Z");
    await ingest(live(id, "2031-04-01T00:00:00Z"), at);
    const logged = await changes(id);
    const before = await rows(id);
    const respelt = live(id, "2031-04-01T00:00:00.000Z", {
      aliases: ["GHSA-demo-demo-demo", "CVE-2031-0001"],
      affected: [
        {
          package: { ecosystem: "PyPI", name: "demo-pkg" },
          // OSV enumerates a new release inside the open range without a new `modified`; events keyed in another order.
          ranges: [{ type: "ECOSYSTEM", events: [{ introduced: "0" }, { fixed: "2.0" }] }],
          versions: ["1.2", "1.0", "1.1", "1.3", "1.1"],
        },
      ],
    });
    at += 1000;
    expect(await ingest(respelt, at)).toBe(0);
    expect(await changes(id)).toBe(logged);
    expect(await rows(id)).toEqual(before);
    // A listed version outside the ranges is content: applied and logged.
    at += 1000;
    const widened = live(id, "2031-04-01T00:00:00Z", {
      affected: [{ ...live(id, "").affected![0]!, versions: ["1.0", "2.5"] }],
    });
    await ingest(widened, at);
    expect(await changes(id)).toBe(logged + 1);
    expect(JSON.parse((await rows(id))[0]!.versions as string)).toEqual(["1.0", "2.5"]);
  });
});

describe("a correction with the same `modified` and the same rows", () => {
  it("a new summary, severity or alias is applied and logged; the same record again is not", async () => {
    const id = "GHSA-demo-summ-0001";
    let at = Date.parse("2031-05-01T00:00:00Z");
    await ingest(live(id, "2031-05-01T12:00:00.123Z"), at);
    const logged = await changes(id);
    const corrections: Partial<OsvRecord>[] = [
      { summary: "Corrected: the IMG tag's SRC attribute, not its ALT attribute" },
      { summary: "Corrected: the IMG tag's SRC attribute, not its ALT attribute", database_specific: { severity: "HIGH" } },
      {
        summary: "Corrected: the IMG tag's SRC attribute, not its ALT attribute",
        database_specific: { severity: "HIGH" },
        aliases: ["CVE-2031-0001", "GHSA-demo-demo-demo", "PYSEC-2031-7"],
      },
    ];
    for (const [i, c] of corrections.entries()) {
      at += 1000;
      // The same millisecond, spelt with microseconds.
      await ingest(live(id, "2031-05-01T12:00:00.123456Z", c), at);
      expect(await changes(id), JSON.stringify(c)).toBe(logged + i + 1);
      at += 1000;
      expect(await ingest(live(id, "2031-05-01T12:00:00.123Z", c), at)).toBe(0);
    }
    expect(await stored(id)).toMatchObject({
      summary: "Corrected: the IMG tag's SRC attribute, not its ALT attribute",
      severity: "HIGH",
      aliases: JSON.stringify(["CVE-2031-0001", "GHSA-demo-demo-demo", "PYSEC-2031-7"]),
    });
  });
});
