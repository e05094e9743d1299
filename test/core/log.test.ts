/** componentLogger: one `component` field a line, however deep the component loggers are made. */
import { Writable } from 'node:stream';
import pino from 'pino';
import { componentLogger } from '../../src/core/log';
import { repeatedKeys } from '../helpers/json-keys';

function capture(): { lines: string[]; sink: Writable } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.length > 0) lines.push(line);
      done();
    },
  });
  return { lines, sink };
}

describe('componentLogger', () => {
  test('a component logger made from another replaces its component, keeping the process name, the other bindings and the options', () => {
    const { lines, sink } = capture();
    const root = pino({ base: { name: 'perpkit-demo' }, level: 'info' }, sink).child({ run: 7 });
    const exchange = componentLogger(root, 'exchange');
    const http = componentLogger(exchange, 'exchange-http', { redact: { paths: ['secret'], censor: '[redacted]' } });
    const gateway = componentLogger(http, 'ws-gateway', { redact: { paths: ['secret'], censor: '[redacted]' } });
    exchange.info('a');
    http.info({ secret: 'x' }, 'b');
    gateway.info({ secret: 'y' }, 'c');
    // A plain child of a component logger keeps its component (a strategy's logger under the bot's).
    exchange.child({ strategy: 'mm' }).info('d');
    expect(lines.map((l) => repeatedKeys(l))).toEqual([[], [], [], []]);
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>).map(({ name, run, component, secret, strategy, msg }) => ({ name, run, component, secret, strategy, msg }))).toEqual([
      { name: 'perpkit-demo', run: 7, component: 'exchange', secret: undefined, strategy: undefined, msg: 'a' },
      { name: 'perpkit-demo', run: 7, component: 'exchange-http', secret: '[redacted]', strategy: undefined, msg: 'b' },
      { name: 'perpkit-demo', run: 7, component: 'ws-gateway', secret: '[redacted]', strategy: undefined, msg: 'c' },
      { name: 'perpkit-demo', run: 7, component: 'exchange', secret: undefined, strategy: 'mm', msg: 'd' },
    ]);
  });

  test('the scanner finds repeated keys at any depth, not across objects or in strings', () => {
    expect(repeatedKeys('{"a":1,"b":{"a":2,"c":"{\\"a\\":3}"},"d":[{"a":1},{"a":2}]}')).toEqual([]);
    expect(repeatedKeys('{"component":"x","level":30,"component":"y"}')).toEqual(['component']);
    expect(repeatedKeys('{"a":{"b":1,"b":2}}')).toEqual(['b']);
  });
});
