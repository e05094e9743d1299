/**
 * The dashboard page: state and connectivity in the header, the PnL chart, strategies with their
 * actions, positions, working orders and the filterable event list. Everything comes from the
 * store, which the stream keeps current; actions go to the API with the token and the operator's
 * name, and their outcome (or refusal) is shown where they were asked.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { ActionResult, ApiError, DashEvent, LiveState, StrategyView } from '../../src/runtime/dashboard/types';
import { PnlChart } from './chart';
import { clock, dec, duration, signed, tone } from './format';
import type { Model, Store } from './store';

export interface Session {
  token: string | undefined;
  operator: string;
  headers(): Record<string, string>;
  setToken(t: string): void;
  setOperator(name: string): void;
}

function useModel(store: Store): Model {
  const [m, setM] = useState(store.model);
  useEffect(() => {
    // One render per frame however many messages arrived in it (a burst of fills is many).
    let frame = 0;
    const off = store.subscribe(() => {
      if (frame === 0) {
        frame = requestAnimationFrame(() => {
          frame = 0;
          setM(store.model);
        });
      }
    });
    setM(store.model); // what changed between the first render and this subscription
    return () => {
      off();
      cancelAnimationFrame(frame);
    };
  }, [store]);
  return m;
}

function useNow(ms: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

type Toast = { ok: boolean; text: string; at: number };

async function post(session: Session, path: string, extra: Record<string, string> = {}): Promise<ActionResult> {
  const res = await fetch(path, { method: 'POST', headers: { ...session.headers(), 'x-perpkit-dashboard': '1', ...extra } });
  const body = (await res.json().catch(() => ({ error: `the server answered ${res.status}` }))) as ActionResult | ApiError;
  if (!res.ok) throw new Error('error' in body ? body.error : `the server answered ${res.status}`);
  return body as ActionResult;
}

export function App({ store, session, onLogin }: { store: Store; session: Session; onLogin(token: string): void }) {
  const m = useModel(store);
  const [toast, setToast] = useState<Toast | undefined>(undefined);
  const [confirmKill, setConfirmKill] = useState(false);
  const act = async (label: string, path: string, extra?: Record<string, string>): Promise<void> => {
    try {
      const r = await post(session, path, extra);
      const what = r.action === 'cancelOrders' ? `${r.cancelled ?? 0} orders cancelled` : r.action === 'kill' ? `kill switch engaged: ${r.state ?? ''}, ${r.cancelled ?? 0} orders cancelled` : `${r.strategyId ?? ''} ${r.status ?? ''}`;
      setToast({ ok: true, text: `${label}: ${what}`, at: Date.now() });
    } catch (e) {
      setToast({ ok: false, text: `${label} refused: ${e instanceof Error ? e.message : String(e)}`, at: Date.now() });
    }
  };

  if (m.link === 'unauthorized') return <Login hadToken={session.token !== undefined} onLogin={onLogin} />;
  if (m.link === 'forbidden') return <Refused reason={m.linkDetail} />;
  const live = m.live;
  return (
    <div class="page">
      <Header m={m} session={session} onKill={() => setConfirmKill(true)} />
      {toast && (
        <div class={`toast ${toast.ok ? 'ok' : 'err'}`} role="status" data-testid="toast" onClick={() => setToast(undefined)}>
          {toast.text}
        </div>
      )}
      {live === undefined ? (
        <p class="muted">Waiting for the bot's state…</p>
      ) : (
        <main>
          <section class="panel wide">
            <h2>
              PnL since start <span class="muted">equity {dec(live.equity)} USDT, exposure {dec(live.exposure)} USDT, {live.fills} fills</span>
            </h2>
            <PnlChart equity={m.equity} fills={m.fills} version={m.chartVersion} />
          </section>
          <Strategies live={live} act={act} />
          <Positions live={live} />
          <Orders live={live} />
          <Events events={m.events} strategies={live.strategies.map((s) => s.id)} />
        </main>
      )}
      {confirmKill && (
        <div class="modal" role="dialog" aria-modal="true" data-testid="kill-dialog">
          <div class="modal-box">
            <h2>Engage the kill switch?</h2>
            <p>The bot goes HALTED: every order of every strategy is cancelled, and nothing but cancels is sent until the bot is restarted. Positions stay open.</p>
            <div class="row">
              <button onClick={() => setConfirmKill(false)} data-testid="kill-cancel">
                Keep trading
              </button>
              <button
                class="danger"
                data-testid="kill-confirm"
                onClick={() => {
                  setConfirmKill(false);
                  void act('kill switch', '/api/kill', { 'x-perpkit-confirm': 'KILL' });
                }}
              >
                Engage kill switch
              </button>
            </div>
          </div>
        </div>
      )}
    </div>
  );
}

/** The daemon refuses this page whatever the token (a Host it does not answer): its reason, and no token form. */
function Refused({ reason }: { reason: string }) {
  return (
    <div class="login" data-testid="refused">
      <h1>perpkit dashboard</h1>
      <p class="err" data-testid="refused-reason">
        {reason}
      </p>
    </div>
  );
}

function Login({ hadToken, onLogin }: { hadToken: boolean; onLogin(token: string): void }) {
  const [value, setValue] = useState('');
  return (
    <div class="login" data-testid="login">
      <h1>perpkit dashboard</h1>
      {hadToken && (
        <p class="err" data-testid="login-error">
          The token was refused.
        </p>
      )}
      <p>This dashboard needs its bearer token: the value of the environment variable that the bot's config names in http.dashboard.tokenEnv.</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          onLogin(value);
        }}
      >
        <input type="password" autocomplete="off" placeholder="token" value={value} onInput={(e) => setValue((e.target as HTMLInputElement).value)} data-testid="token-input" />
        <button type="submit" data-testid="token-submit">
          Open
        </button>
      </form>
    </div>
  );
}

function Header({ m, session, onKill }: { m: Model; session: Session; onKill(): void }) {
  const now = useNow(1000);
  const live = m.live;
  const [operator, setOperator] = useState(session.operator);
  const stream = (name: 'private' | 'public') => {
    const s = live?.streams[name];
    const up = s !== undefined && (s.status === 'connected' || s.status === 'reconnected');
    return (
      <span class={`pill ${s === undefined ? '' : up ? 'good' : 'bad'}`} title={s ? `${s.status} since ${clock(s.since)} UTC ${s.detail}` : 'no status reported since the bot started'} data-testid={`stream-${name}`}>
        {name} {s?.status ?? (name === 'public' ? 'no drop seen' : 'unknown')}
      </span>
    );
  };
  return (
    <header>
      <h1>
        perpkit <span class="muted">{m.bot?.name ?? ''}</span>
      </h1>
      {live && (
        <span class={`state ${live.state}`} title={live.stateReason} data-testid="state">
          {live.state}
        </span>
      )}
      {live && <span class="muted" data-testid="phase">{live.phase}</span>}
      {stream('private')}
      {stream('public')}
      <span class={`pill ${m.link === 'open' ? 'good' : 'bad'}`} title={m.linkDetail} data-testid="link">
        live {m.link}
      </span>
      {live && <span data-testid="uptime">up {duration(now - m.skew - live.startedAt)}</span>}
      {live && (
        <span class={tone(live.pnl)} data-testid="pnl">
          PnL {signed(live.pnl)} USDT
        </span>
      )}
      <span class="spacer" />
      <input class="operator" placeholder="your name (logged with actions)" value={operator} onInput={(e) => setOperator((e.target as HTMLInputElement).value)} onBlur={() => session.setOperator(operator)} data-testid="operator" />
      <button class="danger" onClick={onKill} disabled={live === undefined || live.state === 'HALTED' || live.phase !== 'running'} data-testid="kill-button">
        Kill switch
      </button>
    </header>
  );
}

function Codes({ counts }: { counts: Record<string, number> }) {
  const entries = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  if (entries.length === 0) return <span class="muted">none</span>;
  return (
    <span>
      {entries.map(([code, n]) => (
        <span class="chip" key={code}>
          {code} {n}
        </span>
      ))}
    </span>
  );
}

function Strategies({ live, act }: { live: LiveState; act(label: string, path: string): Promise<void> }) {
  const [busy, setBusy] = useState<string | undefined>(undefined);
  const run = async (s: StrategyView, what: 'pause' | 'resume' | 'cancel-orders'): Promise<void> => {
    setBusy(`${s.id}:${what}`);
    await act(`${what.replace('-', ' ')} ${s.id}`, `/api/strategies/${encodeURIComponent(s.id)}/${what}`);
    setBusy(undefined);
  };
  return (
    <section class="panel wide">
      <h2>Strategies</h2>
      <table>
        <thead>
          <tr>
            <th>id</th>
            <th>strategy</th>
            <th>status</th>
            <th>params</th>
            <th class="num">fills</th>
            <th class="num">net PnL</th>
            <th class="num">fees</th>
            <th class="num">orders</th>
            <th>errors</th>
            <th>denials</th>
            <th>rejections</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {live.strategies.map((s) => (
            <tr key={s.id} data-testid={`strategy-${s.id}`} data-status={s.status}>
              <td>{s.id}</td>
              <td>{s.strategy}</td>
              <td title={s.statusReason}>
                <span class={`status ${s.status}`}>{s.status}</span>
              </td>
              <td class="params">
                {Object.entries(s.params).map(([k, v]) => (
                  <span class="chip" key={k}>
                    {k}={typeof v === 'string' ? v : JSON.stringify(v)}
                  </span>
                ))}
              </td>
              <td class="num" data-testid={`strategy-${s.id}-fills`}>
                {s.fills}
              </td>
              <td class={`num ${tone(s.netPnl)}`}>{signed(s.netPnl, 4)}</td>
              <td class="num">{dec(s.fees, 4)}</td>
              <td class="num">{s.openOrders}</td>
              <td title={s.lastError}>{s.errors}</td>
              <td>
                <Codes counts={s.denials} />
              </td>
              <td>
                <Codes counts={s.rejections} />
              </td>
              <td class="actions">
                {s.status === 'paused' ? (
                  <button disabled={busy !== undefined} onClick={() => void run(s, 'resume')} data-testid={`resume-${s.id}`}>
                    Resume
                  </button>
                ) : (
                  <button disabled={busy !== undefined} onClick={() => void run(s, 'pause')} data-testid={`pause-${s.id}`}>
                    Pause
                  </button>
                )}
                <button disabled={busy !== undefined} onClick={() => void run(s, 'cancel-orders')} data-testid={`cancel-${s.id}`}>
                  Cancel orders
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Positions({ live }: { live: LiveState }) {
  return (
    <section class="panel">
      <h2>Positions</h2>
      {live.positions.length === 0 ? (
        <p class="muted" data-testid="no-positions">
          No open position.
        </p>
      ) : (
        <table data-testid="positions">
          <thead>
            <tr>
              <th>symbol</th>
              <th>side</th>
              <th class="num">size</th>
              <th class="num">entry</th>
              <th class="num">mark</th>
              <th class="num">unrealized</th>
              <th class="num">liq. price</th>
            </tr>
          </thead>
          <tbody>
            {live.positions.map((p) => (
              <tr key={`${p.symbol}:${p.positionSide}`} data-testid={`position-${p.symbol}`}>
                <td>{p.symbol}</td>
                <td>{p.positionSide}</td>
                <td class="num" data-testid={`position-${p.symbol}-size`}>
                  {p.quantity}
                </td>
                <td class="num">{dec(p.entryPrice)}</td>
                <td class="num">{dec(p.markPrice)}</td>
                <td class={`num ${tone(p.unrealizedPnl)}`}>{signed(p.unrealizedPnl, 4)}</td>
                <td class="num">{/[1-9]/.test(p.liqPrice) ? dec(p.liqPrice) : '–'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Orders({ live }: { live: LiveState }) {
  const now = useNow(1000);
  return (
    <section class="panel">
      <h2>
        Working orders <span class="muted" data-testid="orders-count">{live.orders.length}</span>
      </h2>
      <table>
        <thead>
          <tr>
            <th>strategy</th>
            <th>symbol</th>
            <th>side</th>
            <th class="num">price</th>
            <th class="num">qty</th>
            <th class="num">filled</th>
            <th>state</th>
            <th class="num">age</th>
          </tr>
        </thead>
        <tbody>
          {live.orders.map((o) => (
            <tr key={o.clientOrderId} data-testid="order-row">
              <td>{o.strategyId}</td>
              <td>{o.symbol}</td>
              <td class={o.side === 'BUY' ? 'pos' : 'neg'}>{o.side}</td>
              <td class="num">{o.price}</td>
              <td class="num">{o.quantity}</td>
              <td class="num">{o.executedQty}</td>
              <td>{o.state}</td>
              <td class="num">{duration(now - o.sentAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

const FILTERS: Array<{ key: string; label: string; kinds: readonly string[] }> = [
  { key: 'all', label: 'all', kinds: [] },
  { key: 'fill', label: 'fills', kinds: ['fill'] },
  { key: 'denial', label: 'denials & rejections', kinds: ['denial', 'rejection'] },
  { key: 'risk', label: 'risk changes', kinds: ['riskState'] },
  { key: 'reconciled', label: 'reconciliations', kinds: ['reconciled', 'positionMismatch'] },
  { key: 'stream', label: 'connectivity', kinds: ['stream'] },
  { key: 'error', label: 'errors', kinds: ['strategyError', 'strategyStopped', 'botError'] },
  { key: 'action', label: 'actions', kinds: ['action'] },
];

function Events({ events, strategies }: { events: DashEvent[]; strategies: string[] }) {
  const [filter, setFilter] = useState('all');
  const [strategy, setStrategy] = useState('');
  const [text, setText] = useState('');
  const shown = useMemo(() => {
    const kinds = FILTERS.find((f) => f.key === filter)?.kinds ?? [];
    const needle = text.trim().toLowerCase();
    const out: DashEvent[] = [];
    for (let i = events.length - 1; i >= 0 && out.length < 300; i--) {
      const e = events[i];
      if (kinds.length > 0 && !kinds.includes(e.kind)) continue;
      if (strategy !== '' && e.strategyId !== strategy) continue;
      if (needle !== '' && !`${e.kind} ${e.code ?? ''} ${e.text}`.toLowerCase().includes(needle)) continue;
      out.push(e);
    }
    return out;
  }, [events, filter, strategy, text]);
  return (
    <section class="panel wide">
      <h2>Recent events</h2>
      <div class="row filters">
        <select value={filter} onChange={(e) => setFilter((e.target as HTMLSelectElement).value)} data-testid="event-filter">
          {FILTERS.map((f) => (
            <option key={f.key} value={f.key}>
              {f.label}
            </option>
          ))}
        </select>
        <select value={strategy} onChange={(e) => setStrategy((e.target as HTMLSelectElement).value)} data-testid="event-strategy">
          <option value="">every strategy</option>
          {strategies.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <input placeholder="search" value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} data-testid="event-search" />
        <span class="muted">{shown.length} shown</span>
      </div>
      <table class="events">
        <tbody>
          {shown.map((e) => (
            <tr key={e.id} class={e.level} data-testid="event-row" data-kind={e.kind} data-id={e.id}>
              <td class="time">{clock(e.time)}</td>
              <td>{e.kind}</td>
              <td>{e.strategyId ?? ''}</td>
              <td>{e.code ?? ''}</td>
              <td>{e.text}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
