/** What perpkit uses of yaml (the config files): the build's bundle, or the package (vendor.ts). */
import type * as Yaml from 'yaml';
import { bundled } from './vendor';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const yaml = bundled('yaml', () => require('yaml') as Pick<typeof Yaml, 'LineCounter' | 'parseDocument' | 'isMap' | 'isScalar' | 'isSeq'>);

export const LineCounter = yaml.LineCounter;
export const parseDocument = yaml.parseDocument;
export const isMap = yaml.isMap;
export const isScalar = yaml.isScalar;
export const isSeq = yaml.isSeq;
