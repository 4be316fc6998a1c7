/**
 * What the chat area offers the others: the only file another area (or the top floor) imports
 * from it (test/platform/floors.test.ts).
 */
export { ChatRoom } from "./chat.do";
export { chatOperations } from "./chat.ops";
export { mentionOut } from "./chat.schemas";
export { pruneReadMentions, unreadMentionsRead } from "./chat.service";
