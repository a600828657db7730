import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { RedisIdempotencyStore } from '../src/idempotency/redis-idempotency.store';
import { freePort } from './support/free-port';
import { idempotencyStoreContract } from './support/idempotency-store.contract';
import { waitFor } from './support/kafka-helpers';

describe('RedisIdempotencyStore on the real Redis', () => {
  idempotencyStoreContract(async (now) => {
    const store = new RedisIdempotencyStore(
      'redis://127.0.0.1:6379',
      60,
      `mailbridge-test:${randomUUID()}:`,
      now,
    );
    await store.connect();
    return store;
  });

  it('claims atomically: of many concurrent handlings exactly one wins', async () => {
    const store = new RedisIdempotencyStore(
      'redis://127.0.0.1:6379',
      60,
      `mailbridge-test:${randomUUID()}:`,
    );
    await store.connect();
    try {
      await store.heartbeat('i', 60_000);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, n) =>
          store.claim('race:welcome', { instance: 'i', handling: `h${n}` }, 10_000),
        ),
      );
      expect(results.filter((r) => r.kind === 'claimed')).toHaveLength(1);
      expect(results.filter((r) => r.kind === 'busy')).toHaveLength(19);
    } finally {
      await store.close();
    }
  });

  it('logs a hung Redis as soon as readiness reports it, even if it answers again before the next check', async () => {
    const port = await freePort();
    const redis = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    let clock = Date.now();
    const store = new RedisIdempotencyStore(
      `redis://127.0.0.1:${port}`,
      60,
      `mailbridge-test:${randomUUID()}:`,
      () => clock,
      { pingIntervalMs: 50, pingTimeoutMs: 3_000 },
    );
    try {
      await store.connect().catch(() => undefined); // it goes on trying while redis-server starts
      await waitFor(() => store.connected || undefined, { what: 'the private Redis' });
      errors.mockClear(); // the refused connections while redis-server started
      redis.kill('SIGSTOP');
      // A PING goes out within one interval and gets no answer; then the hang lasts long enough.
      await new Promise((resolve) => setTimeout(resolve, 300));
      clock += 3_000;
      // Read exactly as readiness does, with no PING tick in between.
      expect(store.connectionProblem).toMatch(/no answer to PING/);
      expect(errors.mock.calls.map(([message]) => String(message))).toEqual([
        expect.stringMatching(/^Redis unreachable.*no answer to PING/),
      ]);
      redis.kill('SIGCONT');
      await waitFor(() => store.connected || undefined, { what: 'Redis answering again' });
      expect(errors).toHaveBeenCalledTimes(1); // once per outage
    } finally {
      errors.mockRestore();
      redis.kill('SIGCONT');
      await store.close();
      redis.kill('SIGKILL');
    }
  });
});
