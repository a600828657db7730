import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kafka } from 'kafkajs';
import { howEnded, startNode } from '../../bench/infra/child-process';
import { ResultCollector } from '../../bench/measure/result-collector';

// The benchmark tells a dead service from a slow one by howEnded(): a phase whose process ended
// is reported failed, not "capped" at whatever rate it reached before it died.
describe('the benchmark, when the process under test ends', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-child-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  function script(name: string, body: string): string {
    const path = join(dir, name);
    writeFileSync(path, body);
    return path;
  }

  it('says a process that aborted ended, by its signal: a heap out of memory ends so', async () => {
    const started = startNode(
      'aborts',
      script('aborts.js', 'process.abort();'),
      {},
      { logDir: dir },
    );
    expect(await started.exited).toBe('SIGABRT');
    expect(started.child.exitCode).toBeNull(); // why an exit-code check alone missed it
    expect(howEnded(started)).toBe('SIGABRT');
  });

  it('gives the exit code of a process that exited, and undefined while one runs', async () => {
    const runs = startNode(
      'runs',
      script('runs.js', 'setTimeout(() => process.exit(3), 500);'),
      {},
      {
        logDir: dir,
      },
    );
    expect(howEnded(runs)).toBeUndefined();
    expect(await runs.exited).toBe('3');
    expect(howEnded(runs)).toBe('3');
  });

  it('stops waiting for results as soon as the process ends, not at the cap', async () => {
    // Never started: no record arrives, as none does from a service that died.
    const collector = new ResultCollector({} as Kafka, ['results']);
    const dies = startNode('dies', script('dies.js', 'process.abort();'), {}, { logDir: dir });
    const tenMinutes = 600_000;
    const waited = collector.waitUntil(() => false, tenMinutes, dies.exited);
    expect(await waited).toBe(false);
    expect(howEnded(dies)).toBe('SIGABRT');
    // What held when the process ended still counts.
    const done = startNode('done', script('done.js', 'process.exit(0);'), {}, { logDir: dir });
    expect(
      await collector.waitUntil(() => howEnded(done) !== undefined, tenMinutes, done.exited),
    ).toBe(true);
  }, 30_000);
});
