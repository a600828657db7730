import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

/**
 * Preloaded into a mailbridge process by `npm run bench -- --alloc-profile` or
 * `--survivor-profile` (`node --require …/alloc-sampler.js`): V8's sampling heap profiler runs
 * from the first line of the service to its exit, and the profile is written to the path in
 * `BENCH_ALLOC_PROFILE` as the process exits (the phase's SIGTERM makes it do so).
 *
 * What it counts is `BENCH_ALLOC_KEEP`:
 * - `allocated` (the default): the samples of objects the collector has freed are kept, so the
 *   profile counts what was allocated over the run, not what was still alive at its end;
 * - `survived`: the samples of objects freed by a scavenge (the young generation's collection)
 *   are dropped, those freed later by a full collection kept, so the profile counts the bytes
 *   that outlived a scavenge. A scavenge's time is the copying of those bytes, and what outlives
 *   two is promoted to old space, whose filling sets off the full collections.
 *
 * A sample is taken every 32 KiB on average (V8's default interval) and weighted by V8 to
 * estimate all the bytes allocated there.
 */
const path = process.env.BENCH_ALLOC_PROFILE;
const keep = process.env.BENCH_ALLOC_KEEP ?? 'allocated';
if (path && keep !== 'allocated' && keep !== 'survived') {
  console.error(`alloc-sampler: BENCH_ALLOC_KEEP must be allocated or survived, not ${keep}`);
  process.exit(2);
}
if (path) {
  const session = new Session();
  session.connect();
  session.post('HeapProfiler.startSampling', {
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: keep === 'allocated',
  });
  // The main thread's session answers synchronously, so this works in an `exit` listener.
  process.once('exit', () => {
    session.post('HeapProfiler.stopSampling', (error, result) => {
      if (error) console.error(`alloc-sampler: ${error.message}`);
      else writeFileSync(path, JSON.stringify(result.profile));
    });
  });
}
