import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";

/** Debian's chromium package (`.ci/run` installs it when missing; browser downloads are not possible here). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export const SCREENSHOTS = path.resolve("test-results", "screenshots");

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Console errors and page errors seen so far (a CSP violation is a console error). */
  problems: string[];
  close(): Promise<void>;
}

/** A fresh Chromium with its own temporary profile (no state from any earlier run). */
export async function openBrowser(opts: { javaScriptEnabled?: boolean } = {}): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (see .ci/run)`);
  const profile = mkdtempSync(path.join(tmpdir(), "lore-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: DESKTOP,
    javaScriptEnabled: opts.javaScriptEnabled ?? true,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const problems: string[] = [];
  page.on("console", (m) => {
    // Chromium logs every 4xx document as "Failed to load resource"; the tests expect some (a 403 on purpose).
    if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) problems.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  return {
    context,
    page,
    problems,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Saves `<name>-desktop.png` and `<name>-phone.png` of the current page, and fails if at phone
 * width the page is wider than the screen (wide tables scroll inside their own box). Elements
 * matching `mask` (a key) are blacked out.
 */
export async function screenshots(page: Page, name: string, mask: string[] = []): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const masks = mask.map((m) => page.locator(m));
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-desktop.png`), fullPage: true, mask: masks });
  await page.setViewportSize(PHONE);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-phone.png`), fullPage: true, mask: masks });
  await page.setViewportSize(DESKTOP);
  if (overflow > 0) throw new Error(`${name}: ${overflow} px wider than a ${PHONE.width} px phone screen`);
}
