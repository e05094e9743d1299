/** How a running daemon (perpkit run, perpkit demo) answers the process's signals. */
import type { Logger } from 'pino';
import { errMessage } from '../core/errors';
import type { BotDaemon } from './daemon';

/**
 * SIGINT/SIGTERM stop the daemon gracefully and resolve `exit` with its code; a second one while
 * stopping exits at once with 1 (the operator insists). SIGHUP (the terminal the bot ran in went
 * away: a dropped ssh session) is a graceful stop too, said at warn: by default it ended the
 * process at once, its orders left working and nothing saved or logged. SIGUSR2 engages the kill switch.
 * Returns a function that removes the handlers.
 */
export function installSignalHandlers(daemon: BotDaemon, log: Logger, exit: (code: number) => void): () => void {
  let stopping = false;
  const onStop = (sig: NodeJS.Signals): void => {
    if (stopping) {
      log.warn({ signal: sig }, 'second signal while stopping: exiting now');
      exit(1);
      return;
    }
    stopping = true;
    if (sig === 'SIGHUP') log.warn({ signal: sig }, 'SIGHUP: the terminal the bot ran in went away; stopping gracefully (run it under systemd, or nohup, to keep it running)');
    else log.info({ signal: sig }, 'signal received');
    void daemon.stop(`signal ${sig}`).then(exit, () => exit(1));
  };
  const onKill = (): void => {
    daemon.kill('signal SIGUSR2').catch((e: unknown) => log.error({ err: errMessage(e) }, 'kill switch failed'));
  };
  process.on('SIGINT', onStop);
  process.on('SIGTERM', onStop);
  process.on('SIGHUP', onStop);
  process.on('SIGUSR2', onKill);
  return () => {
    process.off('SIGINT', onStop);
    process.off('SIGTERM', onStop);
    process.off('SIGHUP', onStop);
    process.off('SIGUSR2', onKill);
  };
}
