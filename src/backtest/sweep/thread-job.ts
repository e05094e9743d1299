/**
 * One sweep job on a reused worker thread, isolated from the jobs before and after it on that
 * thread. A backtest runs on virtual time, so a strategy has no business with real timers: one it
 * starts (`setTimeout(() => { throw ... })`) may fire while a later job runs on the same thread,
 * and without this its error would end the thread and fail that innocent job. Here:
 *
 * - each job runs inside an AsyncLocalStorage scope; an uncaught exception or unhandled rejection
 *   carries the scope of the code that scheduled it (timers, immediates and promises propagate
 *   it, checked on node 20), so the error is the failure of the job that caused it;
 * - a job that ends with more timers or handles alive than the thread had before it fails for
 *   that (`process.getActiveResourcesInfo()`; unref'd timers are not listed), and the thread
 *   retires: it is listed in the pool's shared `retired` array before its reply is posted, so the
 *   pool's load balancer gives it no further job, and the pool ends it (its stray timers with it);
 * - an error from a job that already finished, or from no job, also retires the thread and is
 *   written to stderr: its job's result was already given and must not be taken by the next one.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { threadId, workerData, type MessagePort } from 'node:worker_threads';
import { runJob, type JobResult, type SweepJob } from './job';

/** What the worker thread posts back for a job. */
export type ThreadReply =
  /** `retire`: the thread listed itself as retiring; the pool ends thread `thread`. */
  | { kind: 'result'; result: JobResult; retire: boolean; thread: number }
  /** The thread had retired before this job reached it: the pool runs the job elsewhere. */
  | { kind: 'refused' };

/** One job as the pool hands it to a thread: `started` gets a message when the job begins there. */
export interface ThreadTask {
  job: SweepJob;
  started: MessagePort;
}

/** What the pool hands its threads (piscina's workerData). */
export interface ThreadData {
  /** Thread ids of retiring threads (0: a free slot), written here, read by the pool's balancer. */
  retired: SharedArrayBuffer;
}

interface Scope {
  index: number;
  running: boolean;
  errors: string[];
}

const scopes = new AsyncLocalStorage<Scope>();
let retired = false;

const text = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Lists this thread as retiring, for the pool's balancer; false when the list is full. */
function retire(): boolean {
  if (retired) return true;
  retired = true;
  const data = workerData as ThreadData | undefined;
  if (data?.retired === undefined) return false;
  const slots = new Int32Array(data.retired);
  for (let i = 0; i < slots.length; i++) if (Atomics.compareExchange(slots, i, 0, threadId) === 0) return true;
  return false;
}

function strayError(e: unknown): void {
  const scope = scopes.getStore();
  if (scope?.running === true) {
    scope.errors.push(text(e));
    return;
  }
  // Its job's result is already given (or it belongs to none): no other job may take the blame.
  const listed = retire();
  const who = scope === undefined ? 'code outside any sweep job' : `job ${scope.index}, after it finished (from a timer or callback it left behind)`;
  process.stderr.write(`perpkit sweep worker thread ${threadId}: uncaught error in ${who}: ${text(e)}; this thread takes no further job\n`);
  // A thread the balancer does not know to skip would take the next job with the stray code still
  // in it: end it instead (piscina starts another; a job running here fails with the exit).
  if (!listed) process.exit(1);
}

process.on('uncaughtException', strayError);
process.on('unhandledRejection', strayError);

/** Resource types (Timeout, TCPWrap, ...) and how many of each are alive now. */
function resources(): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of process.getActiveResourcesInfo()) m.set(r, (m.get(r) ?? 0) + 1);
  return m;
}

/**
 * Requests in flight (a file being closed, a write): they end by themselves, and perpkit's own
 * reading leaves a close or two in flight when a backtest resolves. Waited for, never blamed.
 */
const REQUEST = /Req|^(WriteWrap|ShutdownWrap)$/;

/** Types of resources alive now beyond `before`, with how many more. */
function added(before: Map<string, number>): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  for (const [type, n] of resources()) if (n > (before.get(type) ?? 0)) out.push([type, n - (before.get(type) ?? 0)]);
  return out;
}

/**
 * What the job left alive that was not before it, as `Timeout x2, TCPWrap`; '' when nothing.
 * First its requests in flight end (up to a second) and its immediates run.
 */
async function leftOver(before: Map<string, number>): Promise<string> {
  for (let i = 0; i < 3; i++) await new Promise<void>((r) => setImmediate(r));
  // Turn by turn of the event loop (each turn takes the I/O that completed), not in 5 ms sleeps: a
  // close in flight ends within a turn or two, and the sleeps added ~5 ms to every job.
  const until = performance.now() + 1000;
  while (added(before).some(([type]) => REQUEST.test(type)) && performance.now() < until) await new Promise<void>((r) => setImmediate(r));
  return added(before)
    .filter(([type]) => !REQUEST.test(type))
    .map(([type, n]) => (n === 1 ? type : `${type} x${n}`))
    .join(', ');
}

export async function runJobOnThread(task: ThreadTask): Promise<ThreadReply> {
  if (retired) return { kind: 'refused' };
  const { job } = task;
  // The pool's jobTimeoutMs runs from here.
  task.started.postMessage(0);
  const before = resources();
  const scope: Scope = { index: job.index, running: true, errors: [] };
  const result = await scopes.run(scope, () => runJob(job));
  const left = await leftOver(before);
  scope.running = false;
  const why: string[] = [];
  if (scope.errors.length > 0) why.push(`uncaught error in code the job started (a timer or callback of its strategy): ${scope.errors[0]}${scope.errors.length > 1 ? ` (and ${scope.errors.length - 1} more)` : ''}`);
  if (left !== '') why.push(`the job left real timers or handles running after its backtest ended (${left}); a backtest runs on virtual time: use ctx.every and onTimer, not setTimeout or setInterval; its worker thread was replaced`);
  if (why.length === 0) return { kind: 'result', result, retire: false, thread: threadId };
  const failed: JobResult = { ...result, error: [...why, ...(result.error === undefined ? [] : [result.error])].join('; ') };
  if (left === '') return { kind: 'result', result: failed, retire: false, thread: threadId };
  // Not listed (the list full: it holds twice the pool's threads): ended all the same; a job the
  // balancer gave it meanwhile is refused and runs elsewhere.
  retire();
  return { kind: 'result', result: failed, retire: true, thread: threadId };
}
