/**
 * The line of a key path (`strategies[0].params.quantity`, `sweep.params.mm.skewBps`) in a YAML
 * text: where a config error points in the file. The path is walked as far as the document has
 * it, so a missing key points at its parent mapping, an unknown key at the key itself, a bad value
 * at the value.
 */
import type { Node } from 'yaml';
import { isMap, isScalar, isSeq, LineCounter, parseDocument } from './yaml';

/** Path tokens: keys and [index]es. Keys may hold dots (`mm.skewBps` under `sweep.params`). */
function tokens(at: string): Array<string | number> {
  const out: Array<string | number> = [];
  for (const m of at.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) out.push(m[2] !== undefined ? Number(m[2]) : m[1]);
  return out;
}

/** 1-based line of the deepest node of `at` found in `text`; undefined when none is (or the YAML is broken). */
export function yamlLineOf(text: string, at: string): number | undefined {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc });
  if (doc.errors.length > 0) return undefined;
  const path = tokens(at.replace(/ \(.*$/, ''));
  let node: Node | null | undefined = doc.contents as Node | null;
  let offset: number | undefined;
  let i = 0;
  while (i < path.length && node) {
    const t = path[i];
    if (typeof t === 'number' && isSeq(node)) {
      const item = node.items[t] as Node | undefined;
      if (!item) break;
      node = item;
      offset = item.range?.[0] ?? offset;
      i++;
      continue;
    }
    if (!isMap(node)) break;
    const map = node;
    // The longest run of tokens that names a key here (keys may contain dots).
    let found = false;
    for (let j = path.length; j > i && !found; j--) {
      const key = path.slice(i, j).join('.');
      const pair = map.items.find((p) => isScalar(p.key) && String(p.key.value) === key);
      if (!pair) continue;
      found = true;
      // The key's line: where a value, a missing child or an unknown name is written or belongs.
      offset = (pair.key as Node).range?.[0] ?? offset;
      node = pair.value as Node | null;
      i = j;
    }
    if (!found) break;
  }
  return offset === undefined ? undefined : lc.linePos(offset).line;
}
