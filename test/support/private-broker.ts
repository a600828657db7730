import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { freePort } from './free-port';

const run = promisify(execFile);
const SCRIPT = join(__dirname, '../../scripts/kafka/kafka.sh');

/**
 * A broker of one test, apart from the suite's shared one, for a test that stops and restarts
 * it. The script runs asynchronously, so a service running in the same process keeps running
 * while the broker stops or starts.
 */
export class PrivateBroker {
  private constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly dir: string,
    readonly address: string,
  ) {}

  static async start(): Promise<PrivateBroker> {
    const [port, controllerPort] = [await freePort(), await freePort()];
    const dir = mkdtempSync(join(tmpdir(), 'mailbridge-broker-'));
    const env = {
      ...process.env,
      KAFKA_PORT: String(port),
      KAFKA_CONTROLLER_PORT: String(controllerPort),
      KAFKA_DIR: join(dir, 'kafka'),
      KAFKA_HEAP: '256m',
    };
    const broker = new PrivateBroker(env, dir, `127.0.0.1:${port}`);
    await broker.script('start');
    return broker;
  }

  kafka(): Kafka {
    return new Kafka({
      clientId: 'test-private',
      brokers: [this.address],
      logLevel: logLevel.NOTHING,
    });
  }

  /** A clean stop: the broker is gone when this resolves. */
  async stop(): Promise<void> {
    await this.script('stop');
  }

  /** Starts again on the same data dir, as a real broker restart would. */
  async restart(): Promise<void> {
    await this.script('restart');
  }

  async destroy(): Promise<void> {
    await this.script('stop').catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async script(command: string): Promise<void> {
    await run('bash', [SCRIPT, command], { env: this.env, timeout: 120_000 });
  }
}
