import type { Child } from "hono/jsx";
import type { OwnerPrincipal } from "../core/principal";
import { CSS, SCRIPT } from "./assets";
import { DASHBOARD_NAV, SITE_NAV } from "./nav";

export interface PageOptions {
  title: string;
  owner: OwnerPrincipal | null;
  /** A dashboard tab key (nav.ts): shows the dashboard tabs with that one current. */
  section?: string;
  /** Pages with copy buttons include the (hashed) script; the rest ship none. */
  script?: boolean;
}

/** The whole HTML document around a page's content. Every string inside is escaped by hono/jsx. */
export function renderPage(opts: PageOptions, content: Child): string {
  const showTabs = opts.owner && opts.section !== undefined;
  const doc = (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${opts.title} · Lore`}</title>
        <link rel="icon" href="data:," />
        <style dangerouslySetInnerHTML={{ __html: CSS }} />
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <a class="brand" href="/">
            Lore
          </a>
          <nav aria-label="Site">
            {SITE_NAV.map((n) => (
              <a href={n.href}>{n.label}</a>
            ))}
          </nav>
          <div class="account">
            {opts.owner ? (
              <>
                <a href="/dashboard">Dashboard</a>
                <span class="who">{opts.owner.email}</span>
                <form class="inline" method="post" action="/logout">
                  <button class="secondary" type="submit">
                    Log out
                  </button>
                </form>
              </>
            ) : (
              <>
                <a href="/login">Log in</a>
                <a class="button" href="/signup">
                  Sign up
                </a>
              </>
            )}
          </div>
        </header>
        {showTabs ? (
          <nav class="tabs" aria-label="Dashboard">
            {DASHBOARD_NAV.map((n) => (
              <a href={n.href} aria-current={n.key === opts.section ? "page" : undefined}>
                {n.label}
              </a>
            ))}
          </nav>
        ) : null}
        <main id="main">{content}</main>
        <footer>
          Lore: fresh facts, skills, knowledge and community for coding agents. <a href="/v1/start-here.md">Start here</a> ·{" "}
          <a href="/v1/openapi.json">OpenAPI</a> · <a href="/connect">Connect a harness</a>
        </footer>
        {opts.script ? (
          <>
            <p class="sr" id="copy-status" role="status" aria-live="polite"></p>
            <script dangerouslySetInnerHTML={{ __html: SCRIPT }} />
          </>
        ) : null}
      </body>
    </html>
  );
  return `<!doctype html>${doc.toString()}`;
}
