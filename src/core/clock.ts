/**
 * The one clock. Code asks `now()` instead of calling Date.now(), so tests can move time
 * (daily resets, billing grace, refresh schedules) without waiting. Tests run in the same
 * isolate as the Worker and its Durable Objects, so setting it there moves it everywhere.
 */
let source: () => number = () => Date.now();

export const now = (): number => source();
export const nowIso = (): string => new Date(source()).toISOString();

/** Test hook: fix or advance time. Passing nothing restores the real clock. */
export function setClock(fn?: () => number): void {
  source = fn ?? (() => Date.now());
}

export const DAY_MS = 86_400_000;

/** The next 00:00 UTC after `ms`. */
export function nextUtcMidnight(ms: number): number {
  return (Math.floor(ms / DAY_MS) + 1) * DAY_MS;
}

/** `YYYY-MM-DD` of the UTC day containing `ms`. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** ms since epoch → ISO 8601 (null stays null). */
export function iso(ms: number): string;
export function iso(ms: number | null): string | null;
export function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** `ms` plus `n` calendar months (UTC), the day clamped to the target month's length (Jan 31 → Feb 28). */
export function addMonths(ms: number, n: number): number {
  const d = new Date(ms);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + n;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return Date.UTC(y, m, Math.min(d.getUTCDate(), lastDay), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
}
