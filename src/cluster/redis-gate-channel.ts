import { Logger } from '@nestjs/common';
import { Cluster, type Redis, type Result } from 'ioredis';
import { luaScript } from '../redis/lua';
import type { RedisClient } from '../redis/redis.connection';
import type { GateCause, GateChannel, SharedClose } from './gate-channel';

/*
 * The key holds the standing close as JSON `{reason, until, detail, origin}`, `until` in Redis's
 * own clock (TIME), and expires at `until`: no key, no close. The moment is compared only inside
 * Redis; replicas are told the time left, which their own clocks can count whatever they read.
 */

declare module 'ioredis' {
  interface RedisCommander<Context> {
    mailbridgeGateClose(
      key: string,
      ...args: string[]
    ): Result<[number, string, number, number], Context>;
    mailbridgeGateRead(key: string): Result<[number, string, number], Context>;
  }
}

/** Longest detail shared: the vendor's status or error, not a page of it. */
const MAX_DETAIL = 200;
/** How long a close waits for Redis before the replica goes on with its own gate alone. */
const ANNOUNCE_TIMEOUT_MS = 2_000;
/** How long a stop waits for Redis to acknowledge the subscriber's QUIT before dropping it. */
const QUIT_TIMEOUT_MS = 1_000;
/**
 * A close that reaches Redis later than this after it was sent (a Redis that hung with the
 * connection up) is dropped: it would pause every replica for a failure long past.
 */
const CLOSE_VALID_MS = 1_000;
/**
 * How long a subscriber on a cluster waits before it tries the next node, after its node went
 * away or none was known yet: short, since closes published meanwhile reach it only as the key.
 */
const NEXT_NODE_MS = 250;

/**
 * The vendor gate shared by every replica through one Redis key and a pub/sub channel. The
 * subscription has its own connection (a subscribed connection runs no other command), a
 * duplicate of the shared one; each time it (re)connects it reads the key, so that a close
 * announced while it was away still counts. A Redis that cannot be reached leaves each replica
 * with its own gate: a close is not queued to land late, when it may no longer be true.
 *
 * On a Redis Cluster the key lives on its slot's primary, and the script's PUBLISH reaches every
 * node over the cluster bus, so the subscription may sit on any node, a replica too. It is a
 * plain connection to one node, not ioredis' cluster subscriber: that one moves to another node
 * and subscribes again on its own, but says nothing when it has, and a close published while it
 * moved would then be missed; this one reads the key each time it subscribes. When its node goes
 * away it does not wait for that node: it tries the next one the cluster client knows.
 */
export class RedisGateChannel implements GateChannel {
  private readonly logger = new Logger(RedisGateChannel.name);
  private readonly redis: RedisClient;
  private readonly key: string;
  private readonly channel: string;
  private readonly listeners: Array<(close: SharedClose) => void> = [];
  private subscriber?: Redis;
  private stopped = false;
  /** The next cluster node to try for the subscription (round robin over the known nodes). */
  private nextNode = 0;
  private retry?: NodeJS.Timeout;
  /**
   * Redis's clock minus this process's, at most: a reply read late makes it look smaller, so the
   * largest seen is the best. Unknown until Redis first answered.
   */
  private clockOffset?: number;

  /** On the shared connection (`REDIS_CONNECTION`'s client), its keys under `keyPrefix`. */
  constructor(
    redis: RedisClient,
    keyPrefix: string,
    readonly self: string,
  ) {
    this.redis = redis;
    this.key = `${keyPrefix}cluster:vendor-gate`;
    this.channel = this.key;
    this.redis.defineCommand('mailbridgeGateClose', {
      numberOfKeys: 1,
      lua: luaScript(__dirname, 'gate-close'),
    });
    this.redis.defineCommand('mailbridgeGateRead', {
      numberOfKeys: 1,
      lua: luaScript(__dirname, 'gate-read'),
    });
  }

  /** Subscribes (not awaited by the caller: a Redis that is down must not hold the start up). */
  start(): void {
    this.stopped = false;
    this.subscribe();
  }

  private subscribe(): void {
    if (this.stopped) return;
    const subscriber = this.subscriberConnection();
    if (!subscriber) {
      this.retry = setTimeout(() => this.subscribe(), NEXT_NODE_MS); // no cluster node known yet
      return;
    }
    this.subscriber = subscriber;
    // `RedisConnection` reports Redis being away (logs, readiness); an error listener keeps
    // ioredis from printing each failed reconnection as an unhandled error event.
    subscriber.on('error', () => undefined);
    subscriber.on('message', (_channel: string, message: string) => this.heard(message));
    subscriber.on('ready', () => {
      subscriber
        .subscribe(this.channel)
        .then(() => this.catchUp(subscriber))
        .catch(() => undefined); // the next 'ready' tries again
    });
    // Only a cluster node's subscriber ends by itself (it does not reconnect): try the next node.
    subscriber.on('end', () => {
      if (this.subscriber !== subscriber || this.stopped) return;
      this.subscriber = undefined;
      this.retry = setTimeout(() => this.subscribe(), NEXT_NODE_MS);
    });
    subscriber.connect().catch(() => undefined);
  }

  /**
   * A connection for the subscription: a duplicate of the one Redis connection, which reconnects
   * by itself; on a cluster, one to the next known node, which ends when that node goes away.
   */
  private subscriberConnection(): Redis | undefined {
    const options = {
      lazyConnect: true,
      autoResubscribe: false,
      enableAutoPipelining: false,
      // Named after this instance, so that an operator (or a test) can find its subscription.
      connectionName: `mailbridge-gate:${this.self}`,
    };
    if (!(this.redis instanceof Cluster)) return this.redis.duplicate(options);
    const nodes = this.redis.nodes('all');
    if (nodes.length === 0) return undefined;
    const node = nodes[this.nextNode++ % nodes.length];
    return node.duplicate({ ...options, retryStrategy: () => null });
  }

  async announce(
    reason: GateCause,
    pauseMs: number,
    detail: string,
  ): Promise<SharedClose | undefined> {
    if (this.redis.status !== 'ready') return undefined;
    const call = this.redis.mailbridgeGateClose(
      this.key,
      reason,
      String(Math.ceil(pauseMs)),
      detail.slice(0, MAX_DETAIL),
      this.self,
      this.channel,
      this.clockOffset === undefined ? '' : String(Date.now() + this.clockOffset + CLOSE_VALID_MS),
    );
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), ANNOUNCE_TIMEOUT_MS);
    });
    try {
      const reply = await Promise.race([call, timeout]);
      if (!reply) return undefined;
      this.readClock(reply[3]);
      if (reply[0] !== 2) return closeOf(reply[1], reply[2]);
      this.logger.warn('a close reached Redis too late to share (Redis hung?); it was dropped');
      return undefined;
    } catch (error) {
      this.logger.warn(`could not share the vendor gate's close: ${(error as Error).name}`);
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  listen(listener: (close: SharedClose) => void): void {
    this.listeners.push(listener);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    if (!subscriber) return;
    subscriber.removeAllListeners('ready');
    if (subscriber.status !== 'ready') return subscriber.disconnect();
    // A Redis that does not answer (paused, its host gone) never acknowledges the QUIT, and the
    // stop must not wait for it.
    let timer: NodeJS.Timeout | undefined;
    const quit = subscriber.quit().then(
      () => true,
      () => false,
    );
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), QUIT_TIMEOUT_MS);
    });
    const acknowledged = await Promise.race([quit, timeout]);
    clearTimeout(timer);
    if (!acknowledged) subscriber.disconnect();
  }

  /**
   * Reads the standing close, for a replica that was not subscribed when it was announced. A
   * read that fails while the subscription stands is tried again: on a cluster the key's primary
   * may be failing over while the subscriber's node is fine, and no later 'ready' would come.
   */
  private async catchUp(subscriber: Redis): Promise<void> {
    for (;;) {
      try {
        const [now, close, left] = await this.redis.mailbridgeGateRead(this.key);
        this.readClock(now);
        if (close) this.deliver(closeOf(close, left));
        return;
      } catch (error) {
        if (this.stopped || this.subscriber !== subscriber || subscriber.status !== 'ready') {
          throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, NEXT_NODE_MS));
      }
    }
  }

  private readClock(redisNow: number): void {
    this.clockOffset = Math.max(this.clockOffset ?? -Infinity, redisNow - Date.now());
  }

  private heard(message: string): void {
    try {
      const { close, remainingMs } = JSON.parse(message) as { close: string; remainingMs: number };
      this.deliver(closeOf(close, remainingMs));
    } catch {
      this.logger.warn('ignored a malformed message on the vendor gate channel');
    }
  }

  private deliver(close: SharedClose | undefined): void {
    if (!close || close.origin === this.self) return;
    for (const listener of this.listeners) listener(close);
  }
}

/** The close a stored value describes, with `remainingMs` left; undefined if it is not one. */
function closeOf(value: string, remainingMs: number): SharedClose | undefined {
  const stored = JSON.parse(value) as Partial<Record<string, unknown>>;
  const { reason, detail, origin } = stored;
  if (reason !== 'auth' && reason !== 'outage') return undefined;
  if (typeof detail !== 'string' || typeof origin !== 'string') return undefined;
  if (!(remainingMs > 0)) return undefined;
  return { reason, detail, origin, remainingMs };
}
