/**
 * A journal written by an earlier version of the engine replays to the same state today.
 *
 * test/fixtures/journal-0.1.0 is a data directory (meta.json and one journal segment of 1,418
 * commands of every kind: users in one-way and hedge mode, limit/market/IOC/FOK/makerOnly/
 * reduce-only orders, amends, cancels, batches, condition orders of each type, OTOCO strategy
 * orders, leverage and margin-mode changes, marks, funding rates and settlements, and a crash
 * that liquidates an account) written at commit 28040c9, before the engine was split into its
 * bounded contexts and before its accounting moved off decimal.js; with it, the state that code
 * rebuilt from the journal (expected-state.json.gz: the engine snapshot, the audit and every
 * user's asset, positions, open orders, waiting conditions and position history). generate.cjs
 * says how it was made.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ManualClock } from '../../../src/core/clock';
import { Dec } from '../../../src/core/decimal';
import { DEFAULT_SYMBOLS, type SymbolConfig } from '../../../src/exchange/engine/symbols';
import type { PositionRecord } from '../../../src/protocol/records';
import { DEFAULT_CONFIG } from '../../../src/exchange/service/config';
import { openDurableCore } from '../../../src/exchange/service/durable-core';

const FIXTURE = path.join(__dirname, '../../fixtures/journal-0.1.0');
/** Snapshot fields that hold frozen margin (see the test). */
const FROZEN_KEYS = new Set(['frozenPerStep', 'frozenBalanceBefore', 'frozenBalanceAfter', 'frozen', 'isolatedMargin']);

interface AccountState {
  userId: string;
  settings: Array<[string, { leverage: number }]>;
  positions: Array<[string, { symbol: string; cost: string; isolatedMargin: string }]>;
}

/** Index of the margin tier a notional falls in (the first whose cap it does not exceed; cap 0: none). */
function tierIndex(spec: SymbolConfig, notional: Dec): number {
  const i = spec.tiers.findIndex((t) => new Dec(t.maxNotional).isZero() || notional.lte(t.maxNotional));
  return i < 0 ? spec.tiers.length - 1 : i;
}

interface Expected {
  commands: number;
  engine: unknown;
  audit: unknown;
  views: Record<string, unknown>;
}

describe('journal compatibility', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'perpkit-journal-compat-'));
    cpSync(path.join(FIXTURE, 'meta.json'), path.join(dir, 'meta.json'));
    cpSync(path.join(FIXTURE, 'journal-000000000001.jsonl'), path.join(dir, 'journal-000000000001.jsonl'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a journal written before the engine split replays to the same state', async () => {
    const expected = JSON.parse(gunzipSync(readFileSync(path.join(FIXTURE, 'expected-state.json.gz'))).toString('utf8')) as Expected;
    const { core } = await openDurableCore({ ...DEFAULT_CONFIG, dataDir: dir, fsync: false, snapshotEvery: 0 }, new ManualClock(1_767_225_600_000));
    const n = await core.recover();
    expect(n).toBe(expected.commands);
    const e = core.engine;
    // Through JSON, as a snapshot stores it. Three changes since that engine are on purpose, all to
    // frozen margin: an order that closes part of a one-way position keeps the margin of what it
    // opens once its closing part has filled (matching.ts refreezeOpening; 28040c9 released it pro
    // rata over the whole order and let the account promise that margin twice); and a change of
    // leverage puts the margin of the account's open orders on the symbol at the new leverage
    // (28040c9 kept the leverage they were placed at: lowering it left the account promising margin
    // it did not have); and an order that never rests (MARKET, LIMIT IOC or FOK) freezes nothing (orders/prepare.ts; 28040c9
    // froze its margin while it was matched, and its fills' account changes quoted that). The
    // frozen amounts they set, and the account-change records that quote
    // frozen figures, are left out of this comparison (orders.test.ts and positions.test.ts check
    // them); everything else, and every user's asset, positions and orders below, is as it was,
    // the asset's available balance moved by exactly its frozen margin's change.
    // A fourth, on purpose too: a change of leverage puts the margin of the account's isolated
    // positions on the symbol at the new leverage (|cost| / leverage, rounded up, as a fill adds it;
    // 28040c9 kept the margin of the fills' leverage). Where the isolated margin differs, it is that,
    // to the rounding of the fills after the change.
    const withoutFrozen = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (k, x: unknown) => (FROZEN_KEYS.has(k) ? undefined : x)));
    const raw = e.exportState();
    // Orders that never rest: MARKET, or LIMIT IOC or FOK.
    type Frozen = { type: string; timeInForce: string; frozenPerStep: string };
    const market = (orders: Frozen[]): string[] => orders.filter((o) => o.type === 'MARKET' || o.timeInForce !== 'GTC').map((o) => o.frozenPerStep);
    expect(market(raw.orders).every((f) => f === '0')).toBe(true);
    expect(market((expected.engine as { orders: Frozen[] }).orders).filter((f) => f !== '0')).toHaveLength(99);
    // A fifth, to the orders condition orders place: a MARKET one takes the condition's timeInForce,
    // as a LIMIT one always did (GTE_GTC as GTC; conditions/conditions.ts orderTimeInForce), where
    // 28040c9 made it IOC. No condition of the fixture names one, so each such order was IOC and is
    // GTC now, and matched alike (a MARKET order never rests). Compared without that one field.
    type Strategies = Array<{ id: number; updateTime: number }>;
    const state = withoutFrozen(raw) as { orders: Array<Record<string, unknown>>; conditions: Array<{ id: number; timeInForce: string }>; strategies: Strategies };
    const was = withoutFrozen(expected.engine) as { orders: Array<Record<string, unknown>>; strategies: Strategies };
    const conditionTif = new Map(state.conditions.map((c) => [c.id, c.timeInForce]));
    let triggeredMarket = 0;
    state.orders.forEach((o, i) => {
      if (o.type !== 'MARKET' || o.conditionId === 0) return;
      triggeredMarket++;
      expect(conditionTif.get(o.conditionId as number)).toBe('GTC');
      expect([was.orders[i].id, was.orders[i].timeInForce, o.timeInForce]).toEqual([o.id, 'IOC', 'GTC']);
      delete o.timeInForce;
      delete was.orders[i].timeInForce;
    });
    expect(triggeredMarket).toBe(17);
    // A sixth: an amend of a strategy order's order is an update of the strategy order (its detail
    // shows the order's price and quantity; strategies/strategy-orders.ts), so its updateTime is the
    // time of that amend where no status moved after it. Where it differs, it is one of its orders'.
    let amendedStrategies = 0;
    state.strategies.forEach((st, i) => {
      const old = was.strategies[i];
      if (st.updateTime === old.updateTime) return;
      amendedStrategies++;
      expect(st.updateTime).toBeGreaterThan(old.updateTime);
      expect(state.orders.some((o) => o.strategyId === st.id && o.updateTime === st.updateTime)).toBe(true);
      old.updateTime = st.updateTime;
    });
    expect(amendedStrategies).toBe(1);
    // A seventh: a funding round settled before its scheduled time (every round of the fixture, as
    // the admin API settles one "now") names the time it was settled in its payments' referenceId,
    // the time the admin API answers too (funding/funding.ts); 28040c9 named the scheduled time
    // still ahead, 8 h on for each round. Where it differs, it is `funding-<createdAt>` now and was
    // a later time.
    type Changes = { accounts: Array<{ changes: Array<{ changeType: string; referenceId: string; createdAt: number }> }> };
    let renamedFunding = 0;
    (state as unknown as Changes).accounts.forEach((a, i) => a.changes.forEach((c, j) => {
      const old = (was as unknown as Changes).accounts[i].changes[j];
      if (c.referenceId === old.referenceId) return;
      renamedFunding++;
      expect([c.changeType, old.changeType, c.referenceId]).toEqual(['FUNDING_FEE', 'FUNDING_FEE', `funding-${c.createdAt}`]);
      expect(Number(old.referenceId.slice('funding-'.length))).toBeGreaterThan(c.createdAt);
      old.referenceId = c.referenceId;
    }));
    expect(renamedFunding).toBe(234);
    // An eighth: a condition whose order was refused when it fired, and a strategy sub-order refused
    // when its driver fired, keep the refusal's code and message (`refusal`, model.ts), where the
    // engine kept only the status. Every condition that ended so has one, and only those; nothing
    // else about them differs.
    type Refused = { status: string; refusal?: { code: number; message: string } };
    const conditionsNow = (state as unknown as { conditions: Refused[] }).conditions;
    const subsNow = (state as unknown as { strategies: Array<{ subs: Refused[] }> }).strategies.flatMap((x) => x.subs);
    let withRefusal = 0;
    for (const x of [...conditionsNow, ...subsNow]) {
      const refusedCondition = conditionsNow.includes(x) && (x.status === 'REJECTED' || x.status === 'EXPIRED');
      expect(x.refusal !== undefined || !refusedCondition).toBe(true);
      if (x.refusal === undefined) continue;
      withRefusal++;
      expect(['REJECTED', 'EXPIRED']).toContain(x.status);
      expect(x.refusal.message).not.toBe('');
      delete x.refusal;
    }
    expect(withRefusal).toBe(25);
    expect(state).toEqual(was);
    const accountsOf = (v: unknown): AccountState[] => (v as { accounts: AccountState[] }).accounts;
    const rebased = new Map<string, { symbol: string; margin: string; change: Dec }>();
    const oldAccounts = new Map(accountsOf(expected.engine).map((a) => [a.userId, a]));
    for (const a of accountsOf(raw)) {
      const before = new Map((oldAccounts.get(a.userId) as AccountState).positions);
      for (const [key, p] of a.positions) {
        if (p.isolatedMargin === before.get(key)?.isolatedMargin) continue;
        const leverage = (new Map(a.settings).get(p.symbol) as { leverage: number }).leverage;
        const units = (x: string): bigint => BigInt(new Dec(x).abs().times(1e8).toFixed(0));
        const cost = units(p.cost);
        // |cost| / leverage, give or take the unit each later fill rounds (up when it opens, half-even when it closes).
        const off = units(p.isolatedMargin) * BigInt(leverage) - cost;
        expect(off > -10n * BigInt(leverage) && off < 10n * BigInt(leverage)).toBe(true);
        const was = before.get(key)?.isolatedMargin ?? '0';
        rebased.set(a.userId, { symbol: p.symbol, margin: p.isolatedMargin, change: new Dec(p.isolatedMargin).minus(was) });
      }
    }
    // The fixture is fixed: one isolated position was open through a change of leverage.
    expect(rebased.size).toBe(1);
    expect(e.audit()).toEqual(expected.audit);
    const views = Object.fromEntries(e.userIds().map((u) => [u, {
      asset: e.asset(u),
      positions: e.positions(u),
      open: e.currentOrders(u, { limit: 1000 }).list,
      conditions: e.currentConditions(u, undefined).list,
      history: e.positionHistory(u, { pageSize: 1000 }).list,
    }]));
    // The other changes on purpose, to the liquidation price (position-math.ts; liquidation.test.ts
    // shows the check acting there): it takes the margin tier at that price, not the mark's; and a
    // hedge account's two cross legs on a symbol show the account's one price, both legs moving
    // with the mark. Positions are compared without it; where it differs, either the old price lay
    // in another tier than the mark, or the position is such a leg (and both legs agree now).
    // And the asset's usedMargin and availableBalance, exact quotients shown to 8 places, are
    // rounded up and down (margin.ts assetOf) where they were half-even: each may differ from
    // before by one unit of the last place, used up and available down, by the same unit.
    const ROUNDED = new Set(['liqPrice', 'usedMargin', 'availableBalance', 'frozenMargin']);
    const withoutLiq = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (k, x: unknown) => (ROUNDED.has(k) ? undefined : x)));
    // The rebased position shows its new margin, and its margin ratio on it.
    for (const [u, r] of rebased) {
      const before = (expected.views[u] as { positions: PositionRecord[] }).positions;
      const p = views[u].positions.find((x) => x.symbol === r.symbol && x.marginMode === 'ISOLATED') as PositionRecord;
      const old = before.find((x) => x.symbol === r.symbol && x.marginMode === 'ISOLATED') as PositionRecord;
      expect(p.positionMargin).toBe(r.margin);
      expect(new Dec(p.marginRatio).lt(old.marginRatio)).toBe(r.change.isPositive());
      old.positionMargin = p.positionMargin;
      old.marginRatio = p.marginRatio;
    }
    expect(withoutLiq(views)).toEqual(withoutLiq(expected.views));
    const unit = new Dec('0.00000001');
    let rounded = 0;
    let refrozen = 0;
    for (const [u, view] of Object.entries(views)) {
      const before = (expected.views[u] as { asset: { usedMargin: string; availableBalance: string; frozenMargin: string } }).asset;
      const used = new Dec(view.asset.usedMargin).minus(before.usedMargin).minus(rebased.get(u)?.change ?? 0);
      const frozen = new Dec(view.asset.frozenMargin).minus(before.frozenMargin);
      const available = new Dec(view.asset.availableBalance).minus(before.availableBalance);
      expect(used.isZero() || used.eq(unit)).toBe(true);
      expect(available.eq(used.plus(frozen).plus(rebased.get(u)?.change ?? 0).negated())).toBe(true);
      if (!used.isZero()) rounded++;
      if (!frozen.isZero()) refrozen++;
    }
    expect(rounded).toBeGreaterThan(0);
    // The accounts that changed leverage with orders open (the fixture is fixed: always these four).
    expect(refrozen).toBe(4);
    const changed = { tier: 0, hedge: 0 };
    for (const [u, view] of Object.entries(views)) {
      const before = (expected.views[u] as { positions: PositionRecord[] }).positions;
      view.positions.forEach((p, i) => {
        if (p.liqPrice === before[i].liqPrice) return;
        // The rebased position's price moved with its margin (further from the mark for more margin).
        const r = rebased.get(u);
        if (r !== undefined && p.symbol === r.symbol && p.marginMode === 'ISOLATED') {
          const further = new Dec(p.liqPrice).minus(p.markPrice).abs().gt(new Dec(before[i].liqPrice).minus(p.markPrice).abs());
          expect(further).toBe(r.change.isPositive());
          return;
        }
        const legs = view.positions.filter((x) => x.symbol === p.symbol && x.marginMode === 'CROSS' && x.positionSide !== 'BOTH' && x.quantity !== '0');
        if (p.marginMode === 'CROSS' && legs.length === 2) {
          changed.hedge++;
          expect(legs[0].liqPrice).toBe(legs[1].liqPrice);
          return;
        }
        changed.tier++;
        const spec = DEFAULT_SYMBOLS.find((s) => s.symbol === p.symbol) as SymbolConfig;
        const size = new Dec(p.quantity).abs();
        expect(tierIndex(spec, size.times(before[i].liqPrice))).not.toBe(tierIndex(spec, size.times(p.markPrice)));
      });
    }
    // The fixture has positions of both kinds: the checks above are not empty.
    expect(changed.tier).toBeGreaterThan(0);
    expect(changed.hedge).toBeGreaterThan(0);
    await core.close();
  });
});
