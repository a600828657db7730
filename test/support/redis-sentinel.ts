import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { askRedis } from './ask-redis';
import { freePort } from './free-port';
import { waitFor } from './kafka-helpers';

export interface SentinelGroupOptions {
  /** `requirepass` and `masterauth` of the Redis nodes. */
  password: string;
  /** `requirepass` of the Sentinels. */
  sentinelPassword: string;
  /**
   * Fixed ports (three nodes, the first the primary, and three Sentinels) and a dir that `stop`
   * keeps, for the chaos harness; a test takes free ports and a temporary dir.
   */
  place?: { nodes: number[]; sentinels: number[]; dir: string };
}

interface Node {
  port: number;
  process?: ChildProcess;
}

/**
 * A Redis primary with two replicas and three Sentinels (quorum 2) on loopback, from Debian's
 * `redis-server` (`--sentinel` runs the same program as `redis-sentinel`). A node can be killed
 * with -9 and started again; every process is stopped by its PID at the end.
 */
export class RedisSentinelGroup {
  static readonly NAME = 'mailbridge-test';

  private constructor(
    private readonly dir: string,
    private readonly options: SentinelGroupOptions,
    readonly nodes: Node[],
    readonly sentinels: Node[],
  ) {}

  static async start(options: SentinelGroupOptions): Promise<RedisSentinelGroup> {
    const { place } = options;
    const dir = place?.dir ?? mkdtempSync(join(tmpdir(), 'mailbridge-sentinel-'));
    if (place) {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
    }
    const ports = async (n: number) => Promise.all(Array.from({ length: n }, () => freePort()));
    const nodes = (place?.nodes ?? (await ports(3))).map((port) => ({ port }));
    const sentinels = (place?.sentinels ?? (await ports(3))).map((port) => ({ port }));
    const group = new RedisSentinelGroup(dir, options, nodes, sentinels);
    try {
      nodes.forEach((node, i) => group.startNode(node, i === 0 ? undefined : nodes[0].port));
      for (const node of nodes) await group.waitForNode(node.port, options.password);
      await waitFor(
        async () =>
          String(await group.ask(nodes[0].port, options.password, 'INFO', 'replication')).includes(
            'connected_slaves:2',
          ) || undefined,
        { timeoutMs: 30_000, what: 'two replicas attached to the primary' },
      );
      sentinels.forEach((sentinel) => group.startSentinel(sentinel, nodes[0].port));
      for (const s of sentinels) await group.waitForNode(s.port, options.sentinelPassword);
      // Every Sentinel has found the replicas and the other Sentinels: a failover can be agreed on.
      await waitFor(() => group.sentinelsAgree(), {
        timeoutMs: 30_000,
        what: 'the Sentinels to know the replicas and one another',
      });
    } catch (error) {
      group.stop();
      throw error;
    }
    return group;
  }

  get sentinelAddresses(): Array<{ host: string; port: number }> {
    return this.sentinels.map(({ port }) => ({ host: '127.0.0.1', port }));
  }

  /** The port of the node the Sentinels name as primary now. */
  async primaryPort(): Promise<number> {
    const [, port] = (await this.ask(
      this.sentinels[0].port,
      this.options.sentinelPassword,
      'SENTINEL',
      'GET-MASTER-ADDR-BY-NAME',
      RedisSentinelGroup.NAME,
    )) as [string, string];
    return Number(port);
  }

  /** kill -9 of the node on `port`; resolves once it is gone. */
  async kill(port: number): Promise<void> {
    const node = this.nodes.find((n) => n.port === port);
    const child = node?.process;
    if (!child || child.exitCode !== null) throw new Error(`no running node on ${port}`);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  /**
   * Starts the node on `port` again (its data went with the kill) as a replica of the primary
   * of the moment, as an orchestrator restarting a lost pod would; resolves once it answers.
   */
  async revive(port: number): Promise<void> {
    const node = this.nodes.find((n) => n.port === port);
    if (!node || (node.process && node.process.exitCode === null && !node.process.signalCode))
      throw new Error(`node ${port} is running or unknown`);
    this.startNode(node, await this.primaryPort());
    await this.waitForNode(port, this.options.password);
  }

  /** The keys the node on `port` holds. */
  async dbsize(port: number): Promise<number> {
    return Number(await this.ask(port, this.options.password, 'DBSIZE'));
  }

  pid(port: number): number | undefined {
    return this.nodes.find((n) => n.port === port)?.process?.pid;
  }

  /** SIGSTOP of the node on `port`: it neither answers nor replicates until `resume`. */
  pause(port: number): void {
    this.nodes.find((n) => n.port === port)?.process?.kill('SIGSTOP');
  }

  /**
   * Closes the primary's links to its replicas (`CLIENT KILL TYPE replica`); returns how many it
   * closed. A paused replica cannot link again, so nothing the primary writes from then on
   * reaches it: not even what the kernel had buffered on a link that stayed open, which a
   * resumed replica would still read and apply.
   */
  async cutReplicas(primaryPort: number): Promise<number> {
    const closed = await this.ask(
      primaryPort,
      this.options.password,
      'CLIENT',
      'KILL',
      'TYPE',
      'replica',
    );
    return Number(closed);
  }

  resume(port: number): void {
    this.nodes.find((n) => n.port === port)?.process?.kill('SIGCONT');
  }

  stop(): void {
    for (const { process } of [...this.sentinels, ...this.nodes]) {
      if (process && process.exitCode === null && process.signalCode === null) {
        process.kill('SIGKILL');
      }
    }
    if (!this.options.place) rmSync(this.dir, { recursive: true, force: true });
  }

  private async sentinelsAgree(): Promise<true | undefined> {
    for (const s of this.sentinels) {
      const master = await this.ask(
        s.port,
        this.options.sentinelPassword,
        'SENTINEL',
        'MASTER',
        RedisSentinelGroup.NAME,
      );
      const fields = String(master).split(',');
      const at = (key: string) => fields[fields.indexOf(key) + 1];
      if (at('num-slaves') !== '2' || at('num-other-sentinels') !== '2') return undefined;
    }
    return true;
  }

  private startNode(node: Node, primaryPort?: number): void {
    const { password } = this.options;
    node.process = spawn(
      'redis-server',
      [
        ...['--port', String(node.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        ...['--dir', this.dir, '--dbfilename', `${node.port}.rdb`],
        ...['--logfile', join(this.dir, `redis-${node.port}.log`)],
        ...['--requirepass', password, '--masterauth', password],
        ...(primaryPort ? ['--replicaof', '127.0.0.1', String(primaryPort)] : []),
      ],
      { stdio: 'ignore' },
    );
  }

  private startSentinel(sentinel: Node, primaryPort: number): void {
    const file = join(this.dir, `sentinel-${sentinel.port}.conf`);
    const name = RedisSentinelGroup.NAME;
    writeFileSync(
      file,
      [
        `port ${sentinel.port}`,
        'bind 127.0.0.1',
        `dir ${this.dir}`,
        `logfile ${join(this.dir, `sentinel-${sentinel.port}.log`)}`,
        `requirepass ${this.options.sentinelPassword}`,
        // The Sentinels talk to one another with their own password.
        `sentinel sentinel-pass ${this.options.sentinelPassword}`,
        `sentinel monitor ${name} 127.0.0.1 ${primaryPort} 2`,
        `sentinel auth-pass ${name} ${this.options.password}`,
        `sentinel down-after-milliseconds ${name} 1000`,
        `sentinel failover-timeout ${name} 10000`,
        `sentinel parallel-syncs ${name} 1`,
        '',
      ].join('\n'),
    );
    sentinel.process = spawn('redis-server', [file, '--sentinel'], { stdio: 'ignore' });
  }

  private async waitForNode(port: number, password: string): Promise<void> {
    await waitFor(
      async () =>
        (await this.ask(port, password, 'PING').catch(() => undefined)) ? true : undefined,
      { timeoutMs: 30_000, intervalMs: 100, what: `redis on ${port}` },
    );
  }

  private ask(port: number, password: string, ...command: string[]): Promise<unknown> {
    return askRedis(port, password, ...command);
  }
}
