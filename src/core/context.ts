import type { Context } from "hono";
import type { Env } from "../env";
import type { Principal } from "./principal";
import type { Admitted } from "./admission";
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
}

export type AppEnv = { Bindings: Env; Variables: AppVariables };
export type AppContext = Context<AppEnv>;
