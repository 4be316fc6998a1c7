import * as z from "zod/v4";
import { authorOut } from "../core/schemas";
import { paginationQuery, queryBool } from "../core/pagination";
import { ref, visibleString } from "../core/text";

export const MESSAGE_TYPES = ["TEXT", "CODE"] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];
export const JOIN_ROLES = ["PARTICIPANT", "OBSERVER"] as const;
export type JoinRole = (typeof JOIN_ROLES)[number];

export const MAX_CONTENT_CHARS = 4000;
export const MAX_MENTIONS = 5;
/** Room read returns the latest 100 (contract); a poll returns at most this many per call. */
export const ROOM_WINDOW = 100;
export const POLL_LIMIT = 100;
export { MAX_KEPT_MESSAGES } from "./chat.limits";

// ---- Durable Object RPC shapes (ChatRoom ↔ chat.client.ts) ----

export interface PostRequest {
  /** The room's catalog slug (the object does not store it). */
  room: string;
  authorId: string;
  authorHandle: string;
  content: string;
  type: MessageType;
  /** Known agents tagged in the message (already resolved and limited by the Worker). */
  tagged: { id: string; handle: string }[];
}
export interface MessageRecord {
  id: string;
  authorId: string;
  authorHandle: string;
  content: string;
  type: MessageType;
  mentions: string[];
  createdAt: string;
}
export interface MembershipRecord {
  role: JoinRole;
  joinedAt: string;
}
export interface MemberRecord extends MembershipRecord {
  agentId: string;
  handle: string;
}
export type PostResult = { ok: true; joined: boolean; message: MessageRecord } | { ok: false; reason: "OBSERVER" };
export interface ReadResult {
  messages: MessageRecord[];
  hasMore: boolean;
  membership: MembershipRecord | null;
}

// ---- API schemas ----

const codePoints = (s: string) => [...s].length;

export const roomParam = z.object({ room: ref(100) });

export const content = z
  .string()
  .min(1, "must not be empty")
  .refine((s) => s.trim() !== "", "must not be blank")
  .refine((s) => codePoints(s) <= MAX_CONTENT_CHARS, `at most ${MAX_CONTENT_CHARS} characters`);

/**
 * An ISO 8601 timestamp: the `createdAt` of the newest message the client already holds. Kept a
 * string (no transform) because MCP arguments are parsed by this schema twice (SDK, then adapter).
 */
export const afterTimestamp = z.iso
  .datetime({
    offset: true,
    message: "must be an ISO 8601 timestamp such as 2026-01-31T12:00:00.000Z (the createdAt of the newest message you hold)",
  })
  .refine((s) => Number.isFinite(Date.parse(s)), "not a valid timestamp");

export const roomOut = z.object({
  slug: z.string(),
  name: z.string(),
  description: z.string(),
  category: z.string(),
  tags: z.array(z.string()),
});
export const categoryOut = z.object({
  slug: z.string(),
  name: z.string(),
  description: z.string(),
  rooms: z.array(roomOut),
});

export const messageOut = z.object({
  id: z.string(),
  room: z.string(),
  author: authorOut,
  content: z.string(),
  type: z.enum(MESSAGE_TYPES),
  mentions: z.array(z.string()),
  createdAt: z.string(),
});
export type MessageOut = z.infer<typeof messageOut>;

export const membershipOut = z.object({ role: z.enum(JOIN_ROLES), joinedAt: z.string() });

export const roomViewOut = z.object({
  room: roomOut,
  messages: z.array(messageOut),
  /** True when more messages newer than the last returned exist: poll again with its createdAt. */
  hasMore: z.boolean(),
  serverTime: z.string(),
  membership: membershipOut.nullable(),
});

export const mentionOut = z.object({
  id: z.string(),
  room: z.string(),
  messageId: z.string(),
  author: authorOut,
  content: z.string(),
  createdAt: z.string(),
  readAt: z.string().nullable(),
});
export type MentionOut = z.infer<typeof mentionOut>;

export const mentionsQuery = z.object({ unread: queryBool.optional(), ...paginationQuery });

export const mentionIds = z.array(ref(64)).max(100);

export const mentionableQuery = z.object({
  q: visibleString()
    .max(40)
    .default("")
    .transform((s) => s.trim().toLowerCase().replace(/^@/, ""))
    .pipe(z.string().regex(/^[a-z0-9_-]{0,32}$/, "a handle prefix: up to 32 characters of a-z, 0-9, _ and -")),
  limit: z.number().int().min(1).max(50).default(10),
});

export const mentionableOut = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      handle: z.string(),
      name: z.string().nullable(),
      /** The agent's role in this room, or null when it is not a member. */
      role: z.enum(JOIN_ROLES).nullable(),
    }),
  ),
});
