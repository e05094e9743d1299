/**
 * What the sweep coordinator (`perpkit sweep --queue`) and the queue workers (`perpkit worker`)
 * share: the BullMQ queue's name, the job they pass (a SweepJob plus the digests of the files it
 * reads), and a Redis connection that gives up after a bounded time instead of retrying forever,
 * so an unreachable or vanished Redis becomes one clear error.
 */
import { hostname } from 'node:os';
import type { Redis as RedisClient } from 'ioredis';
import type { SweepJob } from './job';
import type { JobFiles } from './files';

/** One queue for every sweep: workers need only the Redis address. */
export const QUEUE_NAME = 'perpkit-sweep';

export interface QueueJobData {
  /** Identity of the sweep on the queue (its config, points and data digests). */
  sweep: string;
  job: SweepJob;
  jobTimeoutMs: number | undefined;
  files: JobFiles;
}

/** BullMQ job ids: one per (sweep, point), so adding a sweep again adds nothing twice. */
export const queueJobId = (sweep: string, index: number): string => `${sweep}-${index}`;

/** Redis is unreachable, or went away and did not come back within the grace time. */
export class QueueUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QueueUnavailableError';
  }
}

/** A bad --queue value: exit 2, like any bad input. */
export function checkQueueUrl(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `--queue must be a Redis URL such as redis://127.0.0.1:6379, got '${url}'`;
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') return `--queue must be a redis:// or rediss:// URL, got '${url}'`;
  if (u.hostname === '') return `--queue must name a host (redis://host:port), got '${url}'`;
  return undefined;
}

/** The URL without its password, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}

const RETRY_MS = 250;

export interface QueueConnection {
  redis: RedisClient;
  /** The last connection error seen ('' when none), for the one-line message. */
  lastError(): string;
  /** Resolves when the connection gave up (Redis unreachable for longer than the grace time). */
  gone: Promise<QueueUnavailableError>;
  /** Resolves once connected (its database selected); rejects with `gone`'s error if it never is. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * A connection that reconnects for `graceMs` and then gives up. BullMQ needs
 * `maxRetriesPerRequest: null` (its blocking commands wait indefinitely); commands sent while
 * reconnecting wait in the offline queue and fail when the connection gives up.
 */
export function connectQueue(url: string, graceMs: number): QueueConnection {
  let last = '';
  const attempts = Math.max(1, Math.ceil(graceMs / RETRY_MS));
  // Loaded here, not at the top: the CLI reads the URL checks above without a Redis client's load time.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Redis } = require('ioredis') as { Redis: typeof RedisClient };
  const redis = new Redis(url, {
    maxRetriesPerRequest: null,
    connectionName: `perpkit@${hostname()}:${process.pid}`,
    // Stateless (BullMQ duplicates this connection with the same options): `times` counts the
    // attempts since the last successful connection.
    retryStrategy: (times: number) => (times > attempts ? null : RETRY_MS),
  });
  // The URL's database (redis://host:port/db) that the server does not have: ioredis says so on
  // 'error' and goes on in database 0, where a sweep on /99 mixed its jobs with the queue's on /0.
  let noSuchDb = false;
  redis.on('error', (e: Error) => {
    last = e.message;
    if (/DB index is out of range/i.test(e.message) && !noSuchDb) {
      noSuchDb = true;
      redis.disconnect();
    }
  });
  const gone = new Promise<QueueUnavailableError>((resolve) => {
    redis.on('end', () =>
      resolve(
        new QueueUnavailableError(
          noSuchDb
            ? `Redis at ${redactUrl(url)} has no database ${new URL(url).pathname.slice(1)} (${last}): give one it has (0 to its 'databases' setting - 1, 16 by default)`
            : `Redis at ${redactUrl(url)} is unreachable${last === '' ? '' : ` (${last})`}; gave up after ${(graceMs / 1000).toFixed(1)} s of retries`,
        ),
      ),
    );
  });
  const ready = new Promise<void>((resolve, reject) => {
    if (redis.status === 'ready') resolve();
    else redis.once('ready', () => resolve());
    void gone.then(reject);
  });
  // Callers that never wait for it must not meet an unhandled rejection.
  ready.catch(() => undefined);
  return {
    redis,
    lastError: () => last,
    gone,
    ready,
    close: async () => {
      if (redis.status === 'end') return;
      // QUIT to a server that is not there waits in the offline queue until it comes back.
      if (redis.status !== 'ready') {
        redis.disconnect();
        return;
      }
      try {
        await redis.quit();
      } catch {
        redis.disconnect();
      }
    },
  };
}
