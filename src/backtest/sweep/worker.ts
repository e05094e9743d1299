/**
 * Worker-thread entry of the sweep pool: receives SweepJob messages, answers JobResult messages.
 * One job at a time; the coordinator hands out the next when an answer arrives.
 */
import { parentPort } from 'node:worker_threads';
import { runJob, type SweepJob } from './job';

const port = parentPort;
if (port) {
  port.on('message', (job: SweepJob) => {
    void runJob(job).then((r) => port.postMessage(r));
  });
}
