/**
 * The local exchange's read-only page: its symbols, and for the chosen one the order book, the
 * mark and recent trades, refreshed every second from the public market API (the same endpoints
 * a bot uses); with the exchange's admin token, users' positions. Nothing here can change the
 * exchange.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { DepthResult, MarketTradesResult, MarkPriceResult, SymbolSpec, SymbolsResult } from '../../src/protocol/rest/market';
import type { UserPositionRow } from '../../src/runtime/dashboard/types';
import { clock, dec } from '../dashboard/format';

interface Envelope<T> {
  code: number;
  message: string;
  data: T;
}

async function get<T>(path: string): Promise<T> {
  const res = await fetch(path, { cache: 'no-store' });
  const body = (await res.json()) as Envelope<T>;
  if (body.code !== 0) throw new Error(`${path}: ${body.code} ${body.message}`);
  return body.data;
}

/**
 * Users' positions for the exchange's operator: asked with the admin token typed here, kept in
 * this page's memory only (never stored, never put in the address).
 */
function Positions() {
  const [token, setToken] = useState('');
  const [rows, setRows] = useState<UserPositionRow[] | undefined>(undefined);
  const [note, setNote] = useState<string | undefined>(undefined);
  useEffect(() => {
    if (token === '') return;
    let stop = false;
    const load = async (): Promise<void> => {
      try {
        const res = await fetch('/ui/api/positions', { cache: 'no-store', headers: { 'x-admin-token': token } });
        const body = (await res.json()) as Envelope<{ positions: UserPositionRow[] } | null>;
        if (stop) return;
        if (body.code !== 0 || body.data === null) {
          setRows(undefined);
          setNote(`refused (${res.status}): ${body.message}`);
        } else {
          setRows(body.data.positions);
          setNote(undefined);
        }
      } catch (e) {
        if (!stop) setNote(e instanceof Error ? e.message : String(e));
      }
    };
    void load();
    const t = setInterval(() => void load(), 1000);
    return () => {
      stop = true;
      clearInterval(t);
    };
  }, [token]);
  return (
    <section class="panel wide" data-testid="positions">
      <h2>Users' positions (admin)</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const input = (e.currentTarget as HTMLFormElement).elements.namedItem('token') as HTMLInputElement;
          setToken(input.value);
        }}
      >
        <input name="token" type="password" placeholder="admin token" autocomplete="off" data-testid="admin-token" />
        <button type="submit" data-testid="admin-show">
          show
        </button>
      </form>
      {note && (
        <span class="err" data-testid="positions-note">
          {note}
        </span>
      )}
      {rows && (
        <table data-testid="positions-table">
          <thead>
            <tr>
              <th>user</th>
              <th>symbol</th>
              <th>side</th>
              <th class="num">quantity</th>
              <th class="num">entry</th>
              <th class="num">mark</th>
              <th class="num">unrealised PnL</th>
              <th class="num">liq. price</th>
              <th class="num">leverage</th>
            </tr>
          </thead>
          <tbody>
            {rows.length === 0 && (
              <tr>
                <td colSpan={9}>no open positions</td>
              </tr>
            )}
            {rows.map((r) => (
              <tr key={`${r.username}:${r.symbol}:${r.positionSide}`} data-testid="position">
                <td>{r.username}</td>
                <td>{r.symbol}</td>
                <td>{r.positionSide}</td>
                <td class="num">{r.quantity}</td>
                <td class="num">{dec(r.entryPrice)}</td>
                <td class="num">{dec(r.markPrice)}</td>
                <td class={`num ${Number(r.unrealizedPnl) >= 0 ? 'pos' : 'neg'}`}>{dec(r.unrealizedPnl)}</td>
                {/* "0" is the protocol's "no price liquidates it": shown as the dashboard shows it. */}
                <td class="num" data-testid="position-liq">{/[1-9]/.test(r.liqPrice) ? dec(r.liqPrice) : '–'}</td>
                <td class="num">{r.leverage}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

interface Market {
  depth: DepthResult;
  trades: MarketTradesResult;
  mark: MarkPriceResult;
  at: number;
}

function App() {
  const [symbols, setSymbols] = useState<SymbolSpec[]>([]);
  const [symbol, setSymbol] = useState<string | undefined>(undefined);
  const [market, setMarket] = useState<Market | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);

  useEffect(() => {
    get<SymbolsResult>('/v1/public/market/symbols').then(
      (r) => {
        setSymbols(r.symbols);
        setSymbol((s) => s ?? r.symbols[0]?.symbol);
      },
      (e: unknown) => setError(String(e)),
    );
  }, []);

  useEffect(() => {
    if (symbol === undefined) return;
    let stop = false;
    const load = async (): Promise<void> => {
      try {
        const q = encodeURIComponent(symbol);
        const [depth, trades, mark] = await Promise.all([get<DepthResult>(`/v1/public/market/depth?symbol=${q}&limit=12`), get<MarketTradesResult>(`/v1/public/market/trades?symbol=${q}&limit=30`), get<MarkPriceResult>(`/v1/public/market/mark-price?symbol=${q}`)]);
        if (!stop) {
          setMarket({ depth, trades, mark, at: Date.now() });
          setError(undefined);
        }
      } catch (e) {
        if (!stop) setError(e instanceof Error ? e.message : String(e));
      }
    };
    void load();
    const t = setInterval(() => void load(), 1000);
    return () => {
      stop = true;
      clearInterval(t);
    };
  }, [symbol]);

  const spec = symbols.find((s) => s.symbol === symbol);
  return (
    <div class="page">
      <header>
        <h1>
          perpkit <span class="muted">local exchange (read only)</span>
        </h1>
        <div class="tabs">
          {symbols.map((s) => (
            <button key={s.symbol} class={s.symbol === symbol ? 'on' : ''} onClick={() => setSymbol(s.symbol)} data-testid={`symbol-${s.symbol}`}>
              {s.symbol}
            </button>
          ))}
        </div>
        <span class="spacer" />
        {market && <span class="muted">updated {clock(market.at)} UTC</span>}
        {error && (
          <span class="err" data-testid="error">
            {error}
          </span>
        )}
      </header>
      <main>
        {spec && (
          <section class="panel wide" data-testid="spec">
            <h2>{spec.symbol}</h2>
            <span class="chip">tick {spec.tickSize}</span>
            <span class="chip">step {spec.stepSize}</span>
            <span class="chip">min qty {spec.minQty}</span>
            <span class="chip">max qty {spec.maxQty}</span>
            <span class="chip">min notional {spec.minNotional}</span>
            <span class="chip">max leverage {spec.maxLeverage}</span>
            {market && (
              <span class="chip" data-testid="mark">
                mark {dec(market.mark.markPrice)} · index {dec(market.mark.indexPrice)} · funding {market.mark.fundingRate}
              </span>
            )}
          </section>
        )}
        {market && (
          <section class="panel">
            <h2>Order book</h2>
            <table class="book" data-testid="book">
              <thead>
                <tr>
                  <th class="num">price</th>
                  <th class="num">quantity</th>
                </tr>
              </thead>
              <tbody>
                {[...market.depth.asks].reverse().map(([p, q]) => (
                  <tr key={`a${p}`} data-testid="ask">
                    <td class="num ask">{p}</td>
                    <td class="num">{q}</td>
                  </tr>
                ))}
                <tr class="spread">
                  <td colSpan={2}>{market.depth.bids.length > 0 && market.depth.asks.length > 0 ? `spread ${(Number(market.depth.asks[0][0]) - Number(market.depth.bids[0][0])).toFixed(2)}` : 'one side empty'}</td>
                </tr>
                {market.depth.bids.map(([p, q]) => (
                  <tr key={`b${p}`} data-testid="bid">
                    <td class="num bid">{p}</td>
                    <td class="num">{q}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        )}
        {market && (
          <section class="panel">
            <h2>Recent trades</h2>
            <table data-testid="trades">
              <thead>
                <tr>
                  <th>time</th>
                  <th>taker</th>
                  <th class="num">price</th>
                  <th class="num">quantity</th>
                </tr>
              </thead>
              <tbody>
                {[...market.trades.list].reverse().map((t) => (
                  <tr key={t.tradeId} data-testid="trade">
                    <td>{clock(t.time)}</td>
                    <td class={t.side === 'BUY' ? 'pos' : 'neg'}>{t.side}</td>
                    <td class="num">{t.price}</td>
                    <td class="num">{t.quantity}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        )}
        <Positions />
      </main>
    </div>
  );
}

const root = document.getElementById('app');
if (root) render(<App />, root);
