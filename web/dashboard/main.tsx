/**
 * Entry of the dashboard page: the token (kept for this tab only, in sessionStorage), the
 * operator's name (remembered in localStorage, sent with every action so the bot's log says who
 * did it), the store and its stream.
 */
import { render } from 'preact';
import { App, type Session } from './app';
import { Store } from './store';
import { EventStream } from './stream';

const TOKEN_KEY = 'perpkit.dashboard.token';
const OPERATOR_KEY = 'perpkit.dashboard.operator';

const session: Session = {
  token: sessionStorage.getItem(TOKEN_KEY) ?? undefined,
  operator: localStorage.getItem(OPERATOR_KEY) ?? '',
  headers() {
    const h: Record<string, string> = {};
    if (this.token !== undefined) h.authorization = `Bearer ${this.token}`;
    if (this.operator !== '') h['x-perpkit-operator'] = this.operator.replace(/[^\x20-\x7e]/g, '');
    return h;
  },
  setToken(t) {
    this.token = t;
    sessionStorage.setItem(TOKEN_KEY, t);
  },
  setOperator(name) {
    this.operator = name;
    localStorage.setItem(OPERATOR_KEY, name);
  },
};

const store = new Store();
let stream: EventStream | undefined;

function connect(): void {
  stream?.close();
  stream = new EventStream('/api/stream', () => session.headers(), {
    message: (event, data) => store.message(event, data),
    link: (state, detail) => store.link(state, detail),
  });
  stream.start();
}

const root = document.getElementById('app');
if (root) {
  render(
    <App
      store={store}
      session={session}
      onLogin={(token) => {
        session.setToken(token);
        connect();
      }}
    />,
    root,
  );
}
connect();
