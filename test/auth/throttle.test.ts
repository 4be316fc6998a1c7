import { describe, expect, it } from "vitest";
import { call, expectError, signup } from "../helpers";
import { CEILING_DELAY_MS } from "../../src/auth/throttle";

/**
 * Password checks are throttled per client address, per (address, email), and per email from all
 * addresses; past the per-email ceiling each address still gets one attempt a minute after a short
 * delay, so nobody can lock an owner out by guessing for them. The same for sign-up and for the
 * dashboard's forms. (The Rate Limiting bindings run in miniflare, in fixed windows of the wall
 * clock: each test starts with most of a window ahead of it.)
 */

const PASSWORD = "correct horse battery";
let n = 0;
const addr = () => `198.51.${Math.floor(Math.random() * 250)}.${(n++ % 250) + 1}`;

async function freshWindow() {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 30_000) await new Promise((r) => setTimeout(r, left + 50));
}

const login = (email: string, password: string, ip: string) =>
  call("POST", "/v1/auth/login", { body: { email, password }, headers: { "cf-connecting-ip": ip } });

describe("login throttles that cannot be turned on their owner", { timeout: 90_000 }, () => {
  it("per address and email: the 11th attempt in a minute is 429; other emails from it and other addresses for it go on", async () => {
    await freshWindow();
    const o = await signup();
    const x = addr();
    for (let i = 0; i < 10; i++) expectError(await login(o.email, "wrong password!", x), 401, "UNAUTHENTICATED");
    const r = expectError(await login(o.email, PASSWORD, x), 429, "RATE_LIMITED");
    expect(r.error.details).toMatchObject({ metric: "LOGIN_ATTEMPTS", scope: "address+email", limit: 10, retryAfterSeconds: 60 });
    expect((await login(o.email, PASSWORD, addr())).status).toBe(200);
    expectError(await login(`other-${o.email}`, PASSWORD, x), 401, "UNAUTHENTICATED");
  });

  it("per address: 30 attempts a minute across emails, then 429", async () => {
    await freshWindow();
    const x = addr();
    for (let i = 0; i < 30; i++) expectError(await login(`nobody-${i}-${x}@example.com`, "wrong password!", x), 401, "UNAUTHENTICATED");
    const r = expectError(await login(`nobody-last-${x}@example.com`, "wrong password!", x), 429, "RATE_LIMITED");
    expect(r.error.details).toMatchObject({ scope: "address", limit: 30 });
  });

  it("a lockout attempt from many addresses: the guessers are held to the ceiling, the owner from a new address gets in after a short delay", async () => {
    await freshWindow();
    const o = await signup();
    const guessers = [addr(), addr(), addr()];
    const statuses: number[] = [];
    for (const g of guessers) for (let i = 0; i < 8; i++) statuses.push((await login(o.email, `guess ${g} ${i}`, g)).status);
    // 20 guesses reach the password check; then the third address gets its one attempt of the minute, and no more.
    expect(statuses.filter((s) => s === 401)).toHaveLength(21);
    expect(statuses.filter((s) => s === 429)).toHaveLength(3);
    const more = expectError(await login(o.email, "guess again", guessers[2]!), 429, "RATE_LIMITED");
    expect(more.error.details).toMatchObject({ metric: "LOGIN_ATTEMPTS", scope: "email", limit: 20, retryAfterSeconds: 60 });
    // Every other address past the ceiling: one slowed attempt, then 429.
    expectError(await login(o.email, "guess again", guessers[0]!), 401, "UNAUTHENTICATED");
    expectError(await login(o.email, "guess again", guessers[0]!), 429, "RATE_LIMITED");
    // The owner, from an address of their own: no lockout, a short wait.
    const t0 = Date.now();
    const owner = await login(o.email, PASSWORD, addr());
    expect(owner.status, JSON.stringify(owner.body)).toBe(200);
    expect(owner.body.token).toMatch(/^lore_s_/);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(CEILING_DELAY_MS - 50);
  });

  it("the dashboard's login form goes through the same throttle", async () => {
    await freshWindow();
    const o = await signup();
    const x = addr();
    const form = (password: string) =>
      call("POST", "/login", {
        raw: new URLSearchParams({ email: o.email, password }).toString(),
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html", "cf-connecting-ip": x },
      });
    for (let i = 0; i < 10; i++) expect((await form("wrong password!")).status).toBe(401);
    const r = await form(PASSWORD);
    expect(r.status).toBe(429);
    expect(String(r.body)).toMatch(/wait a minute/);
  });
});

describe("sign-up", { timeout: 90_000 }, () => {
  it("the same throttles: per address and email, and a per-email ceiling past which each address still gets its attempt, slowed", async () => {
    await freshWindow();
    const email = `taken-${addr()}@example.com`;
    const up = (ip: string) =>
      call("POST", "/v1/auth/signup", { body: { email, password: PASSWORD }, headers: { "cf-connecting-ip": ip } });
    const first = addr();
    expect((await up(first)).status).toBe(201);
    // 21 more addresses try the taken email: 19 within the ceiling, then each new address once, after the delay.
    const t0 = Date.now();
    for (let i = 0; i < 21; i++) expectError(await up(addr()), 409, "CONFLICT");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2 * CEILING_DELAY_MS - 100);
    const again = addr();
    expectError(await up(again), 409, "CONFLICT");
    const r = expectError(await up(again), 429, "RATE_LIMITED");
    expect(r.error.details).toMatchObject({ metric: "SIGNUP_ATTEMPTS", scope: "email" });
    // Sign-ups from one address stay capped at 10 a minute (account farming), whatever the emails.
    const farm = addr();
    for (let i = 0; i < 10; i++)
      expect(
        (
          await call("POST", "/v1/auth/signup", {
            body: { email: `farm-${i}-${farm}@example.com`, password: PASSWORD },
            headers: { "cf-connecting-ip": farm },
          })
        ).status,
      ).toBe(201);
    const farmed = expectError(
      await call("POST", "/v1/auth/signup", {
        body: { email: `farm-x-${farm}@example.com`, password: PASSWORD },
        headers: { "cf-connecting-ip": farm },
      }),
      429,
      "RATE_LIMITED",
    );
    expect(farmed.error.details).toMatchObject({ metric: "SIGNUP_ATTEMPTS", scope: "address", limit: 10 });
  });
});
