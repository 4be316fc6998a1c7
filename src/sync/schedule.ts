/**
 * The owner's refresh schedule (`PATCH /v1/me/settings {refreshSchedule}`): how long after a full
 * refresh the next sync brings another one. Rolling periods from the last full refresh, so "daily"
 * means at most one full refresh in any 24 hours; the boundary itself is due (at exactly
 * lastFull + 24 h the sync is full). MONTHLY is the same day of the next calendar month (UTC),
 * clamped to its length (Jan 31 → Feb 28). EVERY_SESSION makes every sync a full refresh.
 */
import { DAY_MS, addMonths } from "../core/clock";
import type { REFRESH_SCHEDULES } from "../auth";

export type RefreshSchedule = (typeof REFRESH_SCHEDULES)[number];

/** When the next full refresh is due after one at `lastFullAt`. */
export function nextRefreshAt(schedule: RefreshSchedule, lastFullAt: number): number {
  switch (schedule) {
    case "EVERY_SESSION":
      return lastFullAt;
    case "DAILY":
      return lastFullAt + DAY_MS;
    case "WEEKLY":
      return lastFullAt + 7 * DAY_MS;
    case "EVERY_15_DAYS":
      return lastFullAt + 15 * DAY_MS;
    case "MONTHLY":
      return addMonths(lastFullAt, 1);
  }
}

/** Whether a full refresh is due at `now`: never refreshed, or the schedule's time has come. */
export function refreshDue(schedule: RefreshSchedule, lastFullAt: number | null, now: number): boolean {
  return lastFullAt === null || schedule === "EVERY_SESSION" || now >= nextRefreshAt(schedule, lastFullAt);
}

export const asSchedule = (s: string | null | undefined): RefreshSchedule =>
  s === "EVERY_SESSION" || s === "DAILY" || s === "WEEKLY" || s === "EVERY_15_DAYS" || s === "MONTHLY" ? s : "DAILY";
