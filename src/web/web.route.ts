import { Hono, type MiddlewareHandler } from "hono";
import type { AppEnv } from "../core/context";
import { ApiError } from "../core/errors";
import { errorPage } from "./render";
import { loadOwner, pageHeaders, requireOwner, sameOriginPosts, type WebEnv } from "./web.context";
import { landingPages } from "./pages/landing";
import { accountPages } from "./pages/account";
import { overviewPages } from "./pages/overview";
import { agentPages } from "./pages/agents";
import { usagePages } from "./pages/usage";
import { billingPages } from "./pages/billing";
import { settingsPages } from "./pages/settings";
import { connectPages } from "./pages/connect";
import { communityPages } from "./pages/community";
import { skillPages } from "./pages/skills";
import { stackPages } from "./pages/stack";
import { notificationPages } from "./pages/notifications";
import { activityPages } from "./pages/activity";

/** A browser navigating asks for HTML; API clients (curl, fetch, SDKs) ask for `*\/*` or JSON. */
export const prefersHtml = (accept: string | undefined) => !!accept && accept.includes("text/html");

/** Every page: security headers → the session cookie's owner → same-origin form posts. */
const PAGE: MiddlewareHandler<WebEnv>[] = [pageHeaders, loadOwner, sameOriginPosts];

const notFoundPage: MiddlewareHandler<WebEnv> = async (c) => {
  throw new ApiError("NOT_FOUND", `There is no page at ${new URL(c.req.url).pathname}`);
};

/** A group of pages under one prefix, with its middleware, its error page and an HTML 404 for the rest. */
function group(extra: MiddlewareHandler<WebEnv>[], ...pages: Hono<WebEnv>[]): Hono<WebEnv> {
  const g = new Hono<WebEnv>();
  g.onError(errorPage);
  g.use("*", ...PAGE, ...extra);
  for (const p of pages) g.route("/", p);
  g.all("*", notFoundPage);
  return g;
}

/**
 * The owners' web pages (DESIGN §1 `web`): server-rendered HTML on the same Worker, outside `/v1`.
 *
 *   /                 landing (for `Accept: text/html`; other clients keep the JSON index)
 *   /login /signup /logout
 *   /dashboard/...    the signed-in owner's pages (tabs from nav.ts)
 *   /connect/...      harness setup, public
 *   /community/...    leaderboard, directory, profiles, public
 *
 * Pages never re-implement logic: they run the same operations as the API, in-process
 * (core/invoke.ts), and show their errors next to the fields.
 */
export function mountWeb(app: Hono<AppEnv>): void {
  const site = new Hono<WebEnv>();
  site.onError(errorPage);
  // Root-level pages: middleware by exact path, so it never runs for /v1 or /.well-known.
  for (const path of ["/", "/login", "/signup", "/logout"]) site.use(path, ...PAGE);
  site.route("/", landingPages);
  site.route("/", accountPages);
  app.route("/", site as unknown as Hono<AppEnv>);

  app.route(
    "/dashboard",
    group(
      [requireOwner],
      overviewPages,
      agentPages,
      usagePages,
      billingPages,
      settingsPages,
      skillPages,
      stackPages,
      notificationPages,
      activityPages,
    ) as unknown as Hono<AppEnv>,
  );
  app.route("/connect", group([], connectPages) as unknown as Hono<AppEnv>);
  app.route("/community", group([], communityPages) as unknown as Hono<AppEnv>);
}
