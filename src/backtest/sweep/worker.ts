/**
 * Worker-thread entry of the sweep pool (piscina calls the default export with a SweepJob and
 * posts back the ThreadReply it resolves to).
 */
import { runJobOnThread } from './thread-job';

export default runJobOnThread;
