/**
 * `perpkit record`: records a venue's streams into a recording (docs/recording.md) until SIGINT
 * or SIGTERM, then closes the file cleanly. stdout carries one line, `recording to <file>`, once
 * the streams are subscribed (tests and scripts wait for it); logs go to stderr.
 */
import { existsSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { envLogLevel } from './log-level';
import { readConfigYaml } from '../core/config-text';
import { PerpClient } from '../client/client';
import { SystemClock, SystemScheduler } from '../core/clock';
import { PUBLIC_TOPIC_KINDS, type PublicTopicKind } from '../core/enums';
import { yamlLineOf } from '../core/yaml-lines';
import { defaultOf, keysOf } from '../core/config-schema';
import { RECORD_CONFIG, RECORD_VENUE } from './record-config-schema';
import { AUTH_API_KEY, AUTH_PASSWORD } from '../runtime/config-schema';
import { Recorder, UnknownSymbolError, type RecorderVenue } from '../market-data/recorder';
import { argsMessage, usageFailure } from './usage';
import { existingOutProblem, staleOutProblem } from '../market-data/writer';
import { RECORD_USAGE } from './usage-texts';

class UsageError extends Error {}

interface RecordConfig {
  baseUrl: string;
  auth: { kind: 'apiKey'; apiKey: string; secret: string } | { kind: 'password'; username: string; password: string } | undefined;
  symbols: string[];
  kinds: PublicTopicKind[];
  pollPositionsMs: number;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function env(name: unknown, at: string): string {
  if (typeof name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new UsageError(`config ${at}: expected the name of an environment variable`);
  const v = process.env[name];
  if (v === undefined || v === '') throw new UsageError(`config ${at}: environment variable ${name} must be set (it holds a secret, so it is not in the file)`);
  return v;
}

/** Reads and checks the YAML config; secrets come from the environment variables it names. */
export function loadRecordConfig(file: string): RecordConfig {
  const { text, value: doc } = readConfigYaml(file, (p) => new UsageError(`${file}${p.line === undefined ? '' : `:${p.line}:${p.column ?? 1}`}: expected ${p.expected}, got ${p.got}`));
  const fail = (at: string, what: string): never => {
    const line = yamlLineOf(text, at);
    throw new UsageError(`${file}${line === undefined ? '' : `:${line}`}: ${at}: expected ${what}`);
  };
  if (!isRecord(doc)) fail('(top)', 'a mapping with venue and symbols');
  const top = doc as Record<string, unknown>;
  // A misspelt key is refused, never silently ignored.
  const only = (o: Record<string, unknown>, at: string, keys: string[]): void => {
    for (const k of Object.keys(o)) if (!keys.includes(k)) fail(at === '' ? k : `${at}.${k}`, `one of the known keys ${keys.join(', ')}, got unknown key '${k}'`);
  };
  only(top, '', keysOf(RECORD_CONFIG));
  const venue = isRecord(top.venue) ? top.venue : fail('venue', 'a mapping with baseUrl');
  only(venue, 'venue', keysOf(RECORD_VENUE));
  const baseUrl = typeof venue.baseUrl === 'string' && /^https?:\/\/[^/\s]+\/?$/.test(venue.baseUrl) ? venue.baseUrl.replace(/\/$/, '') : fail('venue.baseUrl', 'an http(s) origin such as http://127.0.0.1:8080');
  let auth: RecordConfig['auth'];
  const a = venue.auth;
  if (a !== undefined) {
    if (!isRecord(a)) fail('venue.auth', '{ apiKeyEnv, secretEnv } or { username, passwordEnv }');
    const ar = a as Record<string, unknown>;
    only(ar, 'venue.auth', keysOf('apiKeyEnv' in ar ? AUTH_API_KEY : AUTH_PASSWORD));
    if ('apiKeyEnv' in ar) auth = { kind: 'apiKey', apiKey: env(ar.apiKeyEnv, 'venue.auth.apiKeyEnv'), secret: env(ar.secretEnv, 'venue.auth.secretEnv') };
    else if (typeof ar.username === 'string') auth = { kind: 'password', username: ar.username, password: env(ar.passwordEnv, 'venue.auth.passwordEnv') };
    else fail('venue.auth', '{ apiKeyEnv, secretEnv } or { username, passwordEnv }');
  }
  const symbols = Array.isArray(top.symbols) && top.symbols.length > 0 && top.symbols.every((s) => typeof s === 'string' && s !== '') ? (top.symbols as string[]) : fail('symbols', 'a non-empty list of symbol names');
  const twice = (list: string[]): string | undefined => list.find((x, i) => list.indexOf(x) !== i);
  const again = twice(symbols);
  if (again !== undefined) fail('symbols', `each symbol once, got ${again} twice`);
  const kindsRaw = top.kinds ?? [...PUBLIC_TOPIC_KINDS];
  const known: readonly string[] = PUBLIC_TOPIC_KINDS;
  // An empty list recorded nothing but the header, for as long as it ran.
  const kinds = Array.isArray(kindsRaw) && kindsRaw.length > 0 && kindsRaw.every((k) => typeof k === 'string' && known.includes(k)) ? (kindsRaw as PublicTopicKind[]) : fail('kinds', `a non-empty list of ${PUBLIC_TOPIC_KINDS.join(', ')} (leave it out for all), got ${JSON.stringify(kindsRaw)}`);
  const kindAgain = twice(kinds);
  if (kindAgain !== undefined) fail('kinds', `each kind once, got ${kindAgain} twice`);
  const poll = top.pollPositionsMs ?? defaultOf<number>(RECORD_CONFIG.properties.pollPositionsMs);
  const pollPositionsMs = typeof poll === 'number' && Number.isInteger(poll) && poll >= 0 ? poll : fail('pollPositionsMs', 'an integer number of ms >= 0');
  return { baseUrl, auth, symbols, kinds, pollPositionsMs };
}

/** The SDK client as the recorder's venue (src/backtest may not import the SDK itself). */
function venueOf(client: PerpClient): RecorderVenue {
  return {
    getSymbols: async () => (await client.market.getSymbols({})).symbols,
    getPositions: async () => (await client.positions.getPositions({})).positions,
    publicStream: () => client.publicStream(),
    privateStream: () => client.privateStream(),
  };
}

export async function runRecord(argv: string[]): Promise<number> {
  let cfg: RecordConfig;
  let out: string;
  let rotateBytes = 0;
  let rotateMs = 0;
  try {
    const { values: o } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        config: { type: 'string' },
        out: { type: 'string' },
        'rotate-mb': { type: 'string' },
        'rotate-hours': { type: 'string' },
        overwrite: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (o.help) {
      process.stdout.write(RECORD_USAGE);
      return 0;
    }
    if (o.config === undefined) throw new UsageError('--config <file> is required');
    if (o.out === undefined || o.out === '') throw new UsageError('--out <file> is required');
    const positive = (name: string, v: string | undefined): number => {
      if (v === undefined) return 0;
      if (!/^\d+(\.\d+)?$/.test(v) || !(Number(v) > 0)) throw new UsageError(`--${name} must be a positive number, got '${v}'`);
      return Number(v);
    };
    rotateBytes = Math.round(positive('rotate-mb', o['rotate-mb']) * 1024 * 1024);
    rotateMs = Math.round(positive('rotate-hours', o['rotate-hours']) * 3_600_000);
    out = o.out;
    cfg = loadRecordConfig(o.config);
    // The file is opened only once the venue has answered, and a write stream's open error comes
    // later still, out of a stream callback: a missing folder is said here, in one line.
    const dir = path.dirname(path.resolve(out));
    let isDir = false;
    try {
      isDir = statSync(dir).isDirectory();
    } catch {
      isDir = false;
    }
    if (!isDir) throw new UsageError(`--out ${out}: expected a file in an existing folder, got no folder ${dir}`);
    if (existsSync(out) && statSync(out).isDirectory()) throw new UsageError(`--out ${out}: expected the path of the recording to write, got a folder`);
    const stale = staleOutProblem(out);
    if (stale !== undefined) throw new UsageError(stale);
    // A live capture cannot be made again: an earlier one is never replaced without being asked.
    const there = existingOutProblem(out, o.overwrite === true, 'an earlier recording cannot be captured again');
    if (there !== undefined) throw new UsageError(there);
  } catch (e) {
    return usageFailure('record', argsMessage(e));
  }
  const logLevel = envLogLevel();
  if ('error' in logLevel) {
    process.stderr.write(`perpkit record: ${logLevel.error}\n`);
    return 2;
  }
  const logger = pino({ level: logLevel.level, base: { name: 'record' } }, pino.destination(2));
  const client = new PerpClient({ baseUrl: cfg.baseUrl, ...(cfg.auth?.kind === 'apiKey' ? { apiKey: { apiKey: cfg.auth.apiKey, secret: cfg.auth.secret } } : {}), logger });
  // Until the recording runs, a write failure is kept for the start's error to say.
  let startFailure: Error | undefined;
  let failed = (e: Error): void => {
    startFailure ??= e;
  };
  const recorder = new Recorder({
    venue: venueOf(client),
    source: cfg.baseUrl,
    symbols: cfg.symbols,
    kinds: cfg.kinds,
    private: cfg.auth !== undefined,
    pollPositionsMs: cfg.pollPositionsMs,
    out,
    rotateBytes,
    rotateMs,
    clock: new SystemClock(),
    scheduler: new SystemScheduler(),
    logger,
    onFailure: (e) => failed(e),
  });
  try {
    if (cfg.auth?.kind === 'password') await client.login(cfg.auth.username, cfg.auth.password);
    await recorder.start();
    if (startFailure !== undefined) throw startFailure;
  } catch (e) {
    process.stderr.write(`perpkit record: cannot start recording from ${cfg.baseUrl}: ${e instanceof Error ? e.message : String(e)}\n`);
    await recorder.stop().catch(() => undefined);
    await client.close().catch(() => undefined);
    return e instanceof UnknownSymbolError ? 2 : 1;
  }
  process.stdout.write(`recording to ${out}\n`);
  return new Promise<number>((resolve) => {
    let stopping = false;
    // The file cannot be written: the recording stops, what was written stays, exit 1.
    failed = (e: Error): void => {
      if (stopping) return;
      stopping = true;
      void recorder
        .stop()
        .catch(() => undefined)
        .then(() => client.close())
        .catch(() => undefined)
        .then(() => {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
          process.stderr.write(`perpkit record: writing ${out} failed: ${e.message}; stopped after ${recorder.stats.events} events (what reached the file is kept)\n`);
          resolve(1);
        });
    };
    const onSignal = (sig: NodeJS.Signals): void => {
      if (stopping) process.exit(1);
      stopping = true;
      logger.info({ signal: sig }, 'stopping');
      recorder
        .stop()
        .then(() => client.close())
        .then(
          () => {
            process.off('SIGINT', onSignal);
            process.off('SIGTERM', onSignal);
            const st = recorder.stats;
            const late = st.late > 0 ? `, ${st.late} pushes stamped up to ${st.lateMaxMs} ms before the line before them, written at its time (venue time in et)` : '';
            process.stdout.write(`closed ${st.files.join(', ')} (${st.events} events, ${st.gaps} gaps${late}${st.dropped > 0 ? `, ${st.dropped} events dropped: the disk fell more than 32 MiB behind` : ''})\n`);
            resolve(0);
          },
          (e: unknown) => {
            logger.error({ err: e instanceof Error ? e.message : String(e) }, 'closing the recording failed');
            resolve(1);
          },
        );
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
