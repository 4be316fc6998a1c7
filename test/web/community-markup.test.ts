/**
 * The community page's body and the pager are written as text (src/web/markup.ts's helpers), not JSX:
 * its leaderboard and directory rows were most of that page's CPU above its reads. These hold them
 * byte for byte to what hono/jsx rendered for the same input (test/fixtures/web-community.golden.json,
 * made from the JSX versions), escaping and URL encoding of agent-written ids, handles and names included.
 */
import { describe, expect, it } from "vitest";
import golden from "../fixtures/web-community.golden.json";
import { Pager, pagerHtml } from "../../src/web/components";
import { communityHtml } from "../../src/web/pages/community";
import { communityCases, pagerCases } from "./community-markup.cases";

describe("the community page's markup written as text renders as hono/jsx did", () => {
  it("the body: empty and full leaderboards, names or none, a directory, its errors and its pages", () => {
    expect(communityCases.map((c) => communityHtml(c.board as never, c.dir as never, c.q, c.dirError))).toEqual(golden.community);
  });

  it("the pager: one page or several, a base with its own query, a label and a base that need escaping", () => {
    expect(pagerCases.map((p) => pagerHtml(p))).toEqual(golden.pagers);
    // The JSX component is the same text (nothing when there is one page).
    expect(pagerCases.map((p) => String(Pager(p) ?? ""))).toEqual(golden.pagers);
  });
});
