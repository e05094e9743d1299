/**
 * A strategy whose every order the risk engine denies trades nothing: a live probe's market maker
 * with `quantity: "0.0001"` (the step is 0.001) was denied OFF_GRID 13 times a second while
 * /healthz said ok. After a minute of it the strategy's health says why (the daemon's /healthz
 * reason `strategy mm trades nothing: ...`); denials the bot's state asked for are not counted.
 */
import { botWorld, scripted } from './harness';

test('every order denied for a minute: the strategy is blocked, said with the last denial; a passing order ends it', async () => {
  let quantity = '0.0001';
  const strategy = scripted(['BTCUSDT'], {
    event: (e) => (e.type === 'markPrice' ? [{ kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '40000', quantity }] : []),
  });
  const w = await botWorld([{ id: 's', definition: strategy, params: {} }], { allowRefusals: true });
  for (let i = 0; i < 30; i++) {
    await w.advance(1000);
    await w.setMark('BTCUSDT', (50000 + (i % 5)).toFixed(1));
  }
  // 30 s of denials: not yet.
  expect(w.bot.strategyHealth()[0].blocked).toBeUndefined();
  for (let i = 0; i < 35; i++) {
    await w.advance(1000);
    await w.setMark('BTCUSDT', (50000 + (i % 5)).toFixed(1));
  }
  expect(w.bot.strategyHealth()[0].blocked).toMatch(/^every order it asked for was denied for 6\d s \(6\d denials; last: OFF_GRID: quantity /);
  quantity = '0.001';
  await w.advance(1000);
  await w.setMark('BTCUSDT', '50010.0');
  expect(w.bot.strategyHealth()[0].blocked).toBeUndefined();
});

test('denials the bot state asked for (HALTED by the kill switch) do not make a strategy blocked', async () => {
  const strategy = scripted(['BTCUSDT'], {
    event: (e) => (e.type === 'markPrice' ? [{ kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '40000', quantity: '0.001' }] : []),
  });
  const w = await botWorld([{ id: 's', definition: strategy, params: {} }], { allowRefusals: true });
  await w.bot.kill('test');
  for (let i = 0; i < 70; i++) {
    await w.advance(1000);
    await w.setMark('BTCUSDT', (50000 + (i % 5)).toFixed(1));
  }
  expect(w.events.filter((e) => e.type === 'denial' && e.code === 'STATE_HALTED').length).toBeGreaterThan(60);
  expect(w.bot.strategyHealth()[0].blocked).toBeUndefined();
});
