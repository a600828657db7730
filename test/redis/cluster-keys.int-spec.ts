import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import calculateSlot from 'cluster-key-slot';
import { Redis } from 'ioredis';
import type { ActionOutcome } from '../../src/contracts/action-outcome';
import { RedisIdempotencyStore } from '../../src/idempotency/redis-idempotency.store';
import { RedisConnection } from '../../src/redis/redis.connection';
import { RedisWindowStore } from '../../src/windows/redis-window.store';
import { freePort } from '../support/free-port';
import { windowEntry } from '../support/window-entries';
import { waitFor } from '../support/kafka-helpers';

/**
 * The stores' scripts on a Redis Cluster, which runs a script only on the keys it was given and
 * only when they share a hash slot. One node holding every slot is enough to hold them to it: it
 * refuses a script that declares keys of two slots, or reaches a key of another slot than the
 * ones it declared. The client is ioredis's cluster client, as a sharded deployment would use.
 */
describe('the stores on a Redis Cluster', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mailbridge-cluster-'));
  const prefix = `mailbridge-test:${randomUUID()}:`;
  let server: ChildProcess;
  let connection: RedisConnection;

  beforeAll(async () => {
    const port = await freePort();
    server = spawn(
      'redis-server',
      [
        ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        ...['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, 'nodes.conf')],
        // Without it the node names no address of its own in CLUSTER SLOTS, and clients stall.
        ...['--cluster-announce-ip', '127.0.0.1'],
        ...['--dir', dir],
      ],
      { stdio: 'ignore' },
    );
    const admin = await waitFor(
      async () => {
        const client = new Redis(port, '127.0.0.1', {
          lazyConnect: true,
          retryStrategy: () => null,
        });
        return client.connect().then(
          () => client,
          () => void client.disconnect(),
        );
      },
      { what: 'the node to listen' },
    );
    await admin.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
    await waitFor(
      async () =>
        String(await admin.call('CLUSTER', 'INFO')).includes('cluster_state:ok') || undefined,
      { what: 'the cluster to serve every slot' },
    );
    admin.disconnect();
    connection = new RedisConnection(
      { url: 'redis://127.0.0.1', nodes: [{ host: '127.0.0.1', port }] },
      prefix,
    );
    await connection.connect();
  });

  afterAll(async () => {
    await connection?.close();
    server?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('claims, marks, completes and takes over claims whose keys fall in many slots', async () => {
    const store = new RedisIdempotencyStore(connection, 60, prefix);
    expect(store.client.isCluster).toBe(true);
    const keys = ['a', 'b', 'c', 'd', 'e', 'f'];
    expect(new Set(keys.map((k) => calculateSlot(prefix + k))).size).toBeGreaterThan(1);
    const first = { instance: 'first', handling: 'h' };
    const second = { instance: 'second', handling: 'h' };
    await store.heartbeat('first', 60_000);

    const claims = await Promise.all(keys.map((k) => store.claim(k, first, 60_000)));
    expect(claims.map((c) => c.kind)).toEqual(keys.map(() => 'claimed'));
    const marked = await store.markSending(keys.slice(0, 3).map((key) => ({ key, holder: first })));
    expect([...marked].sort()).toEqual(['a', 'b', 'c']);
    const sent: ActionOutcome = {
      status: 'sent',
      requestIds: ['r-1'],
      message: 'ok',
      recipientCount: 1,
      batchRecipientCount: 1,
    };
    await store.complete([{ key: 'f', outcome: sent }]);

    // A live holder keeps its claims; once it is gone, they are taken over, marks and all.
    const whileAlive = await Promise.all(keys.map((k) => store.claim(k, second, 60_000)));
    expect(whileAlive.map((c) => c.kind)).toEqual([...keys.slice(0, 5).map(() => 'busy'), 'done']);
    await store.retire('first');
    const taken = await Promise.all(keys.map((k) => store.claim(k, second, 60_000)));
    expect(taken.slice(0, 5)).toEqual([
      ...['a', 'b', 'c'].map(() => ({ kind: 'reclaimed', maybeSent: true })),
      ...['d', 'e'].map(() => ({ kind: 'reclaimed', maybeSent: false })),
    ]);
    expect(await store.renew('d', second, 60_000)).toBe(true);
    await store.release('e', second);
    expect(await store.claim('e', first, 60_000)).toEqual({ kind: 'claimed' });
  });

  it('places, takes and publishes a window’s lists, every key in one slot', async () => {
    // Keys expire by this clock (PEXPIREAT), so it is the real one, moved on by hand.
    let now = Date.now();
    const store = new RedisWindowStore(
      connection.client,
      prefix,
      { lingerMs: 1_000, maxMembers: 2, latePolicy: 'next-window', retentionSeconds: 3_600 },
      () => now,
    );
    const window = { name: 'new-customers-earlier', end: now - 1 };
    const present = { name: 'new-customers-now', end: now + 3_600_000 };
    const entry = (n: number) => windowEntry(window, n, present);
    // Three orders in one call: the third fills the list past two members into a continuation.
    const placed = await Promise.all([1, 2, 3].map((n) => store.add(entry(n))));
    expect(placed.map((p) => p.list)).toEqual([window.name, window.name, `${window.name}-2`]);
    expect(await store.add(entry(1))).toEqual({ status: 'duplicate', list: window.name });

    now += 1_000;
    const taken = await store.take('owner', 30_000);
    expect(taken?.name).toBe(window.name);
    expect(taken?.members).toHaveLength(2);
    expect(await store.renew(window.name, 'owner', 30_000)).toBe(true);
    expect(await store.markSending(window.name, 'owner')).toBe(true);
    expect(await store.created(window.name, 'owner', 'list-1', false)).toBe(true);
    expect(await store.published(window.name, 'owner')).toBe(true);
    const second = await store.take('owner', 30_000);
    expect(second?.name).toBe(`${window.name}-2`);
    // The window's lists taken, an order for it goes to the present window (next-window).
    expect(await store.add(entry(4))).toEqual({ status: 'next-window', list: present.name });
    await store.giveBack(second!.name, 'owner', now);
    expect(await store.nextDue()).toBe(now);
    expect(await store.openCounts()).toEqual({ lists: 2, members: 2 });

    const written = await connection.client.keys(`{${prefix}win}:*`);
    expect(written.length).toBeGreaterThan(5);
    expect(new Set(written.map((key) => calculateSlot(key))).size).toBe(1);
  });
});
