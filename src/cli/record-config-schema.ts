/**
 * The recorder's config file (`perpkit record --config`), described once: the loader (record.ts)
 * takes its keys and defaults from here, and schema/record.json is generated from it.
 */
import { Type } from '../core/typebox';
import type { Static } from '@sinclair/typebox';
import { c } from '../core/config-schema';
import { PUBLIC_TOPIC_KINDS } from '../core/enums';
import { AUTH_API_KEY, AUTH_PASSWORD } from '../runtime/config-schema';

export const RECORD_VENUE = c.object(
  {
    baseUrl: c.string({ pattern: '^https?://[^/\\s]+/?$', description: 'Origin of the venue, such as http://127.0.0.1:8080.' }),
    auth: Type.Union([AUTH_API_KEY, AUTH_PASSWORD], { description: 'Optional: also record the private stream and polled positions.' }),
  },
  { required: ['baseUrl'] },
);

export const RECORD_CONFIG = c.object(
  {
    venue: RECORD_VENUE,
    symbols: c.list(c.string(), { minItems: 1 }),
    kinds: c.list(c.oneOf(PUBLIC_TOPIC_KINDS), { description: 'Public streams to record; all when absent.' }),
    pollPositionsMs: c.int(0, Number.MAX_SAFE_INTEGER, { default: 5000, description: 'Poll positions this often (with auth), ms.' }),
  },
  { required: ['venue', 'symbols'] },
);

/** A recorder config file as written, typed from the schema. */
export type RecordConfigFile = Static<typeof RECORD_CONFIG>;
