import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import calculateSlot from 'cluster-key-slot';
import type { Redis } from 'ioredis';
import type { RecordedOutcome } from '../src/contracts/action-outcome';
import { RedisIdempotencyStore } from '../src/idempotency/redis-idempotency.store';
import { freePort } from './support/free-port';
import { idempotencyStoreContract } from './support/idempotency-store.contract';
import { waitFor } from './support/kafka-helpers';
import { monitorRedis } from './support/redis-monitor';

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

  it('sends a turn’s claims to one Redis as one script call, in one write, whatever their slots', async () => {
    const prefix = `mailbridge-test:${randomUUID()}:`;
    const store = new RedisIdempotencyStore('redis://127.0.0.1:6379', 60, prefix);
    await store.connect();
    const calls: string[][] = [];
    const monitor = await monitorRedis((args) => {
      const keys = args.slice(3, 3 + Number(args[2]));
      if (args[0].startsWith('eval') && keys[0]?.startsWith(prefix)) calls.push(keys);
    });
    try {
      await store.heartbeat('i', 60_000);
      // Loads the script (EVALSHA, NOSCRIPT, EVAL): later calls are one EVALSHA each.
      await store.claim('warm', { instance: 'i', handling: 'w' }, 10_000);
      await waitFor(() => calls.length > 0 || undefined, { what: 'the warm-up claim' });
      calls.length = 0;
      const writes = jest.spyOn((store.client as Redis).stream, 'write');
      // A hash tag puts two of the keys in one slot; the others fall where they hash.
      const keys = ['a', 'b', 'c', '{t}:x', '{t}:y'];
      const results = await Promise.all(
        keys.map((key) => store.claim(key, { instance: 'i', handling: key }, 10_000)),
      );
      expect(results.map((r) => r.kind)).toEqual(keys.map(() => 'claimed'));
      expect(writes).toHaveBeenCalledTimes(1); // one round trip
      writes.mockRestore();
      // One Redis holds every slot: splitting the batch by slot would only cost script calls.
      expect(new Set(keys.map((key) => calculateSlot(prefix + key))).size).toBeGreaterThan(1);
      await waitFor(() => calls.length >= 1 || undefined, { what: 'the call' });
      expect(calls).toEqual([keys.map((key) => prefix + key)]);
    } finally {
      monitor.stop();
      await store.close();
    }
  });

  it('records a batch of thousands of outcomes, each kept for the retention', async () => {
    const prefix = `mailbridge-test:${randomUUID()}:`;
    const store = new RedisIdempotencyStore('redis://127.0.0.1:6379', 3_600, prefix);
    await store.connect();
    try {
      const sent: RecordedOutcome = {
        status: 'sent',
        requestIds: ['r'],
        message: 'ok',
        recipientCount: 1,
        batchRecipientCount: 1,
      };
      const mark: RecordedOutcome = { status: 'in-window', list: 'new-customers-20261124T0400Z' };
      // A closing window's orders arrive as one call: three arguments per outcome would be more
      // than a spread argument list may hold.
      const many = Array.from({ length: 50_000 }, (_, n) => ({ key: `k${n}`, outcome: sent }));
      await store.complete([...many, { key: 'k0', outcome: mark }, { key: 'm', outcome: mark }]);

      const redis = store.client;
      expect(await redis.keys(`${prefix}*`)).toHaveLength(50_001);
      expect(await redis.get(`${prefix}k49999`)).toBe(`done|${JSON.stringify(sent)}`);
      // The mark never replaces an outcome, even one recorded earlier in the same call.
      expect(await redis.get(`${prefix}k0`)).toBe(`done|${JSON.stringify(sent)}`);
      expect(await redis.get(`${prefix}m`)).toBe(`done|${JSON.stringify(mark)}`);
      for (const key of ['k0', 'k49999', 'm']) {
        const ttl = await redis.ttl(`${prefix}${key}`);
        expect(ttl).toBeGreaterThan(3_500);
        expect(ttl).toBeLessThanOrEqual(3_600);
      }
    } finally {
      const keys = await store.client.keys(`${prefix}*`);
      for (let i = 0; i < keys.length; i += 10_000)
        await store.client.del(keys.slice(i, i + 10_000));
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
