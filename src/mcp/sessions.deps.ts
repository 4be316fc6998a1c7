// What a session object needs beyond itself, in one module it loads with `import()` (sessions.do.ts).
export { accountStub, quotaGate } from "../quota";
export { storeActivity } from "../sync";
export { serveMcp } from "./endpoint";
export { admitMessage, KeyRefused } from "../core/mcp-tools";
export { BENCH_SLOT_HEADER, recordingInside } from "../core/bench-replay";
