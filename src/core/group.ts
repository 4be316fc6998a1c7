/** Rows grouped by a key, each group in the rows' order. */
export function groupBy<T>(rows: Iterable<T>, key: (r: T) => string): Map<string, T[]> {
  const by = new Map<string, T[]>();
  for (const r of rows) {
    const k = key(r);
    const list = by.get(k);
    if (list) list.push(r);
    else by.set(k, [r]);
  }
  return by;
}
