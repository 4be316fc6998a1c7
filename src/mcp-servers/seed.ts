/**
 * The shipped directory (data/mcp-servers.json): real servers' server.json facts and the tools
 * Lore read from each one's source, loaded through the same upsert the registry ingest uses (so
 * every record is scanned on load). A record that does not parse is a bug in the shipped file and
 * stops the load with its reason.
 */
import type { Env } from "../env";
import { now } from "../core/clock";
import { parseSeedRecord, type ServerRecord } from "./records";
import { upsertServers } from "./store";

const CHUNK = 25;

export async function loadMcpServers(env: Env, text: string): Promise<{ rows: number }> {
  const list = JSON.parse(text) as unknown;
  if (!Array.isArray(list)) throw new Error("data/mcp-servers.json must be an array of server records");
  const records: ServerRecord[] = list.map((x, i) => {
    const r = parseSeedRecord(x);
    if (!r.ok) throw new Error(`data/mcp-servers.json record ${i}: ${r.reason}`);
    return r.record;
  });
  const at = now();
  for (let i = 0; i < records.length; i += CHUNK) await upsertServers(env, records.slice(i, i + CHUNK), { at, reason: "seed" });
  return { rows: records.length };
}
