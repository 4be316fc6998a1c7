/**
 * The usage history as a bar chart drawn on the server: plain SVG, no script, no inline style
 * (colours come from classes in the page's stylesheet). Each bar carries a <title> (the hover
 * tooltip), and the page also shows the numbers as a table for screen readers. Written as text,
 * not JSX (markup.ts says why).
 */
import { el, esc, markup } from "./markup";
export interface ChartDay {
  date: string;
  used: number;
  limit: number | null;
}

const W = 480;
const H = 200;
const PAD = { top: 12, right: 8, bottom: 24, left: 40 };

/** 1, 2, 5 × 10^n at or above `v`: axis maxima people can read. */
function niceCeil(v: number): number {
  if (v <= 1) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

export function UsageChart({ days, label }: { days: ChartDay[]; label: string }) {
  // Oldest on the left.
  const series = [...days].reverse();
  const maxUsed = Math.max(0, ...series.map((d) => d.used));
  const limit = series.at(-1)?.limit ?? null;
  // Scale to the busiest day; the limit line shows only when it is within reach of the data.
  const top = niceCeil(Math.max(maxUsed, limit !== null && limit <= maxUsed * 2 ? limit : 0, 1));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(series.length, 1);
  const barW = Math.max(1, slot * 0.7);
  const y = (v: number) => PAD.top + plotH - (v / top) * plotH;
  const total = series.reduce((s, d) => s + d.used, 0);
  const first = series[0]?.date ?? "";
  const last = series.at(-1)?.date ?? "";
  let inner = el("line", { class: "axis", x1: PAD.left, y1: PAD.top + plotH, x2: W - PAD.right, y2: PAD.top + plotH });
  for (const v of top >= 2 && Number.isInteger(top / 2) ? [0, top / 2, top] : [0, top]) {
    inner += el("line", { class: "axis", x1: PAD.left - 4, y1: y(v), x2: PAD.left, y2: y(v) });
    inner += el("text", { x: PAD.left - 6, y: y(v) + 4, "text-anchor": "end" }, esc(Number.isInteger(v) ? String(v) : v.toFixed(1)));
  }
  series.forEach((d, i) => {
    const h = (d.used / top) * plotH;
    inner += el(
      "rect",
      {
        class: "bar",
        x: (PAD.left + i * slot + (slot - barW) / 2).toFixed(1),
        y: (PAD.top + plotH - h).toFixed(1),
        width: barW.toFixed(1),
        height: h.toFixed(1),
      },
      el("title", {}, esc(`${d.date}: ${d.used}${d.limit === null ? "" : ` of ${d.limit}`}`)),
    );
  });
  if (limit !== null && limit <= top) {
    inner += el("line", { class: "limit", x1: PAD.left, y1: y(limit), x2: W - PAD.right, y2: y(limit) });
    inner += el("text", { x: W - PAD.right, y: y(limit) - 4, "text-anchor": "end" }, esc(`limit ${limit}`));
  }
  series.forEach((d, i) => {
    // Weekly ticks counted back from today, so the last label never collides with another.
    if ((series.length - 1 - i) % 7 === 0) {
      inner += el("text", { x: (PAD.left + i * slot + slot / 2).toFixed(1), y: H - 6, "text-anchor": "middle" }, esc(d.date.slice(5)));
    }
  });
  return markup(
    el(
      "svg",
      {
        class: "chart",
        viewBox: `0 0 ${W} ${H}`,
        role: "img",
        "aria-label": `${label} per day from ${first} to ${last}: ${total} in all, at most ${maxUsed} in one day`,
      },
      inner,
    ),
  );
}
