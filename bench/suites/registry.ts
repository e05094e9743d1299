import type { Suite } from '../harness';

/**
 * Suites by name. A suite module calls `registerSuite` at load time and is imported for that
 * effect from ./index.ts, so adding a suite is one new file plus one import line.
 */
const suites = new Map<string, Suite>();

export function registerSuite(suite: Suite): void {
  if (suites.has(suite.name)) throw new Error(`benchmark suite '${suite.name}' is registered twice`);
  suites.set(suite.name, suite);
}

export function getSuite(name: string): Suite | undefined {
  return suites.get(name);
}

/** Registered names, sorted so listings do not depend on import order. */
export function suiteNames(): string[] {
  return [...suites.keys()].sort();
}
