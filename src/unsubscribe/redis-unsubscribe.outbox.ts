import { randomUUID } from 'node:crypto';
import type { Result } from 'ioredis';
import { luaScript } from '../redis/lua';
import type { RedisClient } from '../redis/redis.connection';
import type { PendingUnsubscribe, UnsubscribeOutbox } from './unsubscribe.outbox';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    mailbridgeUnsubscribeRecord(...args: string[]): Result<number, Context>;
    mailbridgeUnsubscribeDrained(...args: string[]): Result<number, Context>;
  }
}

/**
 * How long one replica holds the drain: longer than a publish takes while the broker answers.
 * A publish that outlasts it (the broker away) leaves its batch to the next drainer, which
 * publishes it again under the same event ids.
 */
const LEASE_MS = 30_000;

/**
 * The outbox every replica shares: a Redis list of the unsubscribes not yet on Kafka, a key per
 * recent unsubscribe id (the same link posted twice is queued once), and a lease so that one
 * replica drains at a time. Every key carries the `{unsubscribe}` hash tag, so that the scripts
 * touch one slot on a sharded Redis too. The list holds addresses until they are published.
 */
export class RedisUnsubscribeOutbox implements UnsubscribeOutbox {
  private readonly listKey: string;
  private readonly leaseKey: string;
  private readonly owner = randomUUID();

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    /** Resolves once Redis replicas hold the writes so far: a lost entry is a lost event. */
    private readonly replicated: () => Promise<void> = () => Promise.resolve(),
  ) {
    this.listKey = `${prefix}{unsubscribe}:outbox`;
    this.leaseKey = `${prefix}{unsubscribe}:drain`;
    redis.defineCommand('mailbridgeUnsubscribeRecord', {
      numberOfKeys: 2,
      lua: luaScript(__dirname, 'unsubscribe-record'),
    });
    redis.defineCommand('mailbridgeUnsubscribeDrained', {
      numberOfKeys: 2,
      lua: luaScript(__dirname, 'unsubscribe-drained'),
    });
  }

  async record(pending: PendingUnsubscribe, rememberMs: number): Promise<boolean> {
    const seenKey = `${this.prefix}{unsubscribe}:seen:${pending.unsubscribeId}`;
    const queued = await this.redis.mailbridgeUnsubscribeRecord(
      seenKey,
      this.listKey,
      JSON.stringify(pending),
      String(Math.max(1, Math.ceil(rememberMs))),
    );
    await this.replicated();
    return queued === 1;
  }

  async drain(
    max: number,
    publish: (batch: PendingUnsubscribe[]) => Promise<void>,
  ): Promise<number> {
    const leased = await this.redis.set(this.leaseKey, this.owner, 'PX', LEASE_MS, 'NX');
    if (leased !== 'OK') return 0;
    let published = 0;
    try {
      const entries = await this.redis.lrange(this.listKey, 0, max - 1);
      if (entries.length > 0) {
        await publish(entries.map((entry) => JSON.parse(entry) as PendingUnsubscribe));
        published = entries.length;
      }
    } finally {
      await this.redis.mailbridgeUnsubscribeDrained(
        this.leaseKey,
        this.listKey,
        this.owner,
        String(published),
      );
    }
    return published;
  }
}
