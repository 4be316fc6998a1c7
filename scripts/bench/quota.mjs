// Quota scenarios for scripts/bench.mjs: the cost of an authenticated, counted request (auth lookup
// in D1 + one AccountQuota check-and-consume + the handler) against the runner's bare route.
// Keys rotate over the runner's account pool (ctx.key(i), every account on EXPERT: 300/min,
// 100,000 API calls/day), so no account's per-minute rate is the bottleneck.

export async function scenarios(ctx) {
  const auth = (i) => ({ authorization: `Bearer ${ctx.key(i)}` });
  return [
    {
      // Counted: per-minute → API_CALLS in the account's object, then a 7-day history read from it.
      name: "usage history GET /v1/usage/history?days=7 (counted read)",
      method: "GET",
      path: "/v1/usage/history?days=7",
      headers: auth,
      floor: "do2",
    },
    {
      // Uncounted (always answered): auth + one read of the account's object.
      name: "usage today GET /v1/usage/today (free)",
      method: "GET",
      path: "/v1/usage/today",
      headers: auth,
      // One read of the account's object is all it needs.
      floor: "do",
      tags: ["core"],
    },
  ];
}
