import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

/**
 * Preloaded into a mailbridge process by `npm run bench -- --alloc-profile`
 * (`node --require …/alloc-sampler.js`): V8's sampling heap profiler runs from the first line of
 * the service to its exit, and the profile is written to the path in `BENCH_ALLOC_PROFILE` as the
 * process exits (the phase's SIGTERM makes it do so).
 *
 * The profiler is told to keep the samples of objects the collector has freed, so the profile
 * counts what was allocated over the run, the collector's workload, not what was still alive at
 * its end. A sample is taken every 32 KiB on average (V8's default interval) and weighted by V8
 * to estimate all the bytes allocated there.
 */
const path = process.env.BENCH_ALLOC_PROFILE;
if (path) {
  const session = new Session();
  session.connect();
  session.post('HeapProfiler.startSampling', {
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  // The main thread's session answers synchronously, so this works in an `exit` listener.
  process.once('exit', () => {
    session.post('HeapProfiler.stopSampling', (error, result) => {
      if (error) console.error(`alloc-sampler: ${error.message}`);
      else writeFileSync(path, JSON.stringify(result.profile));
    });
  });
}
