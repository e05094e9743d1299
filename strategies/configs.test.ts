/** The example configs load through the daemon's own loader, parameters checked by each strategy. */
/* eslint-disable perpkit/layers -- a test of the config files, not strategy code: it needs the daemon's loader */
import * as path from 'node:path';
import { loadBotConfig } from '../src/runtime/config';
import { loadStrategySlots } from '../src/runtime/strategy-loader';

const ROOT = path.resolve(__dirname, '..');

describe.each(['grid', 'trend', 'carry'])('config/strategy-%s.yaml', (name) => {
  it('is a valid bot config whose strategy module loads and accepts its parameters', () => {
    const cfg = loadBotConfig(path.join(ROOT, 'config', `strategy-${name}.yaml`));
    const slots = loadStrategySlots(cfg);
    expect(slots.map((s) => [s.id, s.definition.name])).toEqual([[name, name]]);
  });
});
