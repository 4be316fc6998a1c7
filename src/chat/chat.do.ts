import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";

/** One per chat room: its messages, membership and ordering (built by the chat area). */
export class ChatRoom extends DurableObject<Env> {}
