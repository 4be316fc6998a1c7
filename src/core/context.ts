import type { Context } from "hono";
import type { Env } from "../env";
import type { Principal } from "./principal";
import type { Admission } from "../quota/quota.client";

export interface AppVariables {
  requestId: string;
  caller: Principal | null;
  admission: Admission | null;
}

export type AppEnv = { Bindings: Env; Variables: AppVariables };
export type AppContext = Context<AppEnv>;
