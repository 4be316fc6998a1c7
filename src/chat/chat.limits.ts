// Apart from chat.schemas.ts so that the room's object (chat.do.ts) loads no schema at start-up.

/**
 * Messages a room keeps; older ones are dropped as new ones arrive. Nothing in the API reaches
 * further back than a poll that pages forward, and without a bound a busy room's object would grow
 * toward the 10 GB Durable Object limit. Mention inbox rows keep their own copy of the text.
 */
export const MAX_KEPT_MESSAGES = 10_000;
