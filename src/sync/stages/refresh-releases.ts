/**
 * Stage 3 of a sync: release data older than its refresh interval, met by a full sync, is asked of
 * the registries now, within this request's budget; the rest waits for the scheduled ingest and the
 * answer says which. The result is how current each topic's release data is for this answer.
 */
import type { Env } from "../../env";
import { MAX_AGE_MS, refreshTopics, type RefreshResult, topicDataRead } from "../../freshness";
import { runRead } from "../../core/batch";
import { topicDataAsOf, type TopicData } from "../../ecosystems/topics";
import type { ResolvedStack } from "./resolve-stack";

/**
 * A full sync that meets topics whose release data is older than its refresh interval asks their
 * registries itself, within this many subrequests and this much time.
 */
export const SYNC_REFRESH_SUBREQUESTS = 20;
export const SYNC_REFRESH_MS = 3_000;
/** A topic whose registry failed this recently is not asked again by a sync (the answer says so). */
const REFRESH_RETRY_MS = 10 * 60_000;

/** How current a topic's release data is for this answer. */
export interface Freshness {
  dataAsOf: number | null;
  stale: boolean;
  refresh: RefreshResult | null;
}

export interface ReleaseFreshness {
  freshnessOf: (topic: string) => Freshness;
  notices: string[];
}

/** Older than the release refresh interval (or of unknown age). */
export const isStale = (asOf: number | null, at: number) => asOf === null || at - asOf > MAX_AGE_MS.releases;

export async function refreshStaleReleases(
  env: Env,
  stack: Pick<ResolvedStack, "entries" | "normalised">,
  full: boolean,
  at: number,
): Promise<ReleaseFreshness> {
  const db = env.DB;
  const { entries, normalised } = stack;
  const topicData = new Map<string, TopicData>();
  const refreshes = new Map<string, RefreshResult>();
  const notices: string[] = [];
  if (full && entries.length) {
    if (normalised) {
      for (const e of normalised) if (e.data) topicData.set(e.topic, e.data);
    } else {
      for (const [t, d] of await runRead(db, topicDataRead(db, [...new Set(entries.filter((e) => e.known).map((e) => e.topic))])))
        topicData.set(t, d);
    }
    const stale = [...topicData].filter(([, d]) => d.tracked && d.packages !== "[]" && isStale(topicDataAsOf(d), at));
    const toAsk = stale.filter(([topic, d]) => {
      const failedRecently = d.lastRunAt !== null && d.lastRunAt > (d.lastOkAt ?? 0) && at - d.lastRunAt < REFRESH_RETRY_MS;
      if (failedRecently)
        refreshes.set(topic, {
          topic,
          ok: false,
          error: `its registry failed ${Math.max(1, Math.round((at - d.lastRunAt!) / 60_000))} min ago (${d.lastError ?? "no answer"}); not asked again so soon`,
        });
      return !failedRecently;
    });
    if (toAsk.length) {
      const results = await refreshTopics(
        env,
        toAsk.map(([topic, d]) => ({
          topic,
          ecosystem: entries.find((e) => e.topic === topic)!.ecosystem,
          packages: d.packages,
          repo: d.repo,
          changelog: d.changelog,
        })),
        at,
        { budget: SYNC_REFRESH_SUBREQUESTS, deadlineMs: SYNC_REFRESH_MS },
      );
      for (const r of results) refreshes.set(r.topic, r);
    }
    const ok = [...refreshes.values()].filter((r) => r.ok).map((r) => r.topic);
    const failed = [...refreshes.values()].filter((r) => !r.ok);
    if (ok.length) notices.push(`Release data older than a day was refreshed from the registries in this request: ${ok.join(", ")}.`);
    if (failed.length)
      notices.push(
        `Release data older than a day could not be refreshed in this request (their views say stale: true): ${failed.map((r) => `${r.topic} (${r.error})`).join("; ")}.`,
      );
  }
  const freshnessOf = (topic: string): Freshness => {
    const r = refreshes.get(topic) ?? null;
    const dataAsOf = r?.ok ? at : topicDataAsOf(topicData.get(topic) ?? null);
    return { dataAsOf, stale: isStale(dataAsOf, at), refresh: r };
  };
  return { freshnessOf, notices };
}
