/**
 * What the docs name must exist: relative links and their #anchors, the sections a doc sends the
 * reader to (`docs/x.md` "Heading"), the source folders of the layer diagrams (against the folders
 * of src/ and the layers of tools/eslint-layers.cjs), and the keys and defaults of the config
 * tables (against schema/*.json, which is built from the loaders' own schemas).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const read = (f: string): string => readFileSync(path.join(ROOT, f), 'utf8');
const DOCS = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`), ...readdirSync(path.join(ROOT, 'docs', 'strategies')).map((f) => `docs/strategies/${f}`)];
/**
 * Known, reported, left to the doc's owner (being rewritten elsewhere): reliability.md cites
 * DESIGN.md, the team's design notes, which are not in this repository or the package.
 */
const KNOWN: Record<string, string[]> = {};
const withoutCode = (text: string): string => text.replace(/```[\s\S]*?```/g, '');

/** GitHub's anchors of a markdown file's headings. */
function anchors(file: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of withoutCode(read(file)).matchAll(/^#+ (.*)$/gm)) {
    const base = m[1].trim().toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-');
    const n = seen.get(base);
    seen.set(base, n === undefined ? 0 : n + 1);
    out.add(n === undefined ? base : `${base}-${n + 1}`);
  }
  return out;
}

/** What a reference can name in a doc: a heading, or the bold lead of a paragraph or item. */
function sections(file: string): string[] {
  const text = withoutCode(read(file));
  return [...[...text.matchAll(/^#+ (.*)$/gm)].map((m) => m[1]), ...[...text.matchAll(/\*\*([^*]+?)\.?\*\*/g)].map((m) => m[1])].map((s) => s.replace(/`/g, '').trim());
}

describe('the docs name what exists', () => {
  it.each(DOCS)('%s: relative links and anchors resolve', (doc) => {
    const bad: string[] = [];
    for (const m of read(doc).matchAll(/\]\(([^)\s]+)\)/g)) {
      const link = m[1];
      if (/^[a-z]+:/.test(link)) continue;
      const [file, anchor] = link.split('#');
      const target = file === '' ? doc : path.join(path.dirname(doc), file);
      if (!existsSync(path.join(ROOT, target))) bad.push(`${link}: no file ${target}`);
      else if (anchor !== undefined && target.endsWith('.md') && !anchors(target).has(anchor)) bad.push(`${link}: no heading with anchor #${anchor} in ${target}`);
    }
    expect(bad).toEqual([]);
  });

  it.each(DOCS)('%s: a section it names in another doc ("file.md" "Section") is there', (doc) => {
    const bad: string[] = [];
    for (const m of read(doc).replace(/\n\s*/g, ' ').matchAll(/`?([\w/.-]+\.md)`?\)?,?\s+\(?"([^"]+)"/g)) {
      const [, file, name] = m;
      const target = [path.join(path.dirname(doc), file), file, `docs/${file}`].find((f) => existsSync(path.join(ROOT, f)));
      if (target === undefined) bad.push(`${file}: no such file`);
      else if (!sections(target).some((s) => s.includes(name))) bad.push(`${file} "${name}": no such heading or bold lead`);
    }
    expect(bad.filter((b) => !(KNOWN[doc] ?? []).includes(b))).toEqual([]);
  });

  it('the layer diagrams of docs/architecture.md and README.md list every folder of src/ and every layer of the lint', () => {
    const folders = readdirSync(path.join(ROOT, 'src')).filter((f) => statSync(path.join(ROOT, 'src', f)).isDirectory());
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const layers = Object.keys((require(path.join(ROOT, 'tools', 'eslint-layers.cjs')) as { ALLOWED: Record<string, string[]> }).ALLOWED).filter((l) => !l.includes('/'));
    expect(layers.filter((l) => !folders.includes(l))).toEqual([]);
    for (const [doc, heading] of [['docs/architecture.md', '## Layers'], ['README.md', '## Layout']]) {
      const text = read(doc);
      const block = /```\n([\s\S]*?)```/.exec(text.slice(text.indexOf(heading)))?.[1] ?? '';
      const listed = [...block.matchAll(/^src\/([\w-]+)/gm)].map((m) => m[1]);
      expect({ doc, listed: [...listed].sort() }).toEqual({ doc, listed: [...folders].sort() });
      // "Imports point down the list": no layer is listed above one it may import.
      const bad = listed.flatMap((l, i) => (layersAllowed()[l] ?? []).filter((dep) => !dep.includes('/') && listed.indexOf(dep) > i).map((dep) => `${l} imports ${dep}, listed below it`));
      expect({ doc, bad }).toEqual({ doc, bad: [] });
    }
  });
});

function layersAllowed(): Record<string, string[]> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require(path.join(ROOT, 'tools', 'eslint-layers.cjs')) as { ALLOWED: Record<string, string[]> }).ALLOWED;
}

interface JsonSchema {
  properties?: Record<string, JsonSchema>;
  patternProperties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  default?: unknown;
}

/** The schema nodes a dotted doc path (`users[].apiKeys[]`, `account.leverage.<SYMBOL>`, `risk.*`) reaches. */
function resolve(node: JsonSchema, segments: string[]): JsonSchema[] {
  const alternatives = [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])];
  if (alternatives.length > 0) return [...(node.properties || node.items ? resolve({ ...node, anyOf: undefined, oneOf: undefined, allOf: undefined }, segments) : []), ...alternatives.flatMap((a) => resolve(a, segments))];
  if (segments.length === 0) return [node];
  const [first, ...rest] = segments;
  if (first === '[]') return node.items ? resolve(node.items, rest) : [];
  if (first === '*') return node.properties || node.patternProperties || node.additionalProperties ? [node] : [];
  if (first.startsWith('<')) {
    const restAfter = rest.filter((s, i) => !(s.startsWith('<') && rest.slice(0, i).every((p) => p.startsWith('<'))));
    const any = [...Object.values(node.patternProperties ?? {}), ...(typeof node.additionalProperties === 'object' ? [node.additionalProperties] : [])];
    return any.flatMap((a) => resolve(a, restAfter));
  }
  const next = node.properties?.[first];
  return next ? resolve(next, rest) : [];
}

/** `a.b[].c` -> ['a', 'b', '[]', 'c']. */
const segmentsOf = (key: string): string[] => key.replace(/\[\]/g, '.[]').split('.').filter((s) => s !== '');

/** The rows of the first table under `heading`: cells by column name. */
function tableRows(doc: string, heading: string): Record<string, string>[] {
  const text = read(doc);
  const start = text.indexOf(`\n${heading}`);
  expect(start).toBeGreaterThan(-1);
  const lines = text.slice(start).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const table: string[] = [];
  for (const l of lines.slice(first)) {
    if (!l.startsWith('|')) break;
    table.push(l);
  }
  const cells = (l: string): string[] => l.replace(/\\\|/g, '\uE000').split('|').slice(1, -1).map((c) => c.replace(/\uE000/g, '|').trim());
  const head = cells(table[0]).map((h) => h.toLowerCase());
  return table.slice(2).map((l) => Object.fromEntries(cells(l).map((c, i) => [head[i], c])));
}

/** The config keys a table row's first cell names: `a.b`, `c`, `.d` share a's parent (a.c, a.d). */
function keysOf(cell: string): string[] {
  const names = [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
  const parent = names[0]?.includes('.') ? names[0].slice(0, names[0].lastIndexOf('.')) : '';
  return names.map((n, i) => (i === 0 || n.includes('.') && !n.startsWith('.') ? n : `${parent}.${n.replace(/^\./, '')}`));
}

describe.each([
  { doc: 'docs/backtesting.md', heading: '## Config', schema: 'schema/backtest.json', keyColumn: 'key' },
  { doc: 'docs/local-exchange.md', heading: '## Configuration', schema: 'schema/exchange.json', keyColumn: 'key' },
  { doc: 'docs/running.md', heading: '## Config reference', schema: 'schema/bot.json', keyColumn: 'key' },
])('$doc: the config table against $schema', ({ doc, heading, schema, keyColumn }) => {
  const root = JSON.parse(read(schema)) as JsonSchema;
  const rows = tableRows(doc, heading);

  it('names only keys the schema has', () => {
    expect(rows.length).toBeGreaterThan(10);
    const missing = rows.flatMap((r) => keysOf(r[keyColumn])).filter((k) => resolve(root, segmentsOf(k)).length === 0);
    expect(missing).toEqual([]);
  });

  it('states the schema default where the doc gives one value', () => {
    const wrong: string[] = [];
    for (const r of rows) {
      // A column of its own (`default`), or `..., default <value>` in the type column (running.md).
      const m = r.default !== undefined ? /^`?"?([^`"\s,;]+)"?`?$/.exec(r.default) : /\bdefault `?"?([^`"\s,;]+)"?`?(?:$|[,;\s])/.exec(r['type, default'] ?? '');
      const keys = keysOf(r[keyColumn]);
      if (!m || keys.length !== 1) continue;
      const defaults = resolve(root, segmentsOf(keys[0])).map((n) => n.default).filter((d) => d !== undefined);
      if (defaults.length > 0 && !defaults.some((d) => (typeof d === 'object' ? JSON.stringify(d) : String(d)) === m[1])) wrong.push(`${keys[0]}: doc ${m[1]}, schema ${JSON.stringify(defaults[0])}`);
    }
    expect(wrong).toEqual([]);
  });
});

describe.each(['carry', 'grid', 'market-maker', 'trend'])('docs/strategies/%s.md: the parameters table against the strategy', (name) => {
  it('names every parameter the strategy reads, with its default', async () => {
    const mod = (await import(path.join(ROOT, 'strategies', name, 'index.ts'))) as { default: { paramsSchema?: { properties?: Record<string, { default?: unknown }> } } };
    const props = mod.default.paramsSchema?.properties ?? {};
    const doc = read(`docs/strategies/${name}.md`);
    const rows = [...doc.slice(doc.indexOf('## Parameters')).matchAll(/^\| `(\w+)` \| ([^|]*) \|/gm)].map((m) => ({ name: m[1], default: m[2].trim().replace(/`/g, '') }));
    expect(rows.map((r) => r.name).sort()).toEqual(Object.keys(props).sort());
    const wrong = rows.filter((r) => props[r.name].default !== undefined && String(props[r.name].default) !== r.default).map((r) => `${r.name}: doc ${r.default}, code ${String(props[r.name].default)}`);
    expect(wrong).toEqual([]);
  });
});

describe('the shared Binance capture: where the docs import it is where the configs read it', () => {
  const CAPTURE = '../shared/data/binance-usdm/btcusdt_20240808.gz';
  // The recordings config/*-binance.yaml read (relative to config/), as one set of paths from the project root.
  const configs = readdirSync(path.join(ROOT, 'config')).filter((f) => f.endsWith('-binance.yaml'));
  const read_ = configs.flatMap((f) => [...read(`config/${f}`).matchAll(/^ {2}files: \[([^\]]+)\]/gm)].flatMap((m) => m[1].split(',').map((x) => path.relative(ROOT, path.join(ROOT, 'config', x.trim())))));

  it('every `perpkit import binance-futures` of it in the docs, and npm run data:binance, write the file the configs read', () => {
    expect(configs.length).toBeGreaterThanOrEqual(4);
    expect(new Set(read_)).toEqual(new Set(['data/binance/btcusdt-20240808.jsonl.gz']));
    const outs = [...DOCS, 'package.json'].flatMap((doc) => [...read(doc).matchAll(/perpkit(?:\.js)? import binance-futures (\S+) --out ([^\s"]+)/g)].filter((m) => m[1] === CAPTURE).map((m) => `${doc}: ${m[2]}`));
    expect(outs.length).toBeGreaterThanOrEqual(3);
    expect(outs.filter((o) => !o.endsWith(': data/binance/btcusdt-20240808.jsonl.gz'))).toEqual([]);
  });
});

describe("docs/backtesting.md's summary example", () => {
  it("prints the report's folder as the CLI does (src/cli/backtest.ts: the absolute path of report.json)", () => {
    const doc = read('docs/backtesting.md');
    const example = /The command prints a summary, for example:\n\n```\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
    expect(example.split('\n').filter((l) => l.startsWith('  wrote '))).toEqual([expect.stringMatching(/^ {2}wrote \/\S+\/report\.json, report\.html, run\.json$/)]);
  });
});

describe('the endpoint registry against the docs that list it', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { ENDPOINTS } = require('../../src/protocol/endpoints') as { ENDPOINTS: Record<string, { method: string; path: string; spec: boolean; group: string }> };
  const all = Object.values(ENDPOINTS);

  it('docs/api-coverage.md names every endpoint of the service (method and path)', () => {
    const doc = read('docs/api-coverage.md');
    const spec = all.filter((e) => e.spec);
    expect(spec.length).toBe(42);
    expect(spec.filter((e) => !doc.includes(`\`${e.method} ${e.path}\``)).map((e) => `${e.method} ${e.path}`)).toEqual([]);
  });

  it("docs/local-exchange.md's admin API names every admin endpoint", () => {
    const doc = read('docs/local-exchange.md');
    const section = doc.slice(doc.indexOf('## Admin API'), doc.indexOf('\n## ', doc.indexOf('## Admin API') + 1));
    expect(all.filter((e) => e.group === 'admin' && !section.includes(`\`${e.path}\``)).map((e) => `${e.method} ${e.path}`)).toEqual([]);
  });
});
