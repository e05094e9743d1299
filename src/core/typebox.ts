/**
 * TypeBox's builders and value functions, for the config and strategy parameter schemas. Loaded
 * from one bundled file where the build has it (dist/src/vendor/typebox.js, made from the
 * installed package by tools/build-vendor.cjs): the package is ~200 modules, ~120 ms of every
 * process and worker thread that reads a config or loads a strategy, the bundle ~40 ms. Running
 * from the sources (jest), the package itself. Types come from the package either way.
 */
import type * as TypeBox from '@sinclair/typebox';
import type * as TypeBoxValue from '@sinclair/typebox/value';

interface Runtime {
  Type: typeof TypeBox.Type;
  Value: typeof TypeBoxValue.Value;
  TransformDecodeError: typeof TypeBoxValue.TransformDecodeError;
}

const BUNDLE = '../vendor/typebox.js';

function load(): Runtime {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(BUNDLE) as Runtime;
  } catch (e) {
    // Only a bundle that is not there falls back: one that fails to load is an error to see.
    if ((e as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND' || !String((e as Error).message).includes('vendor/typebox.js')) throw e;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const t = require('@sinclair/typebox') as typeof TypeBox;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const v = require('@sinclair/typebox/value') as typeof TypeBoxValue;
    return { Type: t.Type, Value: v.Value, TransformDecodeError: v.TransformDecodeError };
  }
}

const runtime = load();
export const Type = runtime.Type;
export const Value = runtime.Value;
export const TransformDecodeError = runtime.TransformDecodeError;
