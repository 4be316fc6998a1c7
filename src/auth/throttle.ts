import type { Env } from "../env";
import { ApiError } from "../core/errors";

/**
 * Password checks (login and sign-up, through the API or the dashboard's forms) are throttled so
 * that guessing is slow and nobody can lock an owner out by guessing for them:
 *
 * - per client address (`AUTH_ADDRESS_THROTTLE`, 30 a minute across all emails): one address
 *   trying many accounts;
 * - per address and email (`AUTH_PAIR_THROTTLE`, 10 a minute): one address guessing one account;
 * - per email from every address (`AUTH_EMAIL_THROTTLE`, 20 a minute): a guesser spread over many
 *   addresses. Past this ceiling an email is not locked: each address still gets one attempt a
 *   minute (`AUTH_EMAIL_NEW_ADDRESS_THROTTLE`), answered after a short delay. An owner signing in
 *   from an address of their own gets in that way, two seconds late, however hard the email is
 *   being guessed elsewhere; a guesser gets one slowed guess per address a minute.
 *
 * The limits live in wrangler.toml ([[ratelimits]], Workers Rate Limiting: per Cloudflare location,
 * fixed windows). Loopback and unknown addresses (a local `npm start`, the tests) skip the address
 * limits: they are one person on their own machine.
 */
export const ADDRESS_LIMIT = 30;
export const PAIR_LIMIT = 10;
export const EMAIL_LIMIT = 20;
export const PERIOD_S = 60;
/** How long an attempt past an email's ceiling waits before its password is checked. */
export const CEILING_DELAY_MS = 2_000;

type Kind = "login" | "signup";
const METRIC: Record<Kind, string> = { login: "LOGIN_ATTEMPTS", signup: "SIGNUP_ATTEMPTS" };

/** Loopback callers (npm start, the e2e suite, bench) are one person on their own machine. */
export const isLoopback = (ip: string) => ip === "::1" || ip.startsWith("127.") || ip === "::ffff:127.0.0.1";

/** The contract's 429 shape for an abuse throttle: what is known (the binding only says yes or no). */
function refused(kind: Kind, scope: "address" | "address+email" | "email", limit: number, message: string): ApiError {
  return new ApiError(
    "RATE_LIMITED",
    message,
    { metric: METRIC[kind], scope, limit, retryAfterSeconds: PERIOD_S },
    { "Retry-After": String(PERIOD_S), "Cache-Control": "no-store" },
  );
}

const ok = async (limiter: RateLimit, key: string) => (await limiter.limit({ key })).success;

/** Before a password is hashed: throws the 429, waits past the email's ceiling, or lets it through. */
export async function throttlePasswordCheck(env: Env, kind: Kind, clientIp: string | null | undefined, email: string): Promise<void> {
  const who = email.trim().toLowerCase();
  const address = clientIp && !isLoopback(clientIp) ? clientIp : null;
  if (address) {
    if (!(await ok(env.AUTH_ADDRESS_THROTTLE, `${address}`))) {
      throw refused(
        kind,
        "address",
        ADDRESS_LIMIT,
        "Too many sign-in and sign-up attempts from your address; wait a minute before trying again",
      );
    }
    if (!(await ok(env.AUTH_PAIR_THROTTLE, `${kind}:${address}:${who}`))) {
      throw refused(
        kind,
        "address+email",
        PAIR_LIMIT,
        "Too many attempts for this account from your address; wait a minute before trying again",
      );
    }
  }
  if (await ok(env.AUTH_EMAIL_THROTTLE, `${kind}:${who}`)) return;
  // Past the ceiling: one attempt a minute per address, after a short delay. Never a lockout.
  if (await ok(env.AUTH_EMAIL_NEW_ADDRESS_THROTTLE, `${kind}:${address ?? "local"}:${who}`)) {
    await new Promise((r) => setTimeout(r, CEILING_DELAY_MS));
    return;
  }
  throw refused(
    kind,
    "email",
    EMAIL_LIMIT,
    "This account is getting many attempts from other addresses: each address may try once a minute. Wait a minute and try again",
  );
}
