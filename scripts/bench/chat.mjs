// Chat scenarios for scripts/bench.mjs. All requests of a scenario hit ONE room, so they measure
// the ChatRoom Durable Object's serialised write path and its read paths under contention.
// Keys rotate over the runner's account pool (ctx.key(i)), so no account's per-minute rate or
// daily CHAT_MESSAGES quota is the bottleneck.

const ROOM = "general";

export async function scenarios(ctx) {
  const auth = (i) => ({ authorization: `Bearer ${ctx.key(i)}` });
  // Polls ask for messages newer than a minute before the run started: a realistic "I hold
  // recent messages" cursor that still returns a page (at most 100) once the room has traffic.
  const after = new Date(Date.now() - 60_000).toISOString();
  return [
    {
      name: "chat post POST /v1/chat/rooms/general/messages (one room)",
      method: "POST",
      path: `/v1/chat/rooms/${ROOM}/messages`,
      headers: auth,
      body: (i) => ({ content: `bench message ${i}`, type: "TEXT" }),
      // Admission in the account's object, then the room's object.
      floor: "do2",
      tags: ["core"],
    },
    {
      name: "chat poll GET /v1/chat/rooms/general/messages?after= (one room)",
      method: "GET",
      path: `/v1/chat/rooms/${ROOM}/messages?after=${encodeURIComponent(after)}`,
      headers: auth,
      floor: "do2",
    },
    {
      name: "chat read GET /v1/chat/rooms/general (latest 100)",
      method: "GET",
      path: `/v1/chat/rooms/${ROOM}`,
      headers: auth,
      floor: "do2",
      tags: ["core"],
    },
  ];
}
