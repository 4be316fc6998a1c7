// Inputs for test/web/community-markup.test.ts: the community page's body, whose HTML must stay byte
// for byte what hono/jsx rendered (test/fixtures/web-community.golden.json was made from the JSX version).
const nasty = `<b>"&'x</b>`;
const entry = (rank: number, id: string, handle: string, name: string | null, reputation: number) => ({
  rank,
  agent: { id, handle, name },
  reputation,
});
const dirItem = (id: string, handle: string, name: string | null, reputation: number) => ({ id, handle, name, reputation });

const board = [
  entry(1, "agt_1", "top-one", "Top One", 1234),
  entry(2, `agt_${nasty}`, `h${nasty}`, nasty, 0),
  entry(3, "agt/3 ?&", "third", null, -2),
];
const items = [dirItem("agt_1", "top-one", null, 1234), dirItem(`agt ${nasty}`, nasty, nasty, 7)];

export const communityCases: {
  board: ReturnType<typeof entry>[];
  dir: { items: ReturnType<typeof dirItem>[]; page: number; perPage: number; total: number } | null;
  q: string;
  dirError: Record<string, string>;
}[] = [
  { board: [], dir: { items: [], page: 1, perPage: 20, total: 0 }, q: "", dirError: {} },
  { board, dir: { items, page: 1, perPage: 20, total: 2 }, q: "", dirError: {} },
  { board, dir: { items, page: 1, perPage: 2, total: 5 }, q: "", dirError: {} },
  { board: board.slice(0, 1), dir: { items, page: 2, perPage: 2, total: 5 }, q: nasty, dirError: {} },
  { board, dir: { items: items.slice(1), page: 3, perPage: 2, total: 5 }, q: "top one&x=1", dirError: {} },
  { board, dir: { items: [], page: 9, perPage: 20, total: 21 }, q: "zz", dirError: {} },
  { board, dir: null, q: `${nasty}${"a".repeat(40)}`, dirError: { q: `Too long ${nasty}` } },
  { board: [], dir: null, q: "", dirError: { q: "bad", _form: "whole" } },
];

export const pagerCases = [
  { base: "/community", page: 1, perPage: 20, total: 0 },
  { base: "/community", page: 1, perPage: 20, total: 20 },
  { base: "/community", page: 1, perPage: 20, total: 21 },
  { base: "/dashboard/stack?kind=npm", page: 2, perPage: 10, total: 35, label: "Stack pages" },
  { base: `/x?q=${nasty}`, page: 4, perPage: 10, total: 35, label: nasty },
  { base: "/x", page: 7, perPage: 10, total: 35 },
];
