/**
 * The install answer: the command a person (or an agent) runs, for the harness it uses. The
 * command is the `skills` CLI reading Lore's discovery index with the harness's agent id
 * (`data/harnesses.json` → `skillsCli`, taken from the CLI's own source). Harnesses the CLI does
 * not know get a plain download into the folder the harness reads; a harness with no skills at
 * all gets a 409 that says so rather than a command that cannot work.
 */
import { ApiError } from "../core/errors";
import { HARNESSES, type HarnessSetup } from "../harnesses/setup.data";

export interface InstallTarget {
  name: string;
  artifactType: "skill-md" | "archive";
  /** `sha256:<hex>` of the artifact. */
  digest: string;
  files: { path: string; size: number; digest: string }[];
}

export interface InstallAnswer {
  command: string;
  harness: string | null;
  agent: string | null;
  installDir: string;
  files: { path: string; url: string; size: number; digest: string }[];
  notes: string[];
}

const quote = (s: string) => (/^[\w@%+=:,./~-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`);

/** Harnesses the CLI's `universal` agent (`.agents/skills`) reaches, for the no-harness answer. */
const READS_AGENTS_DIR = HARNESSES.filter((h) => h.skillsCli?.dir === ".agents/skills").map((h) => h.id);

/** False for a harness that cannot load skills at all (its install answer is a 409). */
export const harnessLoadsSkills = (harnessId?: string) => !harnessId || !!HARNESSES.find((h) => h.id === harnessId)?.skillsDir;

export function installAnswer(origin: string, skill: InstallTarget, harnessId?: string): InstallAnswer {
  const base = `${origin}/.well-known/agent-skills/${skill.name}`;
  const files = skill.files.map((f) => ({ path: f.path, url: `${base}/${f.path}`, size: f.size, digest: `sha256:${f.digest}` }));
  const harness: HarnessSetup | undefined = harnessId ? HARNESSES.find((h) => h.id === harnessId) : undefined;
  const cli = (agent: string, global: boolean) =>
    `npx skills add ${quote(origin)} --skill ${skill.name} -a ${agent}${global ? " -g" : ""} -y`;

  if (!harness) {
    return {
      command: cli("universal", false),
      harness: null,
      agent: "universal",
      installDir: `.agents/skills/${skill.name}`,
      files,
      notes: [
        `Installs into .agents/skills/${skill.name}, which ${READS_AGENTS_DIR.join(", ")} read. Pass a harness for its own folder (Claude Code, for one, does not read .agents/skills).`,
        `The CLI checks the artifact against the index digest ${skill.digest} before writing anything.`,
      ],
    };
  }
  if (!harness.skillsDir) {
    throw new ApiError(
      "CONFLICT",
      `${harness.name} has no Agent Skills support: it cannot load a SKILL.md folder, so there is nothing to install into it`,
      {
        harness: harness.id,
        supported: false,
        files,
      },
    );
  }
  if (harness.skillsCli) {
    const { agent, global, dir } = harness.skillsCli;
    return {
      command: cli(agent, global),
      harness: harness.id,
      agent,
      installDir: `${dir}/${skill.name}`,
      files,
      notes: [
        global
          ? `${harness.name} reads skills from ${dir} (user level), so the command installs globally (-g).`
          : `Run it in the project's root folder; the files land in ${dir}/${skill.name}.`,
        `The CLI checks the artifact against the index digest ${skill.digest} before writing anything.`,
      ],
    };
  }
  // The CLI has no agent for this harness: download the verified artifact into the folder it reads.
  const dir = `${harness.skillsDir}/${skill.name}`;
  const artifact = skill.artifactType === "archive" ? `${origin}/.well-known/agent-skills/${skill.name}.tar.gz` : `${base}/SKILL.md`;
  const command =
    skill.artifactType === "archive"
      ? `mkdir -p ${quote(dir)} && curl -fsSL ${quote(artifact)} | tar -xzf - -C ${quote(dir)}`
      : `mkdir -p ${quote(dir)} && curl -fsSL ${quote(artifact)} -o ${quote(`${dir}/SKILL.md`)}`;
  return {
    command,
    harness: harness.id,
    agent: null,
    installDir: dir,
    files,
    notes: [
      `The skills CLI has no agent for ${harness.name}; this downloads the skill into ${dir}, the folder it reads.`,
      `Compare the download with ${skill.digest} (sha256sum) before use.`,
      ...(harness.skillInstall ? [`${harness.name}'s own way: ${harness.skillInstall}`] : []),
    ],
  };
}
