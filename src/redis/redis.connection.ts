import { Logger } from '@nestjs/common';
import { Cluster, Redis } from 'ioredis';
import {
  NO_REPLICAS,
  ReplicaAcknowledgement,
  type ReplicaSettings,
} from './replica-acknowledgement';

/** How the one connection is watched; shortened by tests. */
export interface RedisConnectionOptions {
  /** How often a PING goes out while the connection is up. */
  pingIntervalMs: number;
  /** A PING unanswered for this long makes Redis count as unreachable (a hung Redis). */
  pingTimeoutMs: number;
}

/**
 * What a command waiting for Redis hears once a stop has given Redis up (`stopping`): the work
 * it was for goes back, uncommitted, to the next owner.
 */
export const GIVEN_UP_AT_STOP = 'given up: the service is stopping';

export const DEFAULT_CONNECTION: RedisConnectionOptions = {
  pingIntervalMs: 1_000,
  pingTimeoutMs: 3_000,
};

/** A connection to one Redis (standalone, or a primary with replicas) or to a Redis Cluster. */
export type RedisClient = Redis | Cluster;

/** Where Redis is: its URL, the nodes of a Redis Cluster, or a primary its Sentinels name. */
export type RedisTarget = string | ClusterTarget | SentinelTarget;

/** A Redis Cluster, found from a few of its nodes; the client learns the others and each move. */
export interface ClusterTarget {
  /** The scheme (`rediss:` for TLS), user and password of every node; its host is not used. */
  url: string;
  nodes: ReadonlyArray<{ host: string; port: number }>;
}

/** A Redis primary with replicas, found (and found again after a failover) through Sentinels. */
export interface SentinelTarget {
  /** The scheme, user, password and database of the Redis nodes; its host is not used. */
  url: string;
  sentinels: ReadonlyArray<{ host: string; port: number }>;
  /** The name the Sentinels monitor the primary by. */
  name: string;
  sentinelPassword?: string;
}

/**
 * The one Redis connection every replica shares state through (claims and outcomes, and what
 * `src/cluster/` and `src/windows/` keep), watched for hangs, so that readiness speaks for
 * everything that uses it. Errors it reports never carry the URL's password.
 */
export class RedisConnection {
  private readonly logger = new Logger('RedisConnection');
  readonly client: RedisClient;
  /** Waits for replicas to hold the writes that must survive a failover (`REDIS_WAIT_REPLICAS`). */
  private readonly replicas: ReplicaAcknowledgement;
  private readonly secrets: string[];
  /** How many times the connection closed: writes before a close may be on a lost primary. */
  private closes = 0;
  private reachable = true;
  private lastError?: string;
  /**
   * The PINGs in flight, by the connection each went on, and when it was sent: one to a single
   * Redis, one to each primary of a cluster (each has its own connection, and any one may hang).
   */
  private readonly pings = new Map<RedisClient, number>();
  private readonly pingTimer: NodeJS.Timeout;
  /** The service is stopping: an unreachable Redis is given up rather than waited for. */
  private stopping = false;
  private givenUp = false;
  /** What made Redis count as unreachable last: said once a stop gave it up. */
  private lastProblem?: string;

  constructor(
    target: RedisTarget,
    /** `IDEMPOTENCY_KEY_PREFIX`: every key of the service goes under it. */
    readonly keyPrefix: string,
    private readonly now: () => number = Date.now,
    private readonly options: RedisConnectionOptions = DEFAULT_CONNECTION,
    replicaSettings: ReplicaSettings = NO_REPLICAS,
  ) {
    this.secrets = secretsOfTarget(target);
    this.client = clientFor(target);
    const client = this.client;
    this.replicas = new ReplicaAcknowledgement(
      client instanceof Cluster
        ? (replicas, timeoutMs) => waitOnEveryPrimary(client, replicas, timeoutMs)
        : (replicas, timeoutMs) => client.wait(replicas, timeoutMs),
      () => this.closes,
      replicaSettings,
    );
    this.client.on('close', () => this.closes++);
    // On a cluster each primary has its own connection: losing any one may lose what it held.
    if (client instanceof Cluster)
      client.on('+node', (node: Redis) => node.on('close', () => this.closes++));
    // Without a listener ioredis prints every reconnection failure as an unhandled error event.
    this.client.on('error', (error: Error) => {
      this.lastError = this.redact(error.message);
      this.lost(this.lastError);
    });
    this.client.on('ready', () => this.regained());
    // A Redis that hangs (paused, or its host gone without closing the connection) raises no
    // error: the connection stays up and commands wait. Only an unanswered PING tells.
    this.pingTimer = setInterval(() => this.ping(), options.pingIntervalMs);
    this.pingTimer.unref();
  }

  /**
   * Resolves once connected; rejects if the first attempt fails, while the client goes on
   * trying in the background (commands wait for it).
   */
  async connect(): Promise<void> {
    if (this.client.status === 'wait') await this.client.connect();
  }

  /** Resolves once the replicas asked for hold this connection's writes so far (see `replicas`). */
  replicated(): Promise<void> {
    return this.replicas.replicated();
  }

  /** Writes that went on with too few replicas (`REDIS_REPLICA_SHORTFALL=proceed`). */
  get writesWithoutReplicas(): number {
    return this.replicas.exposedWrites;
  }

  /**
   * Whether Redis answers, with the replicas asked for: while it does not, claims or sends wait.
   */
  get connected(): boolean {
    return this.connectionProblem === undefined;
  }

  /** Why Redis (or its replicas) holds sends back now, credentials removed; undefined if not. */
  get connectionProblem(): string | undefined {
    return this.linkProblem ?? this.replicas.problem;
  }

  /** Why Redis itself does not answer now; replicas aside. */
  private get linkProblem(): string | undefined {
    if (this.givenUp) return `${this.lastProblem ?? 'not connected'}; ${GIVEN_UP_AT_STOP}`;
    const status = this.client.status;
    if (status !== 'ready') return `${this.lastError ?? 'not connected'} (connection ${status})`;
    return this.unansweredPing();
  }

  /**
   * The stop has begun. From now on an unreachable Redis (now, or later in the stop) is given up
   * instead of waited for: while running, commands wait for Redis so that nothing is sent without
   * a claim, but a stop that waits for it would wait its whole bound and exit 1. What the failed
   * commands were for (claims, outcomes, the instance's retirement) is left to the next owner,
   * as after a crash: the records stay uncommitted, and `sending` marks already written make
   * their sends ambiguous rather than repeated.
   */
  stop(): void {
    this.stopping = true;
    const problem = this.connectionProblem;
    if (problem === undefined) return;
    this.lastProblem = problem;
    this.giveUp();
  }

  /**
   * Resolves once the connection has ended: `quit` resolves on Redis' OK, and the socket closes
   * a moment later, which ioredis reports as `end`.
   */
  async close(): Promise<void> {
    clearInterval(this.pingTimer);
    this.replicas.stop();
    if (this.givenUp || this.client.status === 'end') return;
    const ended = new Promise<void>((resolve) => this.client.once('end', () => resolve()));
    await this.client.quit().catch(() => this.client.disconnect());
    await ended;
  }

  /**
   * The hang, once the PING in flight has waited too long. Whoever sees it first (readiness, or
   * the next PING tick) reports it, so the log never misses an outage that readiness reported and
   * that ended before the tick.
   */
  private unansweredPing(): string | undefined {
    const primaries = new Set(this.pingTargets());
    let oldest: [RedisClient, number] | undefined;
    for (const [target, sentAt] of this.pings) {
      // A node that is no longer a primary (failed over, or gone) speaks for no slot.
      if (!primaries.has(target)) this.pings.delete(target);
      else if (oldest === undefined || sentAt < oldest[1]) oldest = [target, sentAt];
    }
    const waited = oldest === undefined ? 0 : this.now() - oldest[1];
    if (oldest === undefined || waited < this.options.pingTimeoutMs) return undefined;
    const from = oldest[0] === this.client ? '' : ` from ${nodeName(oldest[0])}`;
    const problem = `no answer to PING${from} for ${waited} ms`;
    this.lost(problem);
    return problem;
  }

  private ping(): void {
    if (this.client.status !== 'ready') return; // reconnecting: the error listener has said so
    this.unansweredPing();
    for (const target of this.pingTargets()) {
      if (this.pings.has(target)) continue; // still waiting for its answer
      this.pings.set(target, this.now());
      target.ping().then(
        () => {
          this.pings.delete(target);
          this.regained();
        },
        () => this.pings.delete(target), // a lost connection, which its error event reports
      );
    }
  }

  /** What a PING goes to: the one Redis, or every primary of a cluster. */
  private pingTargets(): RedisClient[] {
    return this.client instanceof Cluster ? this.client.nodes('master') : [this.client];
  }

  /** Said once per outage, not once per reconnection attempt or unanswered PING. */
  private lost(problem: string): void {
    this.lastProblem = problem;
    if (this.stopping) this.giveUp();
    if (!this.reachable) return;
    this.reachable = false;
    this.logger.error(`Redis unreachable, sends wait until it is back: ${problem}`);
  }

  /**
   * Ends the connection for good and fails every command still waiting for Redis, and any later
   * one at once. ioredis' `disconnect()` alone is not enough: between two reconnection attempts it
   * only cancels the next one, and the commands queued meanwhile wait for ever; so are those
   * written to a Redis that does not answer. Its `flushQueue` (not in its typings) rejects both.
   */
  private giveUp(): void {
    if (this.givenUp) return;
    this.givenUp = true;
    clearInterval(this.pingTimer);
    this.replicas.stop();
    const error = new Error(GIVEN_UP_AT_STOP);
    const clients: RedisClient[] =
      this.client instanceof Cluster ? [this.client, ...this.client.nodes()] : [this.client];
    for (const client of clients) {
      client.options.enableOfflineQueue = false; // later commands fail at once
      // Auto-pipelining too: on a cluster that ended before it learned its slots (a stop while it
      // connects), ioredis holds an auto-pipelined command for slots that never come.
      client.options.enableAutoPipelining = false;
      client.disconnect();
      (client as unknown as { flushQueue(error: Error): void }).flushQueue(error);
    }
  }

  private regained(): void {
    if (this.reachable || this.linkProblem !== undefined) return;
    this.reachable = true;
    this.lastError = undefined;
    this.logger.log('Redis reachable again');
  }

  /** A Redis URL may carry a password, and an error message may repeat the URL. */
  redact(message: string): string {
    return this.secrets.reduce((text, secret) => text.split(secret).join('[redacted]'), message);
  }
}

/**
 * Claims and outcomes of one turn go as one command each (`Coalescer`); auto-pipelining sends
 * whatever else a turn asks for in the same round trip. Commands wait while Redis is unreachable
 * (no retry limit): nothing is sent to the vendor without a claim.
 */
const CLIENT_OPTIONS = {
  enableAutoPipelining: true,
  maxRetriesPerRequest: null,
  lazyConnect: true,
};

/**
 * A WAIT answers for the writes of the connection it goes to, and on a cluster each primary has
 * its own: so it goes to every primary at once (one round trip, in parallel), and the fewest
 * replicas any of them reached is the answer. A primary this connection wrote nothing to answers
 * at once with its replicas' count.
 */
async function waitOnEveryPrimary(
  cluster: Cluster,
  replicas: number,
  timeoutMs: number,
): Promise<number> {
  const primaries = cluster.nodes('master');
  if (primaries.length === 0) throw new Error('no Redis Cluster primary known yet');
  const answers = await Promise.all(primaries.map((node) => node.wait(replicas, timeoutMs)));
  return Math.min(...answers);
}

/**
 * A command to a primary that was lost is tried again every 250 ms, its slots looked up again
 * each time, for up to 40 s: a replica takes over after `cluster-node-timeout` (15 s by default)
 * and an election. ioredis' defaults (16 tries 100 ms apart) give up after 1.6 s, mid-failover;
 * a command that still fails leaves its record to be tried again, like any Redis error.
 */
const RIDE_OUT_A_FAILOVER = {
  retryDelayOnFailover: 250,
  retryDelayOnClusterDown: 250,
  retryDelayOnTryAgain: 250,
  maxRedirections: 160,
};

function clientFor(target: RedisTarget): RedisClient {
  if (typeof target === 'string') return new Redis(target, CLIENT_OPTIONS);
  if (isSentinelTarget(target)) {
    return new Redis(target.url, {
      ...CLIENT_OPTIONS,
      sentinels: [...target.sentinels],
      name: target.name,
      sentinelPassword: target.sentinelPassword,
      // Not ioredis' failoverDetector: a +switch-master arriving while it reconnects ends the
      // client for good ("Connection is closed", status end). A killed or demoted primary closes
      // this connection anyway, and ioredis then asks the Sentinels again.
      //
      // A primary demoted while this connection stayed open refuses writes with READONLY: find the
      // new primary and send the command again (it was not executed).
      reconnectOnError: (error: Error) => (error.message.startsWith('READONLY') ? 2 : false),
    });
  }
  // Each node's connection takes the URL's credentials and TLS; MOVED, ASK, a failover and a
  // node's missing script (NOSCRIPT: EVALSHA falls back to EVAL) are the cluster client's to
  // handle, not the service's.
  const url = new URL(target.url);
  return new Cluster([...target.nodes], {
    ...CLIENT_OPTIONS,
    ...RIDE_OUT_A_FAILOVER,
    redisOptions: {
      ...CLIENT_OPTIONS,
      username: decodeURIComponent(url.username) || undefined,
      password: decodeURIComponent(url.password) || undefined,
      tls: url.protocol === 'rediss:' ? {} : undefined,
    },
  });
}

/** `host:port` of a cluster node's connection, for a log line. */
function nodeName(node: RedisClient): string {
  const { host, port } = node.options as { host?: string; port?: number };
  return `${host}:${port}`;
}

function isSentinelTarget(target: RedisTarget): target is SentinelTarget {
  return typeof target === 'object' && 'sentinels' in target;
}

function secretsOfTarget(target: RedisTarget): string[] {
  if (typeof target === 'string') return secretsOf(target);
  const sentinel = isSentinelTarget(target) && target.sentinelPassword;
  return [...secretsOf(target.url), ...(sentinel ? [sentinel] : [])];
}

/** The password of a Redis URL, as written and decoded; none for a URL without one. */
export function secretsOf(url: string): string[] {
  try {
    const password = new URL(url).password;
    if (!password) return [];
    return [...new Set([password, decodeURIComponent(password)])];
  } catch {
    return [];
  }
}
