/**
 * Worker-thread entry of the sweep pool (piscina calls the default export with a SweepJob and
 * posts back the JobResult it resolves to).
 */
import { runJob } from './job';

export default runJob;
