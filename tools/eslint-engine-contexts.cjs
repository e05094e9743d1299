'use strict';
/**
 * ESLint rule `perpkit/engine-contexts`: the bounded contexts of the exchange engine
 * (src/exchange/engine/<context>/) import only downwards. Orders never import condition or
 * strategy orders (they signal follow-ups through the shared state), conditions never import
 * strategy orders, and no context imports the facade (engine.ts).
 */
const path = require('node:path');

const ENGINE = path.resolve(__dirname, '..', 'src', 'exchange', 'engine');

/** What each context may not import. Contexts not listed (and the root files) have no limit but the facade. */
const FORBIDDEN = {
  book: ['accounts', 'positions', 'orders', 'conditions', 'strategies', 'funding', 'liquidation', 'market'],
  accounts: ['orders', 'conditions', 'strategies', 'funding', 'liquidation', 'market'],
  positions: ['orders', 'conditions', 'strategies', 'funding', 'liquidation', 'market'],
  orders: ['conditions', 'strategies', 'funding', 'liquidation', 'market'],
  conditions: ['strategies', 'funding', 'liquidation', 'market'],
  strategies: ['funding', 'liquidation', 'market'],
  funding: ['orders', 'conditions', 'strategies', 'liquidation', 'market'],
  market: ['conditions', 'strategies', 'funding', 'liquidation'],
  liquidation: ['conditions', 'strategies', 'funding', 'market'],
};

/** The context of a file inside the engine ('' for the engine's root files), or undefined outside it. */
function contextOf(absFile) {
  const rel = path.relative(ENGINE, absFile);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  const parts = rel.split(path.sep);
  return parts.length > 1 ? parts[0] : '';
}

module.exports = {
  FORBIDDEN,
  rule: {
    meta: {
      type: 'problem',
      docs: { description: 'Engine contexts import only downwards (src/exchange/engine/engine.ts)' },
      messages: {
        forbidden: "Engine context '{{from}}' may not import '{{to}}' ({{source}}): {{why}}",
      },
      schema: [],
    },
    create(context) {
      const from = contextOf(context.filename);
      if (from === undefined) return {};
      function check(node, source) {
        if (typeof source !== 'string' || !source.startsWith('.')) return;
        const target = path.resolve(path.dirname(context.filename), source);
        const to = contextOf(target);
        if (to === undefined || to === from) return;
        if (from !== '' && to === '' && path.basename(target).replace(/\.ts$/, '') === 'engine') {
          context.report({ node, messageId: 'forbidden', data: { from, to: 'engine.ts', source, why: 'contexts never import the facade' } });
          return;
        }
        const banned = FORBIDDEN[from] || [];
        if (banned.includes(to)) {
          context.report({ node, messageId: 'forbidden', data: { from, to, source, why: `'${from}' signals follow-ups through state.follow instead of importing ${banned.join(', ')}` } });
        }
      }
      return {
        ImportDeclaration: (node) => check(node, node.source.value),
        ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
        ExportAllDeclaration: (node) => check(node, node.source.value),
      };
    },
  },
};
