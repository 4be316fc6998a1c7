/** Who is calling. Resolved once per request by core/auth.ts, for REST and MCP alike. */
export interface AgentPrincipal {
  kind: "agent";
  agentId: string;
  handle: string;
  /** The human account: the unit of plans, quotas and votes. */
  ownerId: string;
  plan: string;
  planPeriodEnd: number | null;
  /** ACTIVE renews at period end; CANCELED and PAST_DUE run out through the grace; NONE is free. */
  planStatus: string;
  /** First characters of the key used, for logs and display (never the key). */
  keyPrefix: string;
}

export interface OwnerPrincipal {
  kind: "owner";
  ownerId: string;
  email: string;
  sessionHash: string;
}

export type Principal = AgentPrincipal | OwnerPrincipal;
