import { Hono } from "hono";
import type * as z from "zod/v4";
import { ApiError, badRequest } from "../../core/errors";
import { fieldErrors, invoke } from "../../core/invoke";
import { mine, mineOne, publish } from "../../skills";
import type { mySkillOut } from "../../skills";
import { MAX_BUNDLE_BYTES, MAX_FILES } from "../../skills";
import { SKILL_CATEGORIES } from "../../skills";
import { SKILL_HARNESSES } from "../../skills";
import { HARNESSES } from "../../harnesses/setup.data";
import { SEVERITIES, type Finding, type Severity } from "../../scan/types";
import { Banner, FormError, Pager, fit, num, utc, type Errors } from "../components";
import { fixedContent, page, statusOf } from "../render";
import { readMultipart, webOp, type WebContext, type WebEnv } from "../web.context";
import { base64, skillFiles, type UploadedFile } from "../upload";

/**
 * The owner's skills: the list with each skill's scan status and why it is not listed, one skill's
 * versions with their findings, and the publish form (a folder or files, `multipart/form-data`,
 * no script needed). Publishing runs the same operation as `POST /v1/me/skills`, in-process.
 * Descriptions, file names and findings' excerpts are third-party text: escaped like every string.
 */
export const skillPages = new Hono<WebEnv>();

type MySkill = z.infer<typeof mySkillOut>;
type Version = MySkill["versions"][number];

/**
 * How much of each list a page shows, and how many bytes (escaped) each piece of third-party text
 * may take: a page stays under 50 KB whatever a skill holds (test/web/web.test.ts publishes the
 * heaviest skill the operation accepts and weighs every page).
 */
const PER_PAGE = 10;
const FINDINGS_PER_PAGE = 10;
const VERSIONS_SHOWN = 20;
const FILES_SHOWN = 20;
const BYTES = { description: 1200, cardDescription: 400, excerpt: 480, message: 480, cardMessage: 300, path: 160, list: 400 } as const;
/** The upload's body: the operation's 5 MiB of files plus each part's headers and the form fields. */
const UPLOAD_LIMIT = MAX_BUNDLE_BYTES + 1024 * 1024;

const detailHref = (slug: string) => `/dashboard/skills/view/${encodeURIComponent(slug)}`;
const harnessName = new Map(HARNESSES.map((h) => [h.id, h.name]));

const STATUS = {
  passed: { badge: "ok", label: "passed" },
  warn: { badge: "warn", label: "warn" },
  flagged: { badge: "bad", label: "flagged" },
} as const;

const SEVERITY_BADGE: Record<Severity, string> = { critical: "bad", high: "bad", medium: "warn", low: "", info: "" };

function StatusBadge({ status }: { status: keyof typeof STATUS }) {
  return <span class={`badge ${STATUS[status].badge}`}>{`scan: ${STATUS[status].label}`}</span>;
}

function ListedBadge({ s }: { s: MySkill }) {
  return s.listed ? <span class="badge ok">listed</span> : <span class="badge">not listed</span>;
}

/** `2 critical, 1 medium` (worst first), or `no findings`. */
function findingsSummary(findings: readonly Finding[]): string {
  if (findings.length === 0) return "no findings";
  const counts = [...SEVERITIES].reverse().map((sev) => [sev, findings.filter((f) => f.severity === sev).length] as const);
  const parts = counts.filter(([, n]) => n > 0).map(([sev, n]) => `${num(n)} ${sev}`);
  return `${num(findings.length)} ${findings.length === 1 ? "finding" : "findings"}: ${parts.join(", ")}`;
}

/** Severity, rule and place of a finding. */
function FindingHead({ f }: { f: Finding }) {
  return (
    <>
      <span class={`badge ${SEVERITY_BADGE[f.severity]}`}>{f.severity}</span> <code>{f.ruleId}</code>{" "}
      <span class="muted">{`${fit(f.path, BYTES.path)}:${f.line}`}</span>
    </>
  );
}

function Findings({ findings, start = 0 }: { findings: readonly Finding[]; start?: number }) {
  if (findings.length === 0) return <p class="muted">The scan found nothing to report.</p>;
  return (
    <ol class="findings plain" start={start + 1}>
      {findings.map((f) => (
        <li>
          <p>
            <FindingHead f={f} />
          </p>
          <p>{fit(f.message, BYTES.message)}</p>
          {f.excerpt ? (
            <pre>
              <code>{fit(f.excerpt, BYTES.excerpt)}</code>
            </pre>
          ) : null}
        </li>
      ))}
    </ol>
  );
}

function Capabilities({ v }: { v: Version }) {
  const c = v.capabilities;
  const hosts = c.network.map((h) => (h === "*" ? "URLs built at run time" : h));
  const added = new Map(v.capabilityChanges.map((x) => [x.capability, x.added]));
  const isNew = (k: "shell" | "network" | "writesOutside" | "envVars") =>
    added.has(k) ? <span class="badge warn">new in this version</span> : null;
  return (
    <ul class="plain small">
      <li>
        {c.shell ? "Runs shell commands" : "Runs no shell commands"} {isNew("shell")}
      </li>
      <li>
        {hosts.length ? `Network: ${fit(hosts.join(", "), BYTES.list)}` : "Contacts no network host"} {isNew("network")}
      </li>
      <li>
        {c.writesOutside ? "Writes files outside the project" : "Writes only inside the project"} {isNew("writesOutside")}
      </li>
      <li>
        {c.envVars.length ? `Reads environment variables: ${fit(c.envVars.join(", "), BYTES.list)}` : "Reads no environment variables"}{" "}
        {isNew("envVars")}
      </li>
    </ul>
  );
}

/** Why the skill is (not) in the discovery index, and how agents install it when it is. */
function Listing({ s, origin }: { s: MySkill; origin: string }) {
  if (s.notListedReason) {
    return (
      <p class={`banner ${s.securityStatus === "flagged" ? "bad" : "warn"}`}>
        <strong>Not listed: </strong>
        {s.notListedReason}
      </p>
    );
  }
  return (
    <p class="small">
      Listed in <a href="/.well-known/agent-skills/index.json">the discovery index</a> and installable:{" "}
      <code>{`npx skills add ${origin} --skill ${s.name}`}</code>
    </p>
  );
}

function SkillCard({ s, origin }: { s: MySkill; origin: string }) {
  const latest = s.versions[0];
  return (
    <section class="card stack" id={`skill-${s.slug}`} aria-labelledby={`h-${s.slug}`}>
      <h2 id={`h-${s.slug}`}>
        <a href={detailHref(s.slug)}>{s.name}</a> <StatusBadge status={s.securityStatus} /> <ListedBadge s={s} />
      </h2>
      <p>{fit(s.description, BYTES.cardDescription)}</p>
      <Listing s={s} origin={origin} />
      {latest ? (
        <>
          <p class="small muted">
            {`Version ${latest.version} · published ${utc(latest.createdAt)} · ${findingsSummary(latest.findings)} · ${s.category}`}
            {s.tags.length ? ` · tags: ${s.tags.join(", ")}` : ""}
          </p>
          {latest.findings[0] ? (
            <p class="small">
              {latest.findings.length > 1 ? "Worst: " : null}
              <FindingHead f={latest.findings[0]} />
              <br />
              {fit(latest.findings[0].message, BYTES.cardMessage)}
            </p>
          ) : null}
        </>
      ) : null}
      <p>
        <a href={detailHref(s.slug)}>
          {`Scan details${latest?.findings.length ? `, ${latest.findings.length === 1 ? "the finding" : `all ${num(latest.findings.length)} findings`}` : ""} and ${s.versions.length === 1 ? "the version" : `all ${num(s.versions.length)} versions`}`}
          <span class="sr">{` of ${s.name}`}</span>
        </a>
      </p>
    </section>
  );
}

skillPages.get("/skills", async (c) => {
  const ctx = webOp(c);
  const pageNo = /^[1-9]\d{0,3}$/.test(c.req.query("page") ?? "") ? c.req.query("page")! : "1";
  const list = await invoke(mine, ctx, { query: { page: pageNo, perPage: String(PER_PAGE) } });
  return page(
    c,
    { title: "Skills", section: "skills" },
    <>
      <h1>Your skills</h1>
      <p class="row">
        <a class="button" href="/dashboard/skills/publish">
          Publish a skill
        </a>
      </p>
      <p class="muted small">
        Every version is scanned before anything is visible. Only a skill whose latest version <strong>passed</strong> is listed in the
        discovery index and installable by agents; a warn or flagged version takes the skill out until a new version passes.
      </p>
      {list.total === 0 ? (
        <p class="muted">
          No skills yet. <a href="/dashboard/skills/publish">Publish one</a>: a folder with a <code>SKILL.md</code> and its files.
        </p>
      ) : (
        <h2 class="sr">{`${num(list.total)} ${list.total === 1 ? "skill" : "skills"}`}</h2>
      )}
      {list.items.map((s) => (
        <SkillCard s={s} origin={ctx.origin} />
      ))}
      <Pager base="/dashboard/skills" page={list.page} perPage={list.perPage} total={list.total} />
    </>,
  );
});

// ---- one skill: its versions and one version's findings -----------------------------------------

const PUBLISHED = (v: Version, s: MySkill) =>
  v.status === "passed" && s.listed
    ? `Published version ${v.version}. The scan passed: the skill is listed and agents can install it.`
    : `Published version ${v.version}. The scan says ${v.status}: the skill is not listed (see why below).`;

skillPages.get("/skills/view/:slug", async (c) => {
  const ctx = webOp(c);
  const s = await invoke(mineOne, ctx, { params: { slug: c.req.param("slug") } });
  const seq = c.req.query("version");
  const v = (seq && s.versions.find((x) => String(x.seq) === seq)) || s.versions[0];
  const justPublished = c.req.query("done") === "published" && v !== undefined;
  const findingsPage = v
    ? Math.min(
        Math.max(1, Number.parseInt(c.req.query("page") ?? "1", 10) || 1),
        Math.max(1, Math.ceil(v.findings.length / FINDINGS_PER_PAGE)),
      )
    : 1;
  const shown = s.versions.slice(0, VERSIONS_SHOWN);
  const base = detailHref(s.slug);
  return page(
    c,
    { title: s.name, section: "skills" },
    <>
      <p class="small">
        <a href="/dashboard/skills">Your skills</a>
      </p>
      <h1>
        {s.name} <StatusBadge status={s.securityStatus} /> <ListedBadge s={s} />
      </h1>
      {justPublished ? <Banner kind={v.status === "passed" ? "ok" : v.status === "warn" ? "warn" : "bad"}>{PUBLISHED(v, s)}</Banner> : null}
      <p>{fit(s.description, BYTES.description)}</p>
      <Listing s={s} origin={ctx.origin} />
      <p class="small muted">
        {`Category ${s.category} · ${s.harnesses.length} ${s.harnesses.length === 1 ? "harness" : "harnesses"}: ${s.harnesses.map((h) => harnessName.get(h) ?? h).join(", ")}`}
        {s.tags.length ? ` · tags: ${s.tags.join(", ")}` : ""}
        {` · ${num(s.installs)} installs`}
      </p>
      {v ? (
        <section class="card stack" aria-labelledby="ver-h">
          <h2 id="ver-h">
            {`Version ${v.version}`} <StatusBadge status={v.status} />
          </h2>
          <p class="small muted">
            {`Published ${utc(v.createdAt)} · scanned ${utc(v.scannedAt)} with ruleset ${v.rulesetVersion} · ${v.artifact.type === "archive" ? "archive" : "SKILL.md only"}, ${num(v.artifact.size)} bytes`}
            <br />
            <code class="digest">{v.scanHash}</code>
          </p>
          <h3>What it can do</h3>
          <Capabilities v={v} />
          <details>
            <summary>{`${v.files.length} ${v.files.length === 1 ? "file" : "files"}`}</summary>
            <ul class="plain small">
              {v.files.slice(0, FILES_SHOWN).map((f) => (
                <li>
                  <code>{fit(f.path, BYTES.path)}</code> <span class="muted">{`${num(f.size)} bytes`}</span>
                </li>
              ))}
            </ul>
            {v.files.length > FILES_SHOWN ? <p class="small muted">{`The first ${FILES_SHOWN} of ${num(v.files.length)} files.`}</p> : null}
          </details>
          <h3 id="findings">{v.findings.length ? findingsSummary(v.findings) : "No findings"}</h3>
          <Findings
            findings={v.findings.slice((findingsPage - 1) * FINDINGS_PER_PAGE, findingsPage * FINDINGS_PER_PAGE)}
            start={(findingsPage - 1) * FINDINGS_PER_PAGE}
          />
          <Pager
            base={`${base}?version=${v.seq}`}
            page={findingsPage}
            perPage={FINDINGS_PER_PAGE}
            total={v.findings.length}
            label="Pages of findings"
          />
        </section>
      ) : null}
      <section class="card" aria-labelledby="vers-h">
        <h2 id="vers-h">Versions</h2>
        <div class="table">
          <table>
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Scan</th>
                <th scope="col" class="num">
                  Findings
                </th>
                <th scope="col">Published</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((x) => (
                <tr class={x === v ? "current" : undefined}>
                  <td>
                    <a href={`${base}?version=${x.seq}`} aria-current={x === v ? "true" : undefined}>
                      {x.version}
                    </a>
                  </td>
                  <td>
                    <StatusBadge status={x.status} />
                  </td>
                  <td class="num">{num(x.findings.length)}</td>
                  <td>{utc(x.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {s.versions.length > shown.length ? (
          <p class="small muted">{`The ${VERSIONS_SHOWN} latest of ${num(s.versions.length)} versions.`}</p>
        ) : null}
      </section>
      <p>
        <a class="button secondary" href="/dashboard/skills/publish">
          Publish a new version
        </a>
      </p>
    </>,
  );
});

// ---- publish ----------------------------------------------------------------------------------

interface PublishState {
  values: { category?: string; tags?: string; harnesses?: string[] };
  errors: Errors;
}

function Err({ id, msg }: { id: string; msg?: string }) {
  return msg ? (
    <p class="error" id={`${id}-err`}>
      {msg}
    </p>
  ) : null;
}

const describedBy = (id: string, msg: string | undefined, hint = true) =>
  [hint ? `${id}-hint` : "", msg ? `${id}-err` : ""].filter(Boolean).join(" ") || undefined;

function publishPage(c: WebContext, state: PublishState, status: 200 | 400 | 409 | 413 | 415 | 429 = 200) {
  return page(c, { title: "Publish a skill", section: "skills" }, publishForm(state), status);
}

function publishForm({ values, errors }: PublishState) {
  const harnesses = values.harnesses ?? SKILL_HARNESSES;
  return (
    <>
      <p class="small">
        <a href="/dashboard/skills">Your skills</a>
      </p>
      <h1>Publish a skill</h1>
      <p class="muted small">
        A skill is a folder with a <code>SKILL.md</code> (YAML front matter with <code>name</code> and <code>description</code>) and the
        files it uses. Publishing the same name again adds a version. Each version is scanned before anything is visible; only a passed one
        is listed and installable.
      </p>
      <form method="post" action="/dashboard/skills/publish" enctype="multipart/form-data" class="card" novalidate>
        <FormError errors={errors} />
        <fieldset aria-describedby={describedBy("files", errors.files)}>
          <legend>Files</legend>
          <p class="hint" id="files-hint">
            {`Choose the skill's folder (the one that holds SKILL.md), or its files, or both. At most ${MAX_FILES} files and ${MAX_BUNDLE_BYTES / 1024 / 1024} MiB in all. System files (.DS_Store, Thumbs.db, .git) are left out.`}
          </p>
          <div class="field">
            <label for="f-folder">A folder</label>
            <input id="f-folder" type="file" name="folder" multiple webkitdirectory="" aria-invalid={errors.files ? "true" : undefined} />
          </div>
          <div class="field">
            <label for="f-files">Files (SKILL.md and the files beside it)</label>
            <input id="f-files" type="file" name="files" multiple aria-invalid={errors.files ? "true" : undefined} />
          </div>
          <Err id="files" msg={errors.files} />
          {Object.keys(errors).length ? <p class="hint">Browsers do not keep chosen files after an error: choose them again.</p> : null}
        </fieldset>
        <div class="field">
          <label for="f-category">Category</label>
          <select
            id="f-category"
            name="category"
            aria-invalid={errors.category ? "true" : undefined}
            aria-describedby={describedBy("f-category", errors.category)}
          >
            <option value="" selected={!values.category}>
              From SKILL.md (metadata.category)
            </option>
            {SKILL_CATEGORIES.map((cat) => (
              <option value={cat.slug} selected={values.category === cat.slug}>
                {cat.name}
              </option>
            ))}
          </select>
          <p class="hint" id="f-category-hint">
            Where agents find it in the catalog.
          </p>
          <Err id="f-category" msg={errors.category} />
        </div>
        <fieldset aria-describedby={describedBy("harnesses", errors.harnesses)}>
          <legend>Harnesses it is meant for</legend>
          <p class="hint" id="harnesses-hint">
            None checked means every harness that loads skills.
          </p>
          <div class="checks">
            {SKILL_HARNESSES.map((h) => (
              <label class="choice">
                <input type="checkbox" name="harnesses" value={h} checked={harnesses.includes(h)} />
                <span>{harnessName.get(h) ?? h}</span>
              </label>
            ))}
          </div>
          <Err id="harnesses" msg={errors.harnesses} />
        </fieldset>
        <div class="field">
          <label for="f-tags">Tags (optional)</label>
          <input
            id="f-tags"
            type="text"
            name="tags"
            value={values.tags}
            autocomplete="off"
            aria-invalid={errors.tags ? "true" : undefined}
            aria-describedby={describedBy("f-tags", errors.tags)}
          />
          <p class="hint" id="f-tags-hint">
            Topics, separated by commas or spaces (react, drizzle-orm, fastapi): agents whose stack uses them get the skill recommended.
            Merged with the front matter's metadata.tags.
          </p>
          <Err id="f-tags" msg={errors.tags} />
        </div>
        <button id="publish" type="submit">
          Publish and scan
        </button>
      </form>
    </>
  );
}

// The empty form is the same for everyone: rendered once per isolate.
skillPages.get("/skills/publish", async (c) => {
  const { title, content } = await fixedContent("publish-form", () => ({
    title: "Publish a skill",
    content: publishForm({ values: {}, errors: {} }),
  }));
  return page(c, { title, section: "skills" }, content);
});

/** `files.3.path` → `files`, `body.tags.0` → `tags`: each message goes next to the field it is about. */
function errorsByField(err: ApiError): Errors {
  const out: Errors = {};
  for (const [path, msg] of Object.entries(fieldErrors(err))) {
    const field = path.split(".")[0]!;
    const key = ["files", "category", "harnesses", "tags"].includes(field) ? field : "_form";
    out[key] ??= msg;
  }
  return out;
}

const files = async (form: FormData, name: string): Promise<UploadedFile[]> => {
  const out: UploadedFile[] = [];
  for (const v of form.getAll(name)) {
    // A file input left empty still sends one part, with no name and no bytes.
    if (typeof v === "string" || (v.name === "" && v.size === 0)) continue;
    out.push({ name: v.name, bytes: new Uint8Array(await v.arrayBuffer()) });
  }
  return out;
};

skillPages.post("/skills/publish", async (c) => {
  const text = (form: FormData, name: string) => {
    const v = form.get(name);
    return typeof v === "string" ? v : "";
  };
  let values: PublishState["values"] = {};
  try {
    const form = await readMultipart(c, UPLOAD_LIMIT).catch((e: unknown) => {
      if (e instanceof ApiError && e.code === "PAYLOAD_TOO_LARGE") {
        throw new ApiError(
          "PAYLOAD_TOO_LARGE",
          `The upload is over ${UPLOAD_LIMIT / 1024 / 1024} MiB: a skill's files total at most ${MAX_BUNDLE_BYTES / 1024 / 1024} MiB`,
          { limit: UPLOAD_LIMIT },
        );
      }
      throw e;
    });
    const harnesses = form.getAll("harnesses").filter((h): h is string => typeof h === "string");
    values = { category: text(form, "category"), tags: text(form, "tags"), harnesses };
    const { files: skill } = skillFiles(await files(form, "folder"), await files(form, "files"));
    // Nothing chosen is a form mistake, said in the form's words (the operation would say "at least 1 item").
    if (skill.length === 0) throw badRequest("Choose the skill's folder, or SKILL.md and its files", ["files"]);
    const tags = values.tags!.split(/[\s,]+/).filter(Boolean);
    const out = await invoke(publish, webOp(c), {
      body: {
        ...(values.category ? { category: values.category } : {}),
        ...(harnesses.length ? { harnesses } : {}),
        ...(tags.length ? { tags } : {}),
        files: skill.map((f) => ({ path: f.path, content: base64(f.bytes), encoding: "base64" })),
      },
    });
    return c.redirect(`${detailHref(out.skill.slug)}?version=${out.version.seq}&done=published`, 303);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.code === "PAYLOAD_TOO_LARGE") return publishPage(c, { values, errors: { files: err.message } }, 413);
    if (err.code === "UNSUPPORTED_MEDIA_TYPE") return publishPage(c, { values, errors: { _form: err.message } }, 415);
    // The plan's daily publishes, or the skill's versions of the day: said in the form, with its headers.
    if (err.code === "RATE_LIMITED") {
      const res = publishPage(c, { values, errors: { _form: err.message } }, 429);
      for (const [k, v] of Object.entries(err.headers)) res.headers.set(k, v);
      return res;
    }
    if (err.code !== "VALIDATION_FAILED" && err.code !== "CONFLICT") throw err;
    const errors = err.code === "VALIDATION_FAILED" ? errorsByField(err) : { files: err.message };
    return publishPage(c, { values, errors }, statusOf(err) as 400 | 409);
  }
});
