import { Hono } from "hono";
import { invoke } from "../../core/invoke";
import { harnessSetup, listHarnesses } from "../../setup";
import { cliInfo } from "../../setup";
import { CopyBlock } from "../components";
import { fixedContent, page } from "../render";
import { webOp, type WebContext, type WebEnv } from "../web.context";

/** "Connect your harness": public (the landing links here), in the dashboard's tabs when signed in. */
export const connectPages = new Hono<WebEnv>();

const PUBLIC_CACHE = "public, max-age=300";

function KeyStep({ c }: { c: WebContext }) {
  return c.get("owner") ? (
    <p>
      Put an agent key in <code>LORE_API_KEY</code> (<a href="/dashboard/agents">create an agent or a key</a>; the key is shown once, with
      the <code>export</code> line to copy).
    </p>
  ) : (
    <p>
      <a href="/signup">Sign up</a> or <a href="/login">log in</a>, create an agent, and put its key in <code>LORE_API_KEY</code>.
    </p>
  );
}

/**
 * lore-setup from this server: the command (npx of the content-addressed package, from a fresh
 * folder, on the project), the tarball's SHA-512, and what a check of it can and cannot prove.
 */
function SetupCli({ origin, harness }: { origin: string; harness?: string }) {
  const cli = cliInfo(origin);
  const command = harness ? cli.command.replace(" --dry-run)", ` --harness ${harness} --dry-run)`) : cli.command;
  return (
    <>
      <p>
        In the project's folder, with the key in <code>LORE_API_KEY</code>, <code>lore-setup</code> shows what it would write as a diff (
        <code>--yes</code> instead of <code>--dry-run</code> applies it). It needs only Node: npx downloads it from this server, into and
        from a fresh folder, so nothing of the project's (its <code>.npmrc</code>, its <code>node_modules/.bin</code>) takes part.
      </p>
      <CopyBlock id="setup-cli" text={command} label="the lore-setup command" />
      <p class="small muted">
        {`${cli.name} ${cli.version}, ${cli.size} bytes. The address names the tarball's SHA-512, so npx never reruns an older download under it: `}
        <code id="setup-cli-sha512">{cli.sha512}</code>
        {" (npm's form: "}
        <code id="setup-cli-integrity">{cli.integrity}</code>
        {"). npx does not check it; to check a download yourself: "}
        <code>{`curl -fsS "${cli.url}" | sha512sum`}</code>
        {
          ". A check proves the bytes are the ones this page names, not that this server is honest: it supplies both. lore-setup writes only the harness's MCP configuration and instruction files."
        }
      </p>
    </>
  );
}

// Both pages are made of shipped data (the harnesses, lore-setup's package), the origin and
// whether someone is signed in (the key step): rendered once per isolate and key (fixedContent, render.tsx).
const signedIn = (c: WebContext) => (c.get("owner") ? "owner" : "visitor");

connectPages.get("/", async (c) => {
  const origin = new URL(c.req.url).origin;
  const { title, content } = await fixedContent(`connect\u0000${origin}\u0000${signedIn(c)}`, async () => {
    const { items } = await invoke(listHarnesses, webOp(c));
    const mcp = `${origin}/v1/mcp`;
    return {
      title: "Connect your harness",
      content: (
        <>
          <h1>Connect your harness</h1>
          <section class="card">
            <h2>1. Your key</h2>
            <KeyStep c={c} />
            <h2>2. Lore's MCP endpoint</h2>
            <CopyBlock id="mcp-url" text={mcp} label="the MCP endpoint" />
            <p class="small muted">
              Streamable HTTP. Send the key as <code>Authorization: Bearer $LORE_API_KEY</code>.
            </p>
            <h2>3. Set up a project with lore-setup</h2>
            <SetupCli origin={origin} />
            <h2>4. Or by hand, per harness</h2>
            <ul class="grid plain">
              {items.map((h) => (
                <li class="card">
                  <a href={`/connect/${h.harness}`}>{h.name}</a>
                </li>
              ))}
            </ul>
          </section>
        </>
      ),
    };
  });
  c.header("cache-control", PUBLIC_CACHE);
  return page(c, { title, section: "connect", script: true }, content);
});

connectPages.get("/:harness", async (c) => {
  const harness = c.req.param("harness");
  const origin = new URL(c.req.url).origin;
  // Only a harness the operation knows is kept (it throws NOT_FOUND for the rest, caching nothing).
  const { title, content } = await fixedContent(`connect\u0000${origin}\u0000${signedIn(c)}\u0000${harness}`, async () => {
    const h = await invoke(harnessSetup, webOp(c), { params: { harness } });
    return {
      title: `Connect ${h.name}`,
      content: (
        <>
          <p class="small">
            <a href="/connect">All harnesses</a>
          </p>
          <h1>Connect {h.name}</h1>
          <section class="card">
            <h2>1. Your key</h2>
            <KeyStep c={c} />
            <h2>The quick way: lore-setup (steps 2 and 3 for you)</h2>
            <SetupCli origin={origin} harness={h.harness} />
            {h.mcp.snippet ? (
              <>
                <h2>2. Add Lore's MCP server</h2>
                {h.mcp.cli ? (
                  <>
                    <p>With the CLI:</p>
                    <CopyBlock id="mcp-cli" text={h.mcp.cli} label="the CLI command" />
                  </>
                ) : null}
                <p>
                  {h.mcp.cli ? "Or in " : "In "}
                  {h.mcp.file ? <code>{h.mcp.file}</code> : "its configuration"}
                  {h.mcp.format ? ` (${h.mcp.format})` : ""}:
                </p>
                <CopyBlock id="mcp-snippet" text={h.mcp.snippet} label="the configuration snippet" />
                <p class="small muted">The configuration names the variable, not the key, so the key never lands in a file.</p>
              </>
            ) : (
              <>
                <h2>2. Use Lore's HTTP API</h2>
                <p>
                  {h.name} has no MCP client, so it cannot use Lore's MCP endpoint. It can call the REST API with the key from the
                  environment:
                </p>
                <CopyBlock
                  id="api-example"
                  text={`curl -s ${origin}/v1/usage/today -H "Authorization: Bearer $LORE_API_KEY"`}
                  label="the example command"
                />
                <p class="small muted">
                  Every route is in the <a href="/v1/openapi.json">OpenAPI document</a>.
                </p>
              </>
            )}
            <h2>3. Instructions and skills</h2>
            <ul>
              <li>
                Instruction files it reads:{" "}
                {h.instructionFiles.map((f, i) => (
                  <>
                    {i > 0 ? ", " : ""}
                    <code>{f}</code>
                  </>
                ))}
              </li>
              <li>Skills folder: {h.skillsDir ? <code>{h.skillsDir}</code> : "none"}</li>
              {h.skillInstall ? <li>Installing a skill: {h.skillInstall}</li> : null}
              <li>
                Lore's own skill: <a href="/v1/start-here.md">start-here.md</a>
              </li>
            </ul>
            {h.notes.length ? (
              <>
                <h2>Notes</h2>
                <ul>
                  {h.notes.map((n) => (
                    <li>{n}</li>
                  ))}
                </ul>
              </>
            ) : null}
            <p class="small muted">
              {`As of ${h.asOfDate}. The same data as JSON: `}
              <a href={`/v1/setup/${h.harness}`}>{`/v1/setup/${h.harness}`}</a>
            </p>
          </section>
        </>
      ),
    };
  });
  c.header("cache-control", PUBLIC_CACHE);
  return page(c, { title, section: "connect", script: true }, content);
});
