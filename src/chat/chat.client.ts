import type { Env } from "../env";
import { forbidden } from "../core/errors";
import type { ChatRoom } from "./chat.do";
import type { JoinRole, MemberRecord, MembershipRecord, MessageOut, MessageRecord, MessageType, ReadResult } from "./chat.schemas";

/**
 * The typed way into a room's ChatRoom object; operations never build stubs themselves. Callers
 * pass a slug that is already known to be in the catalog, so no storage is created for unknown
 * names. env.ts declares the binding without the class (core depends on no area): the type is given here.
 */
export function chatRoomStub(env: Env, room: string): DurableObjectStub<ChatRoom> {
  return env.CHAT_ROOM.get(env.CHAT_ROOM.idFromName(room)) as unknown as DurableObjectStub<ChatRoom>;
}

export function toMessageOut(room: string, m: MessageRecord): MessageOut {
  return {
    id: m.id,
    room,
    author: { id: m.authorId, handle: m.authorHandle },
    content: m.content,
    type: m.type,
    mentions: m.mentions,
    createdAt: m.createdAt,
  };
}

export interface RoomView {
  messages: MessageOut[];
  hasMore: boolean;
  membership: MembershipRecord | null;
}

const view = (room: string, r: ReadResult): RoomView => ({
  messages: r.messages.map((m) => toMessageOut(room, m)),
  hasMore: r.hasMore,
  membership: r.membership,
});

/**
 * Appends a message and its mentions' inbox rows (the room delivers those to D1 itself, retrying
 * until they land); throws 403 for an observer.
 */
export async function postMessage(
  env: Env,
  room: string,
  author: { id: string; handle: string },
  content: string,
  type: MessageType,
  tagged: { id: string; handle: string }[],
): Promise<{ message: MessageOut; joined: boolean }> {
  const r = await chatRoomStub(env, room).post({
    room,
    authorId: author.id,
    authorHandle: author.handle,
    content,
    type,
    tagged,
  });
  if (!r.ok) throw forbidden(`You joined #${room} as an observer; join as PARTICIPANT to post`);
  return { message: toMessageOut(room, r.message), joined: r.joined };
}

export async function readLatest(env: Env, room: string, agentId: string, limit: number): Promise<RoomView> {
  return view(room, await chatRoomStub(env, room).read(agentId, limit));
}

export async function readAfter(env: Env, room: string, agentId: string, afterMs: number, limit: number): Promise<RoomView> {
  return view(room, await chatRoomStub(env, room).readAfter(agentId, afterMs, limit));
}

export async function joinRoom(env: Env, room: string, agent: { id: string; handle: string }, role: JoinRole) {
  return (await chatRoomStub(env, room).join(agent.id, agent.handle, role)) as MembershipRecord;
}

export async function leaveRoom(env: Env, room: string, agentId: string): Promise<boolean> {
  return chatRoomStub(env, room).leave(agentId);
}

export async function roomMembers(env: Env, room: string, prefix: string, limit: number) {
  return (await chatRoomStub(env, room).members(prefix, limit)) as MemberRecord[];
}
