import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { imageRuntime } from '../../bench/infra/image-runtime';
import { waitFor } from '../../test/support/kafka-helpers';
import { InstancePool } from './instance-pool';
import { runTopics, serviceEnv } from './service-env';

/** Stands in for dist/main.js: says how it was started, then waits for SIGTERM. */
const REPORTER = `
const v8 = require('node:v8');
console.log(JSON.stringify({
  execArgv: process.execArgv,
  nodeOptions: process.env.NODE_OPTIONS,
  heapLimitMb: Math.round(v8.getHeapStatistics().heap_size_limit / 2 ** 20),
}));
process.on('SIGTERM', () => process.exit(0));
setInterval(() => {}, 1000);
`;

const wiring = {
  runId: 'pool-spec',
  policy: 'fail' as const,
  topics: runTopics('pool-spec'),
  brokers: ['127.0.0.1:1'],
  redis: { REDIS_URL: 'redis://127.0.0.1:1' },
  vendorUrl: 'http://127.0.0.1:1',
  relayAccessToken: 'relay',
  apiKey: 'key',
};

describe('chaos instances run as the image runs the service', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'chaos-pool-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function startedWith(serviceEnvOverride: Record<string, string>) {
    const script = join(dir, 'reporter.cjs');
    writeFileSync(script, REPORTER);
    const runtime = imageRuntime();
    const pool = new InstancePool(['a'], 39_999, {
      script,
      nodeArgs: runtime.nodeFlags,
      logDir: dir,
      env: serviceEnv(
        wiring,
        { shutdownTimeoutMs: 1_000, partitions: 1, serviceEnv: serviceEnvOverride },
        runtime,
      ),
      shutdownTimeoutMs: 1_000,
      log: () => undefined,
    });
    try {
      pool.ensureUp('a');
      const log = join(dir, 'a-1.log');
      const line = await waitFor(
        () => {
          const text = readFileSync(log, 'utf8');
          return text.includes('\n') ? text : undefined;
        },
        { timeoutMs: 15_000, what: "the instance's report" },
      );
      return {
        runtime,
        reported: JSON.parse(line) as {
          execArgv: string[];
          nodeOptions: string;
          heapLimitMb: number;
        },
        stop: await pool.terminate('a', 'spec done'),
        crashes: pool.crashes,
      };
    } finally {
      pool.stopWatching();
    }
  }

  it("gets the Dockerfile's node flags and NODE_OPTIONS, so its heap is the shipped one", async () => {
    const { runtime, reported, stop, crashes } = await startedWith({});
    expect(runtime.nodeFlags).toContain('--heap-growing-percent=100');
    expect(reported.execArgv).toEqual(runtime.nodeFlags);
    expect(reported.nodeOptions).toBe(runtime.nodeOptions);
    // 128 MB of old space and 3 × 8 MB young (152 MB); Node sets gigabytes without a limit.
    expect(reported.heapLimitMb).toBeGreaterThanOrEqual(128);
    expect(reported.heapLimitMb).toBeLessThan(256);
    expect(stop?.exit).toBe('0');
    expect(crashes).toEqual([]);
  });

  it('takes the heap limits of --service-env NODE_OPTIONS instead', async () => {
    const options = '--max-old-space-size=40 --max-semi-space-size=4';
    const { reported } = await startedWith({ NODE_OPTIONS: options });
    expect(reported.nodeOptions).toBe(options);
    expect(reported.heapLimitMb).toBeLessThan(128); // 40 MB of old space, 3 × 4 MB young
  });
});
