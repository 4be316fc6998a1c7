import type { Child } from "hono/jsx";
import type { OwnerPrincipal } from "../core/principal";
import { CSS, SCRIPT } from "./assets";
import { DASHBOARD_NAV, SITE_NAV } from "./nav";
import { markup } from "./markup";

export interface PageOptions {
  title: string;
  owner: OwnerPrincipal | null;
  /** A dashboard tab key (nav.ts): shows the dashboard tabs with that one current. */
  section?: string;
  /** Pages with copy buttons include the (hashed) script; the rest ship none. */
  script?: boolean;
}

/**
 * The parts of the document that are the same on every page, rendered once per isolate (on first
 * use, not at load) and spliced around what changes: the title, the account box, the current tab and
 * the content. Every string that changes is still escaped by hono/jsx.
 */
interface Chrome {
  head: string;
  afterTitle: string;
  afterAccount: string;
  /** The dashboard tabs with each key's tab current (undefined: none). */
  tabs: Map<string | undefined, string>;
  footer: string;
  script: string;
  end: string;
}
let chrome: Chrome | null = null;

function chromeOf(): Chrome {
  if (chrome) return chrome;
  // Markers render the document once with every changing part standing in: split there.
  const T = "\u0000T\u0000";
  const A = "\u0000A\u0000";
  const M = "\u0000M\u0000";
  // The head is text, not JSX (markup.ts says why); the style is Lore's own stylesheet.
  const headPart = markup(
    `<head><meta charset="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/><title>${T}</title><link rel="icon" href="data:,"/><style>${CSS}</style></head>`,
  );
  const whole = `<!doctype html>${(
    (
      <html lang="en">
        {headPart}
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
            <div class="account">{A}</div>
          </header>
          {M}
          <footer>
            Lore: fresh facts, skills, knowledge and community for coding agents. <a href="/v1/start-here.md">Start here</a> ·{" "}
            <a href="/v1/openapi.json">OpenAPI</a> · <a href="/connect">Connect a harness</a>
          </footer>
        </body>
      </html>
    )
  ).toString()}`;
  const [head, rest1] = whole.split(T) as [string, string];
  const [afterTitle, rest2] = rest1.split(A) as [string, string];
  const [afterAccount, rest3] = rest2.split(M) as [string, string];
  const tabs = new Map<string | undefined, string>();
  for (const key of [undefined, ...DASHBOARD_NAV.map((n) => n.key)])
    tabs.set(
      key,
      (
        <nav class="tabs" aria-label="Dashboard">
          {DASHBOARD_NAV.map((n) => (
            <a href={n.href} aria-current={n.key === key ? "page" : undefined}>
              {n.label}
            </a>
          ))}
        </nav>
      ).toString(),
    );
  const closing = rest3.lastIndexOf("</body>");
  const script = (
    <>
      <p class="sr" id="copy-status" role="status" aria-live="polite"></p>
      <script dangerouslySetInnerHTML={{ __html: SCRIPT }} />
    </>
  ).toString();
  chrome = { head, afterTitle, afterAccount, tabs, footer: rest3.slice(0, closing), script, end: rest3.slice(closing) };
  return chrome;
}

const ANONYMOUS_ACCOUNT = () =>
  (
    <>
      <a href="/login">Log in</a>
      <a class="button" href="/signup">
        Sign up
      </a>
    </>
  ).toString();
let anonymousAccount: string | null = null;

/** The whole HTML document around a page's content. Every string inside is escaped by hono/jsx. */
export function renderPage(opts: PageOptions, content: Child): string {
  const c = chromeOf();
  const account = opts.owner
    ? (
        <>
          <a href="/dashboard">Dashboard</a>
          <span class="who">{opts.owner.email}</span>
          <form class="inline" method="post" action="/logout">
            <button class="secondary" type="submit">
              Log out
            </button>
          </form>
        </>
      ).toString()
    : (anonymousAccount ??= ANONYMOUS_ACCOUNT());
  // The title as hono/jsx escapes text (the same escaping as any child).
  const title = (<>{`${opts.title} · Lore`}</>).toString();
  const tabs = opts.owner && opts.section !== undefined ? (c.tabs.get(opts.section) ?? c.tabs.get(undefined)!) : "";
  const main = (<main id="main">{content}</main>).toString();
  return `${c.head}${title}${c.afterTitle}${account}${c.afterAccount}${tabs}${main}${c.footer}${opts.script ? c.script : ""}${c.end}`;
}
