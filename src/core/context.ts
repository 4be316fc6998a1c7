import type { Context } from "hono";
import type { Env } from "../env";
import type { Principal } from "./principal";
import type { Admission, Admitted, Gate } from "./admission";
import type { RequestD1 } from "./d1";

export interface AppVariables {
  requestId: string;
  caller: Principal | null;
  /** Agent requests: the key as sent (verified by the admission, never logged). */
  key?: string;
  /** Agent requests: what the admission answered. */
  admitted?: Admitted | null;
  /** The request's D1 session (agent and public requests; dashboard requests use the primary). */
  d1?: RequestD1 | null;
  /** The admission step (app.ts sets it): dashboard pages need it to meter an owner's action (core/invoke.ts). */
  gate?: Gate;
  /** Dashboard requests of a metered operation: the account's quota after the charge. */
  charged?: Admission | null;
}

export type AppEnv = { Bindings: Env; Variables: AppVariables };
export type AppContext = Context<AppEnv>;
