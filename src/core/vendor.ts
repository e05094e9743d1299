/**
 * Libraries that every backtest, run and sweep process and thread loads, from one bundled file
 * each where the build has them (dist/src/vendor/<name>.js, made from the installed packages by
 * tools/build-vendor.cjs): TypeBox is ~200 modules (~140 ms of resolving and compiling; its bundle
 * ~30 ms), yaml ~75 (~40 ms; ~12 ms). Running from the sources (jest), the packages themselves.
 * Types come from the packages either way. Each has its module (core/typebox.ts, core/yaml.ts),
 * so a process that needs one loads only that one.
 */

/** The bundle `name` of the build, or `fallback()` (the packages) where the build has none. */
export function bundled<T>(name: string, fallback: () => T): T {
  const file = `../vendor/${name}.js`;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(file) as T;
  } catch (e) {
    // Only a bundle that is not there falls back: one that fails to load is an error to see.
    if ((e as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND' || !String((e as Error).message).includes(`vendor/${name}.js`)) throw e;
    return fallback();
  }
}
