/**
 * A small fault-injecting HTTP proxy on loopback, in front of the local exchange. Rules are matched
 * in order against each request and used up `times` times:
 * - `lose-response`: forward, let the exchange act, then cut the client's socket without an answer;
 * - `respond`: answer with a status/body/headers without forwarding (503, 429 ...);
 * - `reset`: cut the socket without forwarding;
 * - `delay`: forward after `ms`, answering normally (for client timeouts).
 * WebSocket upgrades are piped through untouched, so streams can use the proxy too.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';

export type FaultAction =
  | { kind: 'lose-response' }
  | { kind: 'respond'; status: number; body?: string; headers?: Record<string, string> }
  | { kind: 'reset' }
  | { kind: 'delay'; ms: number };

export interface FaultRule {
  method?: string;
  /** Path prefix (no query). */
  path?: string;
  times: number;
  action: FaultAction;
}

export interface FaultProxy {
  url: string;
  add(rule: FaultRule): void;
  /** Requests seen, as `METHOD path`. */
  seen: string[];
  /** Requests seen with their query string, as `METHOD path?query`. */
  seenTargets: string[];
  /** Requests that reached the exchange. */
  forwarded: string[];
  close(): Promise<void>;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const t = new URL(target);
  const rules: FaultRule[] = [];
  const seen: string[] = [];
  const seenTargets: string[] = [];
  const forwarded: string[] = [];
  const sockets = new Set<Socket>();
  const agent = new http.Agent({ keepAlive: true });

  const forward = (req: IncomingMessage, body: Buffer, onAnswer: (status: number, headers: http.IncomingHttpHeaders, data: Buffer) => void): void => {
    forwarded.push(`${req.method} ${(req.url ?? '').split('?')[0]}`);
    const up = http.request(
      { host: t.hostname, port: t.port, method: req.method, path: req.url, headers: { ...req.headers, host: t.host }, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => onAnswer(res.statusCode ?? 502, res.headers, Buffer.concat(chunks)));
      },
    );
    up.on('error', () => onAnswer(502, {}, Buffer.from('upstream error')));
    up.end(body);
  };

  const handle = (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    seen.push(`${req.method} ${path}`);
    seenTargets.push(`${req.method} ${req.url ?? ''}`);
    const i = rules.findIndex((r) => (r.method === undefined || r.method === req.method) && (r.path === undefined || path.startsWith(r.path)));
    const rule = i >= 0 ? rules[i] : undefined;
    if (rule !== undefined && --rule.times <= 0) rules.splice(i, 1);
    const pass = (): void =>
      forward(req, body, (status, headers, data) => {
        const h = { ...headers };
        delete h['transfer-encoding'];
        delete h.connection;
        res.writeHead(status, h);
        res.end(data);
      });
    switch (rule?.action.kind) {
      case undefined:
        return pass();
      case 'lose-response':
        return forward(req, body, () => req.socket.destroy());
      case 'reset':
        req.socket.destroy();
        return;
      case 'respond': {
        const a = rule.action as Extract<FaultAction, { kind: 'respond' }>;
        res.writeHead(a.status, { 'content-type': 'application/json', ...(a.headers ?? {}) });
        res.end(a.body ?? '');
        return;
      }
      case 'delay': {
        const a = rule.action as Extract<FaultAction, { kind: 'delay' }>;
        setTimeout(pass, a.ms);
        return;
      }
    }
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks)));
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  // WebSocket upgrades: a raw TCP pipe to the exchange, replaying the request head.
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const up = net.connect(Number(t.port), t.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let k = 0; k < req.rawHeaders.length; k += 2) lines.push(`${req.rawHeaders[k]}: ${req.rawHeaders[k + 1]}`);
      up.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) up.write(head);
      socket.pipe(up).pipe(socket);
    });
    sockets.add(up);
    up.on('close', () => {
      sockets.delete(up);
      socket.destroy();
    });
    up.on('error', () => socket.destroy());
    socket.on('error', () => up.destroy());
    socket.on('close', () => up.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    add: (r) => rules.push(r),
    seen,
    seenTargets,
    forwarded,
    async close() {
      for (const s of sockets) s.destroy();
      agent.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
