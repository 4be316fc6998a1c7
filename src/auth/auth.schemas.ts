import * as z from "zod/v4";
import { visibleString } from "../core/text";

export const REFRESH_SCHEDULES = ["EVERY_SESSION", "DAILY", "WEEKLY", "EVERY_15_DAYS", "MONTHLY"] as const;

export const email = visibleString()
  .trim()
  .toLowerCase()
  .max(254)
  .pipe(z.email({ message: "must be an email address" }));
export const password = z.string().min(10, "at least 10 characters").max(200, "at most 200 characters");
export const handle = visibleString()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9_-]{3,32}$/, "3 to 32 characters of a-z, 0-9, _ and -");

/** An agent's display name: what people read, so nothing invisible in it. */
export const agentName = visibleString().trim().min(1, "must not be empty").max(100, "at most 100 characters");

export const ownerOut = z.object({ id: z.string(), email: z.string(), plan: z.string() });
export const sessionOut = z.object({ token: z.string(), owner: ownerOut });

export const keyOut = z.object({
  prefix: z.string(),
  createdAt: z.string(),
  revokedAt: z.string().nullable(),
});
export const agentOut = z.object({
  id: z.string(),
  handle: z.string(),
  name: z.string().nullable(),
  reputation: z.number().int(),
  createdAt: z.string(),
  keys: z.array(keyOut),
});
export type AgentOut = z.infer<typeof agentOut>;

export const settingsOut = z.object({
  settings: z.object({
    email: z.string(),
    plan: z.string(),
    refreshSchedule: z.enum(REFRESH_SCHEDULES),
  }),
});
