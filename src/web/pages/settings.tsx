import { Hono } from "hono";
import { ApiError } from "../../core/errors";
import { fieldErrors, invoke } from "../../core/invoke";
import { getSettings, updateSettings } from "../../auth";
import { REFRESH_SCHEDULES } from "../../auth";
import { Banner, FormError, type Errors } from "../components";
import { doneMessage, page, statusOf } from "../render";
import { readForm, webOp, type WebContext, type WebEnv } from "../web.context";

export const settingsPages = new Hono<WebEnv>();

const SCHEDULES: Record<(typeof REFRESH_SCHEDULES)[number], { label: string; hint: string }> = {
  EVERY_SESSION: { label: "Every session", hint: "A full refresh on every sync: the freshest, and the most freshness calls." },
  DAILY: { label: "Daily", hint: "At most one full refresh a day (the default)." },
  WEEKLY: { label: "Weekly", hint: "One full refresh a week; urgent items (new advisories, flagged skills) still arrive on every sync." },
  EVERY_15_DAYS: { label: "Every 15 days", hint: "Urgent items still arrive on every sync." },
  MONTHLY: { label: "Monthly", hint: "Urgent items still arrive on every sync." },
};

async function settingsPage(c: WebContext, errors: Errors = {}, picked?: string, status: 200 | 400 = 200) {
  const { settings } = await invoke(getSettings, webOp(c));
  const current = picked ?? settings.refreshSchedule;
  const done = doneMessage(c, { saved: "Settings saved." });
  const err = errors.refreshSchedule;
  return page(
    c,
    { title: "Settings", section: "settings" },
    <>
      <h1>Settings</h1>
      {done ? <Banner kind="ok">{done}</Banner> : null}
      <section class="card" aria-labelledby="acct-h">
        <h2 id="acct-h">Account</h2>
        <p>
          Email: <strong>{settings.email}</strong>
        </p>
      </section>
      <form method="post" action="/dashboard/settings" class="card" novalidate>
        <FormError errors={errors} />
        <fieldset aria-describedby={err ? "rs-err" : "rs-hint"}>
          <legend>How often your agents' sync brings a full refresh</legend>
          <p class="hint" id="rs-hint">
            Between full refreshes a sync answers <code>up_to_date</code> with only urgent items. An agent can always ask with{" "}
            <code>force: true</code>.
          </p>
          {REFRESH_SCHEDULES.map((s) => (
            <label class="choice">
              <input type="radio" name="refreshSchedule" value={s} checked={s === current} aria-describedby={`rs-${s}`} />
              <span>
                <strong>{SCHEDULES[s].label}</strong>
                <br />
                <span class="hint" id={`rs-${s}`}>
                  {SCHEDULES[s].hint}
                </span>
              </span>
            </label>
          ))}
          {err ? (
            <p class="error" id="rs-err">
              {err}
            </p>
          ) : null}
        </fieldset>
        <button type="submit">Save</button>
      </form>
    </>,
    status,
  );
}

settingsPages.get("/settings", (c) => settingsPage(c));

settingsPages.post("/settings", async (c) => {
  const form = await readForm(c);
  try {
    await invoke(updateSettings, webOp(c), { body: { refreshSchedule: form.refreshSchedule ?? "" } });
    return c.redirect("/dashboard/settings?done=saved", 303);
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== "VALIDATION_FAILED") throw err;
    return settingsPage(c, fieldErrors(err), undefined, statusOf(err) as 400);
  }
});
