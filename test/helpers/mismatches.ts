/**
 * For checks over thousands of generated values (property tests): `same()` notes each value that
 * is not the expected one, compared with Object.is as `toBe` compares, and `expectNone()` is the
 * one expect at the end, listing them (the first 20, and how many). One expect per value cost
 * jest's per-call work (an Error and every matcher made anew) each time: seconds of a suite.
 */
export interface Mismatches {
  /** Notes `what` when `got` is not `want` (Object.is). */
  same(what: string | (() => string), got: unknown, want: unknown): void;
  /** Notes `what` when `ok` is false. */
  check(what: string | (() => string), ok: boolean): void;
  /** Expects that nothing was noted. */
  expectNone(): void;
}

const show = (v: unknown): string => (typeof v === 'bigint' ? `${v}n` : typeof v === 'string' ? JSON.stringify(v) : String(v));

export function mismatches(): Mismatches {
  const wrong: string[] = [];
  let count = 0;
  const note = (what: string | (() => string), detail: string): void => {
    count++;
    if (wrong.length < 20) wrong.push(`${typeof what === 'function' ? what() : what}: ${detail}`);
  };
  return {
    same(what, got, want) {
      if (!Object.is(got, want)) note(what, `got ${show(got)}, expected ${show(want)}`);
    },
    check(what, ok) {
      if (!ok) note(what, 'false');
    },
    expectNone() {
      expect({ mismatches: count, first: wrong }).toEqual({ mismatches: 0, first: [] });
    },
  };
}
