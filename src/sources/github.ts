/**
 * GitHub: releases (`/repos/{owner}/{repo}/releases`) and raw changelog files
 * (raw.githubusercontent.com). Redirects are followed only to GitHub's own hosts (safeFetch).
 */
import { readJson, SourceError, sourceFetch, unexpectedStatus, type SourceCtx } from "./http";
import { safeFetch } from "./safe-url";

const SOURCE = "github";
const GITHUB_HOSTS = ["api.github.com", "github.com", "raw.githubusercontent.com", "codeload.github.com"];

export interface GithubRelease {
  tag_name: string;
  name?: string | null;
  body?: string | null;
  draft?: boolean;
  prerelease?: boolean;
  published_at?: string | null;
  html_url?: string;
}

const guarded: typeof fetch = ((input: RequestInfo | URL, init?: RequestInit) =>
  safeFetch(String(input), init ?? {}, { allowHosts: GITHUB_HOSTS })) as typeof fetch;

export async function githubReleases(repo: string, ctx: SourceCtx, perPage = 50): Promise<GithubRelease[]> {
  if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repo)) throw new SourceError(SOURCE, "status", `not a GitHub repository: ${repo}`);
  const headers: Record<string, string> = { accept: "application/vnd.github+json", "x-github-api-version": "2022-11-28" };
  if (ctx.githubToken) headers.authorization = `Bearer ${ctx.githubToken}`;
  const res = await sourceFetch(SOURCE, `https://api.github.com/repos/${repo}/releases?per_page=${perPage}`, ctx, { headers }, guarded);
  if (res.status === 404) {
    await res.body?.cancel();
    return [];
  }
  if (!res.ok) throw unexpectedStatus(SOURCE, res);
  const list = await readJson<unknown>(SOURCE, res);
  if (!Array.isArray(list)) throw new SourceError(SOURCE, "malformed", "releases is not a list");
  return list.filter((r): r is GithubRelease => !!r && typeof (r as GithubRelease).tag_name === "string");
}

/** A file of a GitHub repository's default branch (`blob/<branch>/<path>` URLs become raw URLs). */
export async function githubRawFile(blobUrl: string, ctx: SourceCtx): Promise<string | null> {
  const m = /^https:\/\/github\.com\/([^/]+\/[^/]+)\/blob\/([^/]+)\/(.+)$/.exec(blobUrl);
  if (!m) return null;
  const res = await sourceFetch(SOURCE, `https://raw.githubusercontent.com/${m[1]}/${m[2]}/${m[3]}`, ctx, {}, guarded);
  if (res.status === 404) {
    await res.body?.cancel();
    return null;
  }
  if (!res.ok) throw unexpectedStatus(SOURCE, res);
  return res.text();
}
