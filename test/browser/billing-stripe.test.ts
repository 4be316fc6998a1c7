import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../e2e/server";
import { openBrowser, screenshots, type Browser } from "./browser";

/**
 * The billing page under the Stripe provider in a real Chromium: a subscribe form answered by a 303
 * to Stripe Checkout must reach Checkout. Chromium checks the page's `form-action` on that
 * redirect too, which is why the billing page (and only it) names Stripe's two origins.
 *
 * The server runs with the Stripe configuration; Stripe's API cannot be reached here, so the one
 * request that would call it (the subscribe POST) is answered in the browser with the 303 the
 * server gives (test/web/web.test.ts checks that answer against Stripe's recorded responses), and
 * Checkout itself is a stub page. A control run with the Stripe origins taken out of the policy
 * shows the redirect is then refused, so the check can fail.
 */

const VARS = {
  STRIPE_SECRET_KEY: "sk_test_LoreBrowserSecretKey0001",
  STRIPE_WEBHOOK_SECRET: "whsec_LoreBrowserWebhookSecret0001",
  STRIPE_PRICE_STARTER: "price_BrowserStarter",
  STRIPE_PRICE_PRO: "price_BrowserPro",
  STRIPE_PRICE_EXPERT: "price_BrowserExpert",
};
const CHECKOUT = "https://checkout.stripe.com/c/pay/cs_test_LoreBrowser";

let server: TestServer;
let b: Browser;
let origin: string;

beforeAll(async () => {
  server = await startServer({ seed: false, vars: VARS });
  origin = server.origin;
  b = await openBrowser();
  const r = await fetch(`${origin}/v1/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: `stripe-${Date.now().toString(36)}@example.com`, password: "a long enough passphrase" }),
  });
  expect(r.status).toBe(201);
  const { token } = (await r.json()) as { token: string };
  await b.context.addCookies([{ name: "lore_session", value: token, url: origin, httpOnly: true, secure: true, sameSite: "Lax" }]);
  await b.page.route("https://checkout.stripe.com/**", (route) =>
    route.fulfill({
      status: 200,
      headers: { "content-type": "text/html" },
      body: "<title>Stripe Checkout (stub)</title><h1>Checkout</h1>",
    }),
  );
  await b.page.route(`${origin}/dashboard/billing/subscribe`, (route) => route.fulfill({ status: 303, headers: { location: CHECKOUT } }));
});

afterAll(async () => {
  await b?.close();
  await server?.stop();
});

describe("billing under Stripe in Chromium", () => {
  it("the subscribe button reaches Stripe Checkout through the 303 (form-action names Stripe)", async () => {
    const { page } = b;
    const res = await page.goto(`${origin}/dashboard/billing`);
    expect(res!.status()).toBe(200);
    expect(res!.headers()["content-security-policy"]).toContain(
      "form-action 'self' https://checkout.stripe.com https://billing.stripe.com;",
    );
    expect(await page.locator("main").textContent()).toContain("Payments go through Stripe");
    await screenshots(page, "billing-stripe");
    await page.getByRole("button", { name: "Subscribe: Pro, $30 per month" }).click();
    await page.waitForURL(CHECKOUT);
    expect(await page.locator("h1").textContent()).toBe("Checkout");
    // Back from Checkout: the return code is shown (the plan changes when Stripe's webhook arrives).
    await page.goto(`${origin}/dashboard/billing?done=stripe&checkout=canceled`);
    expect(await page.getByRole("status").first().textContent()).toContain("Checkout canceled: nothing was charged");
    expect(b.problems).toEqual([]);
  });

  it("control: with form-action 'self' alone, Chromium refuses the same redirect", async () => {
    const { page } = b;
    await page.route(`${origin}/dashboard/billing`, async (route) => {
      const response = await route.fetch();
      const headers = response.headers();
      headers["content-security-policy"] = headers["content-security-policy"]!.replace(/form-action [^;]*/, "form-action 'self'");
      await route.fulfill({ response, headers });
    });
    await page.goto(`${origin}/dashboard/billing`);
    const refused = new Promise<string>((resolve) => page.on("console", (m) => m.text().includes("form-action") && resolve(m.text())));
    await page.getByRole("button", { name: "Subscribe: Pro, $30 per month" }).click();
    expect(await refused).toMatch(/violates the following Content Security Policy directive: "form-action 'self'"/);
    expect(page.url()).not.toContain("checkout.stripe.com");
    await page.unroute(`${origin}/dashboard/billing`);
  });
});
