/**
 * Keys that appear more than once in one object of a JSON text (at any depth), e.g. pino's
 * duplicate child bindings: JSON.parse keeps the last of them silently, so the text is scanned.
 */
export function repeatedKeys(text: string): string[] {
  const repeated: string[] = [];
  /** Per open container: the keys seen so far, or undefined for an array. */
  const stack: Array<Set<string> | undefined> = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      let s = '';
      while (j < text.length && text[j] !== '"') {
        if (text[j] === '\\') {
          s += text.slice(j, j + 2);
          j += 2;
        } else s += text[j++];
      }
      const keys = stack[stack.length - 1];
      if (expectKey && keys !== undefined) {
        if (keys.has(s)) repeated.push(s);
        keys.add(s);
      }
      expectKey = false;
      i = j;
    } else if (c === '{') {
      stack.push(new Set());
      expectKey = true;
    } else if (c === '[') {
      stack.push(undefined);
    } else if (c === '}' || c === ']') {
      stack.pop();
    } else if (c === ',') {
      expectKey = stack[stack.length - 1] !== undefined;
    }
  }
  return repeated;
}
