import type { Context } from "hono";
import type { Env } from "../env";
import type { Principal } from "./principal";
import type { Admitted, Gate } from "./admission";
import type { ActivitySink } from "./operation";

export interface AppVariables {
  requestId: string;
  caller: Principal | null;
  /** Agent requests: the key as sent (verified by the admission, never logged). */
  key?: string;
  /** Agent requests: what the admission answered. */
  admitted?: Admitted | null;
  /** The admission step (app.ts sets it): dashboard pages need it to meter an owner's action (core/invoke.ts). */
  gate?: Gate;
  /** Where successful agent calls' activity goes (app.ts sets it with the gate). */
  activity?: ActivitySink | null;
}

export type AppEnv = { Bindings: Env; Variables: AppVariables };
export type AppContext = Context<AppEnv>;
