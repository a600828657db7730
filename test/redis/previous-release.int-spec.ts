import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { ActionOutcome } from '../../src/contracts/action-outcome';
import { RedisIdempotencyStore } from '../../src/idempotency/redis-idempotency.store';
import { RedisWindowStore } from '../../src/windows/redis-window.store';
import type { ListWindow, WindowEntry, WindowStoreOptions } from '../../src/windows/window.store';
import { windowEntry } from '../support/window-entries';

/** The previous release's scripts, as they were: `test/fixtures/previous-release/`. */
const script = (...names: string[]) =>
  names
    .map((name) => readFileSync(join(__dirname, '../fixtures/previous-release', `${name}.lua`)))
    .join('\n');

const OPTIONS: WindowStoreOptions = {
  lingerMs: 1_000,
  maxMembers: 10,
  latePolicy: 'next-window',
  retentionSeconds: 600,
};

/**
 * What a replica of the previous release sends to Redis: its scripts, with the arguments its
 * stores gave them. Both releases share one prefix on one Redis during a rolling deploy.
 */
class PreviousRelease {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    redis.defineCommand('previousClaim', { lua: script('claim') });
    redis.defineCommand('previousMarkSending', { lua: script('mark-sending') });
    redis.defineCommand('previousComplete', { lua: script('complete') });
    for (const step of ['add', 'take', 'mark-sending', 'created', 'published']) {
      redis.defineCommand(`previousWindow-${step}`, {
        numberOfKeys: 0,
        lua: script('window-common', `window-${step}`),
      });
    }
  }

  /** claim.lua of the previous release: one key, its holder; the instance keys' prefix inside. */
  async claim(key: string, holder: string): Promise<string> {
    const replies = (await this.call(
      'previousClaim',
      '1',
      this.prefix + key,
      String(Date.now()),
      '60000',
      '600',
      `${this.prefix}instance:`,
      holder,
    )) as string[];
    return replies[0];
  }

  async markSending(key: string, holder: string): Promise<number> {
    const held = (await this.call(
      'previousMarkSending',
      '1',
      this.prefix + key,
      holder,
    )) as number[];
    return held[0];
  }

  complete(key: string, outcome: ActionOutcome): Promise<unknown> {
    const value = `done|${JSON.stringify(outcome)}`;
    return this.call('previousComplete', '1', this.prefix + key, '600', value, 'set');
  }

  async add(entry: WindowEntry): Promise<[string, string]> {
    const { lingerMs, maxMembers, latePolicy, retentionSeconds } = OPTIONS;
    const replies = (await this.window(
      'add',
      String(lingerMs),
      String(maxMembers),
      latePolicy,
      String(retentionSeconds),
      entry.window.name,
      String(entry.window.end),
      entry.present.name,
      String(entry.present.end),
      entry.order.ref,
      JSON.stringify(entry.order),
      entry.address,
      JSON.stringify(entry.member),
    )) as Array<[string, string]>;
    return replies[0];
  }

  take(owner: string, leaseMs: number): Promise<unknown[] | null> {
    const reply = this.window('take', owner, String(leaseMs), String(OPTIONS.retentionSeconds));
    return reply as Promise<unknown[] | null>;
  }

  markListSending(name: string, owner: string): Promise<unknown> {
    return this.window('mark-sending', name, owner);
  }

  created(name: string, owner: string, listId: string): Promise<unknown> {
    return this.window('created', name, owner, listId, '0');
  }

  published(name: string, owner: string): Promise<unknown> {
    return this.window('published', name, owner, String(OPTIONS.retentionSeconds));
  }

  private window(step: string, ...args: string[]): Promise<unknown> {
    return this.call(`previousWindow-${step}`, this.prefix, String(Date.now()), ...args);
  }

  private call(command: string, ...args: string[]): Promise<unknown> {
    const run = (this.redis as unknown as Record<string, (...a: string[]) => Promise<unknown>>)[
      command
    ];
    return run.apply(this.redis, args);
  }
}

describe('a replica of the previous release and one of this release on one Redis', () => {
  const redis = new Redis('redis://127.0.0.1:6379');
  const prefix = `mailbridge-test:${randomUUID()}:`;
  const previous = new PreviousRelease(redis, prefix);
  let store: RedisIdempotencyStore;
  let windows: RedisWindowStore;
  let keys = 0;
  const key = () => `e${++keys}:welcome`;
  const sent: ActionOutcome = {
    status: 'sent',
    requestIds: ['r-1'],
    message: 'ok',
    recipientCount: 1,
    batchRecipientCount: 1,
  };
  const current = { instance: 'current', handling: 'h' };

  beforeAll(() => {
    store = new RedisIdempotencyStore('redis://127.0.0.1:6379', 600, prefix);
    windows = new RedisWindowStore(store.client, prefix, OPTIONS);
  });
  afterAll(async () => {
    await store.close();
    await redis.quit();
  });
  beforeEach(async () => {
    await store.heartbeat('previous', 60_000);
    await store.heartbeat('current', 60_000);
  });

  it('leaves a claim of the previous release to it while it lives, then takes it over with its mark', async () => {
    const k = key();
    expect(await previous.claim(k, 'previous/h')).toBe('claimed');
    expect(await previous.markSending(k, 'previous/h')).toBe(1);
    expect(await store.claim(k, current, 60_000)).toEqual({ kind: 'busy' });
    await store.retire('previous');
    expect(await store.claim(k, current, 60_000)).toEqual({ kind: 'reclaimed', maybeSent: true });
  });

  it('is left its own claims by the previous release while it lives, and they are taken over once it stops', async () => {
    const k = key();
    expect(await store.claim(k, current, 60_000)).toEqual({ kind: 'claimed' });
    expect(await store.markSending([{ key: k, holder: current }])).toEqual(new Set([k]));
    expect(await previous.claim(k, 'previous/h')).toBe('busy');
    await store.retire('current');
    expect(await previous.claim(k, 'previous/h')).toBe('reclaimed-maybe-sent');
  });

  it('reads the outcomes the other release recorded', async () => {
    const [mine, theirs] = [key(), key()];
    await previous.claim(theirs, 'previous/h');
    await previous.complete(theirs, sent);
    expect(await store.claim(theirs, current, 60_000)).toEqual({ kind: 'done', outcome: sent });
    await store.claim(mine, current, 60_000);
    await store.complete([{ key: mine, outcome: sent }]);
    expect(await previous.claim(mine, 'previous/h')).toBe(`done|${JSON.stringify(sent)}`);
  });

  const entry = (w: ListWindow, n: number): WindowEntry =>
    windowEntry(w, n, { name: `${w.name}-present`, end: Date.now() + 3_600_000 });

  it('gathers one window from the orders of both releases into one list, which either may create', async () => {
    const w = { name: `w-${randomUUID()}`, end: Date.now() - 2_000 };
    expect(await previous.add(entry(w, 1))).toEqual(['added', w.name]);
    // The same order again, through this release: the same list, not a second member.
    expect(await windows.add(entry(w, 1))).toEqual({ status: 'duplicate', list: w.name });
    expect(await windows.add(entry(w, 2))).toEqual({ status: 'added', list: w.name });
    expect(await previous.add(entry(w, 3))).toEqual(['added', w.name]);

    // The linger (1 s from the first order, the window having ended) passes; this release takes it.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const taken = await windows.take('current', 30_000);
    expect(taken?.name).toBe(w.name);
    expect(taken?.members.map((m) => m.email).sort()).toEqual(
      [1, 2, 3].map((n) => `buyer${n}@example.com`),
    );
    // Taken: the previous release sends a later order to the present window.
    expect(await previous.add(entry(w, 4))).toEqual(['next-window', `${w.name}-present`]);
    expect(await windows.markSending(w.name, 'current')).toBe(true);
    expect(await windows.created(w.name, 'current', 'list-1', false)).toBe(true);
    expect(await windows.published(w.name, 'current')).toBe(true);
  });

  it('takes over a list the previous release left while creating it, knowing a request may have gone', async () => {
    const w = { name: `w-${randomUUID()}`, end: Date.now() - 2_000 };
    await windows.add(entry(w, 1));
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const theirs = await previous.take('previous/owner', 200);
    expect(theirs?.[0]).toBe(w.name);
    expect(await previous.markListSending(w.name, 'previous/owner')).toBe(1);
    // Its lease lapses (the replica stopped): this release takes the list on from `sending`.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const taken = await windows.take('current', 30_000);
    expect(taken).toMatchObject({ name: w.name, maybeSent: true, takenOver: true });
    expect(await previous.created(w.name, 'previous/owner', 'late')).toBe(0);
    expect(await windows.created(w.name, 'current', 'list-2', true)).toBe(true);
    expect(await windows.published(w.name, 'current')).toBe(true);
    expect(await previous.published(w.name, 'previous/owner')).toBe(0);
  });
});
