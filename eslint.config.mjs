import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import layers from './tools/eslint-layers.cjs';
import engineContexts from './tools/eslint-engine-contexts.cjs';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bench/results/**', 'bin/**', 'jest.config.js', 'test/fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { perpkit: { rules: { layers: layers.rule, 'engine-contexts': engineContexts.rule } } },
    rules: {
      'perpkit/layers': 'error',
      'perpkit/engine-contexts': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    files: ['src/cli/**/*.ts', 'bench/**/*.ts', 'test/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    // Strategies reach time, state and the venue only through their context (DESIGN.md): the same
    // file must run live and in a backtest on a virtual clock.
    files: ['strategies/**/*.ts'],
    ignores: ['strategies/**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['node:*', 'fs', 'http', 'https', 'net', 'dgram', 'child_process', 'worker_threads', 'undici', 'ws'], message: 'strategies may not reach the network, files or processes: use the strategy context' }] }],
      'no-restricted-globals': ['error', { name: 'fetch', message: 'use intents; strategies do not call the network' }, { name: 'setTimeout', message: 'use ctx.every()' }, { name: 'setInterval', message: 'use ctx.every()' }, { name: 'process', message: 'strategies get their parameters from the context' }],
      'no-restricted-properties': ['error', { object: 'Date', property: 'now', message: 'use ctx.clock.now(): backtests run on a virtual clock' }, { object: 'Math', property: 'random', message: 'strategies must be deterministic: seed your own generator from params' }],
      'no-restricted-syntax': ['error', { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'use ctx.clock.now(): backtests run on a virtual clock' }],
    },
  },
  {
    files: ['tools/**/*.cjs', 'entry/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', process: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
