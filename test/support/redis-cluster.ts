import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { askRedis } from './ask-redis';
import { isFree } from './free-port';
import { waitFor } from './kafka-helpers';

export interface RedisClusterOptions {
  /** `requirepass` and `masterauth` of every node; none when unset. */
  password?: string;
  /**
   * How long a primary may stay silent before its replica takes over (`cluster-node-timeout`);
   * short here so that a failover happens within a test.
   */
  nodeTimeoutMs?: number;
  /** Fixed ports (six, the first three the primaries) and a dir `stop` keeps, for a harness. */
  place?: { ports: number[]; dir: string };
}

/** One `redis-server` of the cluster, by its client port (its bus listens on port + 10000). */
export interface ClusterNode {
  port: number;
  process?: ChildProcess;
}

/** What `CLUSTER NODES` says of one node. */
export interface NodeRole {
  port: number;
  id: string;
  role: 'master' | 'slave';
  /** For a primary, the slots it serves as `start-end` ranges; none for a replica. */
  slots: string[];
  connected: boolean;
  failed: boolean;
}

/**
 * A Redis Cluster of three primaries and three replicas on loopback, from Debian's `redis-server`
 * (`--cluster-enabled yes`) joined by `redis-cli --cluster create`. A node can be killed with -9
 * and started again on its own node file, so that it rejoins as what the cluster made it; every
 * process is stopped by its PID at the end.
 */
export class RedisClusterGroup {
  private constructor(
    private readonly dir: string,
    private readonly options: RedisClusterOptions,
    readonly nodes: ClusterNode[],
  ) {}

  static async start(options: RedisClusterOptions = {}): Promise<RedisClusterGroup> {
    const { place } = options;
    const dir = place?.dir ?? mkdtempSync(join(tmpdir(), 'mailbridge-redis-cluster-'));
    if (place) {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
    }
    const ports = place?.ports ?? (await clusterPorts(6));
    const group = new RedisClusterGroup(
      dir,
      options,
      ports.map((port) => ({ port })),
    );
    try {
      group.nodes.forEach((node) => group.startNode(node));
      for (const node of group.nodes) await group.waitForNode(node.port);
      const auth = options.password ? ['-a', options.password, '--no-auth-warning'] : [];
      const created = spawnSync(
        'redis-cli',
        [
          ...auth,
          '--cluster',
          'create',
          ...ports.map((port) => `127.0.0.1:${port}`),
          '--cluster-replicas',
          '1',
          '--cluster-yes',
        ],
        { encoding: 'utf8', timeout: 60_000 },
      );
      if (created.status !== 0) {
        throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
      }
      await group.waitUntilHealthy();
    } catch (error) {
      group.stop();
      throw error;
    }
    return group;
  }

  /** `host:port` of every node, as `REDIS_CLUSTER_NODES` lists them. */
  get addresses(): string[] {
    return this.nodes.map(({ port }) => `127.0.0.1:${port}`);
  }

  /** Every node's role, slots and health, as the node on `askPort` (default: any alive) sees it. */
  async roles(askPort?: number): Promise<NodeRole[]> {
    const port = askPort ?? this.alivePorts()[0];
    const text = String(await this.ask(port, 'CLUSTER', 'NODES'));
    return text
      .trim()
      .split('\n')
      .map((line) => {
        const [id, address, flags, , , , , link, ...slots] = line.split(' ');
        const flagList = flags.split(',');
        return {
          id,
          port: Number(address.split('@')[0].split(':').pop()),
          role: flagList.includes('master') ? 'master' : 'slave',
          slots: slots.filter((s) => !s.startsWith('[')),
          connected: link === 'connected',
          failed: flagList.includes('fail') || flagList.includes('fail?'),
        } satisfies NodeRole;
      });
  }

  /** The ports of the primaries serving slots now. */
  async primaryPorts(): Promise<number[]> {
    const roles = await this.roles();
    return roles
      .filter((r) => r.role === 'master' && r.slots.length > 0 && !r.failed)
      .map((r) => r.port);
  }

  /** kill -9 of the node on `port`; resolves once it is gone. */
  async kill(port: number): Promise<void> {
    const child = this.node(port).process;
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`no running node on ${port}`);
    }
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  /**
   * Starts the node on `port` again on its node file (its data went with the kill): it rejoins
   * the cluster, as a replica if its replica took over meanwhile. Resolves once it answers.
   */
  async revive(port: number): Promise<void> {
    const node = this.node(port);
    if (node.process && node.process.exitCode === null && node.process.signalCode === null) {
      throw new Error(`node ${port} is running`);
    }
    this.startNode(node);
    await this.waitForNode(port);
  }

  /**
   * Resolves once every running node reports `cluster_state:ok`, three running primaries serve the
   * slots and every other running node replicates one: after a kill, once a replica has taken the
   * lost primary's slots over.
   */
  async waitUntilHealthy(timeoutMs = 60_000): Promise<void> {
    await waitFor(
      async () => {
        for (const port of this.alivePorts()) {
          const info = String(await this.ask(port, 'CLUSTER', 'INFO').catch(() => ''));
          if (!info.includes('cluster_state:ok')) return undefined;
        }
        // A primary just killed is still named until the others flag it: wait for its successor.
        const alive = this.alivePorts();
        const roles = (await this.roles().catch(() => [])).filter((r) => alive.includes(r.port));
        const primaries = roles.filter((r) => r.role === 'master' && r.slots.length > 0);
        if (primaries.length !== 3 || roles.length !== alive.length) return undefined;
        // Every other running node is a replica whose link to its primary is up.
        for (const replica of roles.filter((r) => !primaries.includes(r))) {
          if (replica.role !== 'slave') return undefined;
          const info = String(await this.ask(replica.port, 'INFO', 'replication').catch(() => ''));
          if (!info.includes('master_link_status:up')) return undefined;
        }
        return true;
      },
      { timeoutMs, intervalMs: 200, what: 'the Redis Cluster to serve every slot' },
    );
  }

  /** Keys held by the node on `port` (`DBSIZE`). */
  async dbsize(port: number): Promise<number> {
    return Number(await this.ask(port, 'DBSIZE'));
  }

  /** Commands the node on `port` has run since it started or `resetStats` (`INFO stats`). */
  async commandsProcessed(port: number): Promise<number> {
    const info = String(await this.ask(port, 'INFO', 'stats'));
    return Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? NaN);
  }

  /** `CONFIG RESETSTAT` on every alive node. */
  async resetStats(): Promise<void> {
    for (const port of this.alivePorts()) await this.ask(port, 'CONFIG', 'RESETSTAT');
  }

  /** Runs one command on the node on `port`, with the cluster's password. */
  ask(port: number, ...command: string[]): Promise<unknown> {
    return askRedis(port, this.options.password, ...command);
  }

  pid(port: number): number | undefined {
    return this.node(port).process?.pid;
  }

  /** SIGSTOP of the node on `port`: it neither answers nor replicates until `resume`. */
  pause(port: number): void {
    this.node(port).process?.kill('SIGSTOP');
  }

  resume(port: number): void {
    this.node(port).process?.kill('SIGCONT');
  }

  /** kill -9 of every node still running, by PID; the dir goes unless it was placed. */
  stop(): void {
    for (const { process } of this.nodes) {
      if (process && process.exitCode === null && process.signalCode === null) {
        process.kill('SIGKILL');
      }
    }
    if (!this.options.place) rmSync(this.dir, { recursive: true, force: true });
  }

  private alivePorts(): number[] {
    return this.nodes
      .filter((n) => n.process && n.process.exitCode === null && n.process.signalCode === null)
      .map((n) => n.port);
  }

  private node(port: number): ClusterNode {
    const node = this.nodes.find((n) => n.port === port);
    if (!node) throw new Error(`no node on ${port}`);
    return node;
  }

  private startNode(node: ClusterNode): void {
    const { password, nodeTimeoutMs = 2_000 } = this.options;
    node.process = spawn(
      'redis-server',
      [
        ...['--port', String(node.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        ...['--dir', this.dir, '--dbfilename', `${node.port}.rdb`],
        ...['--logfile', join(this.dir, `redis-${node.port}.log`)],
        ...['--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${node.port}.conf`],
        ...['--cluster-node-timeout', String(nodeTimeoutMs)],
        // Without it a node names no address of its own in CLUSTER SLOTS, and clients stall.
        ...['--cluster-announce-ip', '127.0.0.1'],
        ...(password ? ['--requirepass', password, '--masterauth', password] : []),
      ],
      { stdio: 'ignore' },
    );
  }

  private async waitForNode(port: number): Promise<void> {
    await waitFor(
      async () => ((await this.ask(port, 'PING').catch(() => undefined)) ? true : undefined),
      { timeoutMs: 30_000, intervalMs: 100, what: `redis on ${port}` },
    );
  }
}

/**
 * `count` loopback ports, each free with its bus port (port + 10000) free too, all below Linux's
 * ephemeral range (32768) so that no client connection takes one between the check and the bind.
 */
async function clusterPorts(count: number): Promise<number[]> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const first = 20_000 + Math.floor(Math.random() * 2_500);
    const ports = Array.from({ length: count }, (_, i) => first + i);
    const free = await Promise.all([...ports, ...ports.map((p) => p + 10_000)].map(isFree));
    if (free.every(Boolean)) return ports;
  }
  throw new Error(`no ${count} free cluster ports (with their bus ports) found`);
}
