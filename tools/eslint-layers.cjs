'use strict';
/**
 * ESLint rule `perpkit/layers`: enforces the import arrows of shared DESIGN.md.
 * Imports point down; `client` and `exchange` meet only in `protocol`; `bot` sees only the Venue
 * interface (its `venue/` folder holds the adapters and may reach `client` and the engine);
 * example strategies import only the public API (`src/index.ts`).
 */
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

/** What each layer may import (besides itself). */
const ALLOWED = {
  core: [],
  /** Streaming indicators (perpkit/indicators): numbers and exact decimals, nothing else. */
  indicators: ['core'],
  protocol: ['core'],
  /** Market data at rest: recording format, readers/writers, importers, synthetic data. */
  'market-data': ['core', 'protocol'],
  client: ['core', 'protocol'],
  exchange: ['core', 'protocol', 'market-data'],
  'bot/venue': ['core', 'indicators', 'protocol', 'bot', 'client', 'exchange'],
  bot: ['core', 'indicators', 'protocol', 'bot/venue'],
  backtest: ['core', 'indicators', 'protocol', 'market-data', 'bot', 'bot/venue', 'exchange'],
  /** perpkit/testing: a strategy against the engine in-process, for users' tests. */
  testing: ['core', 'indicators', 'protocol', 'bot', 'bot/venue', 'exchange'],
  runtime: ['core', 'indicators', 'protocol', 'market-data', 'client', 'exchange', 'bot', 'bot/venue', 'backtest'],
  cli: ['core', 'indicators', 'protocol', 'market-data', 'client', 'exchange', 'bot', 'bot/venue', 'backtest', 'runtime'],
};

/**
 * Inside `exchange`: the engine is below everything, the service (core, commands, journal,
 * snapshots, stats) never imports its transports (HTTP, WebSocket, auth, handlers), and the market
 * drivers (simulator, replay, funding schedule) drive the service, never a transport.
 */
const EXCHANGE_FORBIDDEN = {
  engine: ['service', 'transport', 'market'],
  service: ['transport', 'market'],
  market: ['transport'],
};

/** The part of `exchange` a file is in (engine, service, transport, market), or undefined. */
function exchangePartOf(absFile) {
  const rel = path.relative(ROOT, absFile).split(path.sep).join('/');
  const m = /^src\/exchange\/([^/]+)\//.exec(rel);
  return m ? m[1] : undefined;
}

/** The layer a file belongs to, or undefined when it is outside the layered tree. */
function layerOf(absFile) {
  const rel = path.relative(ROOT, absFile).split(path.sep).join('/');
  if (rel === 'src/index.ts' || rel === 'src/index') return 'index';
  if (rel.startsWith('strategies/')) return 'strategies';
  const m = /^src\/([^/]+)(?:\/([^/]+))?/.exec(rel);
  if (!m) return undefined;
  if (m[1] === 'bot' && m[2] === 'venue') return 'bot/venue';
  return m[1];
}

module.exports = {
  ROOT,
  ALLOWED,
  EXCHANGE_FORBIDDEN,
  layerOf,
  rule: {
    meta: {
      type: 'problem',
      docs: { description: 'Imports must follow the layers of DESIGN.md' },
      messages: {
        forbidden: "Layer '{{from}}' may not import '{{to}}' ({{source}}): {{why}}",
      },
      schema: [],
    },
    create(context) {
      const file = context.filename;
      const from = layerOf(file);
      if (from === undefined || from === 'index') return {};
      function check(node, source) {
        if (typeof source !== 'string') return;
        if (!source.startsWith('.')) {
          if (from === 'strategies' && (source === 'perpkit' || source.startsWith('perpkit/'))) {
            if (source !== 'perpkit' && source !== 'perpkit/indicators') {
              context.report({ node, messageId: 'forbidden', data: { from, to: source, source, why: 'strategies import only the public API' } });
            }
          }
          return;
        }
        const target = path.resolve(path.dirname(file), source);
        const to = layerOf(target);
        if (to === undefined) return;
        if (from === 'strategies') {
          if (to === 'strategies' || to === 'index' || (to === 'indicators' && /indicators(\/index)?$/.test(source))) return;
          context.report({ node, messageId: 'forbidden', data: { from, to, source, why: 'strategies import only the public API (src/index.ts, src/indicators)' } });
          return;
        }
        if (to === from) {
          if (from === 'exchange') {
            const fp = exchangePartOf(file);
            const tp = exchangePartOf(target);
            if (fp && tp && fp !== tp && (EXCHANGE_FORBIDDEN[fp] || []).includes(tp)) {
              const why = fp === 'service' && tp === 'transport' ? 'the service never imports its transports' : `exchange/${fp} may not import exchange/${tp}`;
              context.report({ node, messageId: 'forbidden', data: { from: `exchange/${fp}`, to: `exchange/${tp}`, source, why } });
            }
          }
          return;
        }
        if (to === 'index') {
          context.report({ node, messageId: 'forbidden', data: { from, to, source, why: 'inside src/ import the module, not the public index' } });
          return;
        }
        const allowed = ALLOWED[from] || [];
        if (!allowed.includes(to)) {
          context.report({ node, messageId: 'forbidden', data: { from, to, source, why: `'${from}' may import only ${allowed.length ? allowed.join(', ') : 'itself'}` } });
        }
      }
      return {
        ImportDeclaration(node) { check(node, node.source.value); },
        ExportNamedDeclaration(node) { if (node.source) check(node, node.source.value); },
        ExportAllDeclaration(node) { check(node, node.source.value); },
        ImportExpression(node) { if (node.source.type === 'Literal') check(node, node.source.value); },
        CallExpression(node) {
          if (node.callee.type === 'Identifier' && node.callee.name === 'require' && node.arguments[0] && node.arguments[0].type === 'Literal') {
            check(node, node.arguments[0].value);
          }
        },
      };
    },
  },
};
