/**
 * The parts of Stripe's API objects (version `STRIPE_API_VERSION`) that Lore reads. Stripe sends
 * many more fields; these types name only what the code relies on, so that a field Lore starts
 * reading has to be added here, next to its meaning.
 */

type Expandable = string | { id: string } | null;

export interface StripeSubscriptionItem {
  id: string;
  price: { id: string };
  /** s since epoch (API 2025-03-31 and later: on the item, not the subscription). */
  current_period_start?: number;
  current_period_end?: number;
}

export interface StripeSubscription {
  id: string;
  object?: "subscription";
  customer: Expandable;
  status: string;
  /** s since epoch */
  created: number;
  billing_cycle_anchor: number;
  cancel_at: number | null;
  cancel_at_period_end: boolean;
  canceled_at: number | null;
  ended_at: number | null;
  cancellation_details?: { comment?: string | null; feedback?: string | null; reason?: string | null } | null;
  items: { data: StripeSubscriptionItem[] };
  metadata?: Record<string, string>;
}

export interface StripeCheckoutSession {
  id: string;
  object?: "checkout.session";
  /** open, complete or expired */
  status: string | null;
  mode: string;
  url: string | null;
  /** s since epoch */
  expires_at: number;
  customer: Expandable;
  client_reference_id: string | null;
  subscription: Expandable;
}

export interface StripeInvoice {
  id: string;
  object?: "invoice";
  customer: Expandable;
  parent?: { subscription_details?: { subscription?: Expandable } | null } | null;
}

export interface StripeList<T> {
  object: "list";
  data: T[];
  has_more: boolean;
}

/** A webhook event, checked by its signature; `data.object` is read according to `type`. */
export interface StripeEvent {
  id: string;
  object: "event";
  type: string;
  /** s since epoch */
  created: number;
  api_version?: string | null;
  data: { object: unknown };
}
