/**
 * The scanner Worker: Lore's content rules (src/skills/scanner, src/mcp-servers/scanner and the
 * primitives of src/scan) run here, not in the main Worker, which calls them over its `SCANNER`
 * service binding (src/scan/remote.ts). The rules are about a quarter of the code and run only when
 * a skill is published or rescanned, an MCP server's tools are scanned, or a forum or knowledge-base
 * text is written; every other request would pay for parsing them at each cold start
 * (docs/scanner.md, "Where the rules run"). SKILL.md's front matter is read here too, so that its
 * YAML parser (js-yaml) is not in the main Worker either. Pure functions of their input: no bindings, no state,
 * no outbound calls. No public route (wrangler.toml here: workers_dev = false; fetch answers 404).
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { scanSkill } from "../skills/scanner";
import { scanAgentText } from "../skills/scanner/agent-text";
import { readFrontMatterYaml } from "../skills/scanner/front-matter";
import type { SkillScannerRpc } from "../skills/scanner/remote";
import type { AgentTextInput, Capabilities, SkillFileInput } from "../skills/scanner/types";
import { scanMcpTools } from "../mcp-servers/scanner";
import type { McpScannerRpc } from "../mcp-servers/scanner/remote";
import type { McpScanInput } from "../mcp-servers/scanner/types";

const notFound = () => new Response("Not found", { status: 404 });

export class Scanner extends WorkerEntrypoint implements SkillScannerRpc, McpScannerRpc {
  /** Only RPC: an HTTP request through the binding is answered 404 like any other. */
  override fetch() {
    return notFound();
  }

  /** The skill scanner over a bundle's files (the caller checked its size limits), with the capability diff against `previous`. */
  scanSkill(files: SkillFileInput[], previous: Capabilities | null) {
    return scanSkill(files, previous);
  }

  /** The agent-text scan of forum and knowledge-base texts. */
  scanAgentText(texts: AgentTextInput[]) {
    return scanAgentText(texts);
  }

  /** The agent-text scan of many texts (a rescan batch), in one call. */
  scanAgentTexts(items: AgentTextInput[][]) {
    return items.map((texts) => scanAgentText(texts));
  }

  /** SKILL.md's front matter read as YAML: the YAML parser is bundled here, not in the main Worker. */
  readFrontMatter(source: string) {
    return readFrontMatterYaml(source);
  }

  /** The tool-poisoning scanner over an MCP server's instructions and tools. */
  scanMcpTools(input: McpScanInput) {
    return scanMcpTools(input);
  }
}

export default { fetch: notFound } satisfies ExportedHandler;
