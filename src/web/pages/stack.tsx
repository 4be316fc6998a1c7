import { Hono } from "hono";
import { invoke } from "../../core/invoke";
import { getStack, listStack } from "../../sync";
import { Pager, utc } from "../components";
import { page } from "../render";
import { webOp, type WebEnv } from "../web.context";

/** The stacks the owner's agents reported in their syncs (GET /v1/stack, /v1/stack/<agentId>). */
export const stackPages = new Hono<WebEnv>();

const statusBadge = (s: string | null) => (s === "passed" ? "badge ok" : s === "warn" ? "badge warn" : s === null ? "badge" : "badge bad");

stackPages.get("/stack", async (c) => {
  const pageNo = c.req.query("page") ?? "1";
  const list = await invoke(listStack, webOp(c), { query: { page: pageNo, perPage: "20" } });
  return page(
    c,
    { title: "Stack", section: "stack" },
    <>
      <h1>Reported stacks</h1>
      <p class="muted">
        What each agent reported in its last sync: dependencies (names and versions only, never code) and installed skills. An agent syncs
        with <code>service_sync</code> at the start of a session.
      </p>
      {list.total === 0 ? <p class="muted">No agents yet.</p> : null}
      {list.items.map((a) => (
        <section class="card stack" aria-labelledby={`st-${a.agent.id}`}>
          <h2 id={`st-${a.agent.id}`}>
            @{a.agent.handle}
            {a.agent.name ? <span class="muted">{` · ${a.agent.name}`}</span> : null}
          </h2>
          {a.lastSyncAt === null ? (
            <p class="muted">Never synced. Its harness setup is on the Connect page; its first sync stores its stack.</p>
          ) : (
            <>
              <p class="small muted">
                {`Last sync ${utc(a.lastSyncAt)} · last full refresh ${utc(a.lastFullRefreshAt)} · next ${utc(a.nextRefreshAt)} · ${a.syncs} syncs · stack reported ${utc(a.stackReportedAt)}`}
              </p>
              <p>
                {a.stack.length} dependencies in {a.topics} topics; {a.installedSkills.length} installed skills.{" "}
                <a
                  href={`/dashboard/stack/${encodeURIComponent(a.agent.id)}`}
                >{`Freshness and advisories of @${a.agent.handle}'s stack`}</a>
              </p>
              {a.stack.length ? (
                <details>
                  <summary>Dependencies</summary>
                  <div class="table">
                    <table>
                      <caption class="sr">Dependencies of @{a.agent.handle}</caption>
                      <thead>
                        <tr>
                          <th scope="col">Package</th>
                          <th scope="col">Version</th>
                          <th scope="col">Ecosystem</th>
                          <th scope="col">Topic</th>
                        </tr>
                      </thead>
                      <tbody>
                        {a.stack.map((e) => (
                          <tr>
                            <td>
                              <code>{e.name}</code>
                            </td>
                            <td>{e.version}</td>
                            <td>{e.ecosystem}</td>
                            <td>{e.tracked ? e.topic : <span class="muted">{`${e.topic} (not tracked)`}</span>}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                </details>
              ) : null}
              {a.installedSkills.length ? <p class="small">Skills: {a.installedSkills.join(", ")}</p> : null}
            </>
          )}
        </section>
      ))}
      <Pager base="/dashboard/stack" page={list.page} perPage={list.perPage} total={list.total} />
    </>,
  );
});

stackPages.get("/stack/:agentId", async (c) => {
  const s = await invoke(getStack, webOp(c), { params: { agentId: c.req.param("agentId") } });
  const vulnerable = s.entries.filter((e) => e.vulnerabilities.length);
  const behind = s.entries.filter((e) => (e.releasesBehind ?? 0) > 0);
  return page(
    c,
    { title: `Stack of @${s.agent.handle}`, section: "stack" },
    <>
      <p class="small">
        <a href="/dashboard/stack">All stacks</a>
      </p>
      <h1>Stack of @{s.agent.handle}</h1>
      <p class="small muted">{`Reported ${utc(s.stackReportedAt)} · last sync ${utc(s.lastSyncAt)} · next full refresh ${utc(s.nextRefreshAt)}`}</p>
      <p>
        {vulnerable.length ? (
          <span class="badge bad">{`${vulnerable.length} vulnerable ${vulnerable.length === 1 ? "dependency" : "dependencies"}`}</span>
        ) : (
          <span class="badge ok">no known advisory</span>
        )}{" "}
        {`${behind.length} of ${s.entries.length} dependencies have newer releases.`}
      </p>
      <section class="card" aria-labelledby="deps-h">
        <h2 id="deps-h">Dependencies</h2>
        {s.entries.length === 0 ? <p class="muted">No stack reported yet.</p> : null}
        <div class="table">
          <table>
            <thead>
              <tr>
                <th scope="col">Package</th>
                <th scope="col">Version</th>
                <th scope="col">Latest</th>
                <th scope="col" class="num">
                  Releases behind
                </th>
                <th scope="col" class="num">
                  Breaking
                </th>
                <th scope="col">Advisories</th>
              </tr>
            </thead>
            <tbody>
              {s.entries.map((e) => (
                <tr>
                  <td>
                    <code>{e.name}</code> <span class="muted small">{e.ecosystem}</span>
                  </td>
                  <td>{e.version}</td>
                  <td>{e.latestVersion ?? <span class="muted">{e.tracked ? "—" : "not tracked"}</span>}</td>
                  <td class="num">{e.releasesBehind ?? "—"}</td>
                  <td class="num">{e.breaking ?? "—"}</td>
                  <td>
                    {e.vulnerabilities.map((v) => (
                      <span class="badge bad">{`${v.id}${v.severity ? ` ${v.severity}` : ""}${v.fixedVersions.length ? ` → ${v.fixedVersions.join(", ")}` : ""}`}</span>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <section class="card" aria-labelledby="skills-h">
        <h2 id="skills-h">Installed skills</h2>
        {s.installedSkills.length === 0 ? <p class="muted">None reported.</p> : null}
        <ul class="plain">
          {s.installedSkills.map((k) => (
            <li>
              <code>{k.name}</code>{" "}
              <span class={statusBadge(k.securityStatus)}>{k.known ? (k.securityStatus ?? "unknown") : "not in Lore's catalog"}</span>
              {k.known && !k.listed ? <span class="small muted"> · not installable any more: remove it</span> : null}
            </li>
          ))}
        </ul>
      </section>
    </>,
  );
});
