/** TypeBox's builders and value functions (the config and parameter schemas): the build's bundle, or the package (vendor.ts). */
import type * as TypeBox from '@sinclair/typebox';
import type * as TypeBoxValue from '@sinclair/typebox/value';
import { bundled } from './vendor';

/* eslint-disable @typescript-eslint/no-require-imports */
const typebox = bundled('typebox', () => {
  const t = require('@sinclair/typebox') as typeof TypeBox;
  const v = require('@sinclair/typebox/value') as typeof TypeBoxValue;
  return { Type: t.Type, Value: v.Value, TransformDecodeError: v.TransformDecodeError };
});
/* eslint-enable @typescript-eslint/no-require-imports */

export const Type = typebox.Type;
export const Value = typebox.Value;
export const TransformDecodeError = typebox.TransformDecodeError;
