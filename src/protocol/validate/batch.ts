/** Reading the `orders` array of batch-place, batch-move and batch-cancel. */
import { ErrorCodes, VenueError } from '../../core/errors';
import { BATCH_MAX, type BatchItem } from '../rest/common';
import { FieldReader, invalid, jsonTypeOf, type KeySet } from './fields';

/**
 * The array itself is checked strictly (missing, not an array, empty, more than BATCH_MAX: the whole
 * request fails). Each item is then validated on its own and a bad one becomes a failed item, so
 * the server can answer it in `results[]` next to the good ones (PROTOCOL.md section 3).
 */
/** Longest clientOrderId echoed back in a refused item's result (longer ones are invalid anyway). */
const ECHOED_ID_MAX = 64;

export function readBatch<T>(r: FieldReader, key: string, keys: KeySet, item: (r: FieldReader) => T): BatchItem<T>[] {
  const arr = r.reqArray(key);
  const f = r.path(key);
  if (arr.length === 0) throw invalid(`${f} must hold at least one order, got an empty array`, f);
  if (arr.length > BATCH_MAX) {
    throw new VenueError(ErrorCodes.TOO_MANY_IN_BATCH, `${f} holds ${arr.length} orders; a batch takes at most ${BATCH_MAX}`, f);
  }
  const out: BatchItem<T>[] = new Array<BatchItem<T>>(arr.length);
  for (let i = 0; i < arr.length; i++) {
    const prefix = `${f}[${i}]`;
    const v: unknown = arr[i];
    try {
      const ir = FieldReader.body(v, keys, `${prefix}.`, () => invalid(`${prefix} must be a JSON object, got ${jsonTypeOf(v)}`, prefix));
      out[i] = { ok: true, value: item(ir) };
    } catch (e) {
      if (!(e instanceof VenueError)) throw e;
      // Its result carries the clientOrderId it was sent with, as the engine's refusals do: a
      // client matching results by it found "" for the items that failed here.
      const cid = typeof v === 'object' && v !== null ? (v as Record<string, unknown>).clientOrderId : undefined;
      out[i] = typeof cid === 'string' && cid.length <= ECHOED_ID_MAX ? { ok: false, error: e, clientOrderId: cid } : { ok: false, error: e };
    }
  }
  return out;
}

/**
 * For callers that want all-or-nothing (a client checking its own batch before sending): the
 * values, or the first item's error thrown.
 */
export function requireAllValid<T>(items: readonly BatchItem<T>[]): T[] {
  const values: T[] = [];
  for (const it of items) {
    if (!it.ok) throw it.error;
    values.push(it.value);
  }
  return values;
}
