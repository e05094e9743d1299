/**
 * Comparing long lists of plain JSON values (events, records) the way `toEqual` does, key order
 * aside, in a fraction of its time: jest's deep equality over ~100,000 events took 10-20 s of a
 * suite. `expectSameJson` compares canonical JSON texts item by item and shows the first
 * difference with its index (and jest's diff of that item).
 */

/** JSON with every object's keys in order; what `replace` returns for a value stands for it. */
export function canonicalJson(v: unknown, replace: (v: unknown) => unknown = (x) => x): string {
  return JSON.stringify(v, (_k, x: unknown) => {
    const r = replace(x);
    return r !== null && typeof r === 'object' && !Array.isArray(r) ? Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : 1))) : r;
  });
}

export function expectSameJson(got: readonly unknown[], want: readonly unknown[], replace?: (v: unknown) => unknown): void {
  expect(got.length).toBe(want.length);
  const i = got.findIndex((g, k) => canonicalJson(g, replace) !== canonicalJson(want[k], replace));
  if (i >= 0) expect({ index: i, item: JSON.parse(canonicalJson(got[i], replace)) as unknown }).toEqual({ index: i, item: JSON.parse(canonicalJson(want[i], replace)) as unknown });
}
