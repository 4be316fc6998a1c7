// What the MCP-server test files share: the shipped directory and an EXPERT agent to read it,
// and the readers of a harness's rendered configuration snippet.
import { env } from "cloudflare:test";
import { parse as parseToml } from "smol-toml";
import { parse as parseYaml } from "yaml";
import JSON5 from "json5";
import { newAgent, setPlanDirect, type TestAgent } from "../helpers";
import { loadMcpServers } from "../../src/mcp-servers/seed";
import { HARNESSES } from "../../src/harnesses/setup.data";
import type { HarnessMcpConfig } from "../../src/harnesses/mcp-config";
import seedText from "../../data/mcp-servers.json?raw";

export const SEED = JSON.parse(seedText) as { name: string; tools?: unknown[]; remotes?: unknown[]; packages?: unknown[] }[];

export function parseSnippet(c: HarnessMcpConfig): any {
  switch (c.format) {
    case "json":
      return JSON.parse(c.snippet!);
    case "json5":
      return JSON5.parse(c.snippet!);
    case "toml":
      return parseToml(c.snippet!);
    case "yaml":
      return parseYaml(c.snippet!);
    default:
      throw new Error(`no format for ${c.harness}`);
  }
}

/** The server entry inside a parsed snippet, following the harness's path (mcpServers, mcp.servers, mcp_servers …). */
export function entryOf(c: HarnessMcpConfig, doc: any, key: string) {
  const facts = (HARNESSES.find((h) => h.id === c.harness) as any).mcpConfig;
  let node = doc;
  for (const k of facts.path) node = node[k];
  return node[key];
}

/** Loads the shipped directory and makes an EXPERT agent (a file's beforeAll). */
export async function loadDirectory(): Promise<TestAgent> {
  await loadMcpServers(env, seedText);
  const agent = await newAgent();
  await setPlanDirect(agent.owner.ownerId, "EXPERT");
  return agent;
}
