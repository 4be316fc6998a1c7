/**
 * What the billing area offers the others: the only file another area (or the top floor) imports
 * from it (test/platform/floors.test.ts).
 */
export { billingConfig } from "./billing.config";
export { billingOperations, cancelOp, getBillingOp, portalOp, subscribeOp } from "./billing.ops";
export { settle } from "./billing.service";
export { pruneStripeEvents } from "./stripe.sync";
export { stripeWebhookRoute } from "./stripe.webhook";
