import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { freePort } from './free-port';

const run = promisify(execFile);
const SCRIPT = join(__dirname, '../../scripts/kafka/kafka.sh');

export interface SecuredListeners {
  /** An SSL listener requiring a client certificate; the files are in {@link PrivateBroker.tlsDir}. */
  ssl?: boolean;
  /**
   * A SASL_PLAINTEXT and a SASL_SSL listener (PLAIN, SCRAM-SHA-256/512, unsecured OAUTHBEARER) for
   * these users; the broker's certificate of the SASL_SSL one is signed by `tlsDir`'s CA.
   */
  saslUsers?: Record<string, string>;
}

/**
 * A broker of one test, apart from the suite's shared one, for a test that stops and restarts
 * it, or one that needs secured listeners (beside the PLAINTEXT one, which `address` names). The
 * script runs asynchronously, so a service running in the same process keeps running while the
 * broker stops or starts.
 */
export class PrivateBroker {
  private constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly dir: string,
    readonly address: string,
    /** `host:port` of the SSL listener (client certificate required), when asked for. */
    readonly sslAddress?: string,
    /** `host:port` of the SASL_PLAINTEXT listener, when asked for. */
    readonly saslAddress?: string,
    /** `host:port` of the SASL_SSL listener, when SASL was asked for. */
    readonly saslSslAddress?: string,
  ) {}

  static async start(listeners: SecuredListeners = {}): Promise<PrivateBroker> {
    const [port, controllerPort] = [await freePort(), await freePort()];
    const sslPort = listeners.ssl ? await freePort() : undefined;
    const saslPort = listeners.saslUsers ? await freePort() : undefined;
    const saslSslPort = listeners.saslUsers ? await freePort() : undefined;
    const dir = mkdtempSync(join(tmpdir(), 'mailbridge-broker-'));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      KAFKA_PORT: String(port),
      KAFKA_CONTROLLER_PORT: String(controllerPort),
      KAFKA_DIR: join(dir, 'kafka'),
      KAFKA_HEAP: '256m',
    };
    if (sslPort) env.KAFKA_SSL_PORT = String(sslPort);
    if (saslPort) {
      env.KAFKA_SASL_PORT = String(saslPort);
      env.KAFKA_SASL_SSL_PORT = String(saslSslPort);
      env.KAFKA_SASL_USERS = Object.entries(listeners.saslUsers ?? {})
        .map(([name, password]) => `${name}:${password}`)
        .join(' ');
    }
    const at = (p?: number) => (p ? `127.0.0.1:${p}` : undefined);
    const broker = new PrivateBroker(
      env,
      dir,
      `127.0.0.1:${port}`,
      at(sslPort),
      at(saslPort),
      at(saslSslPort),
    );
    await broker.script('start');
    return broker;
  }

  /** Where `scripts/kafka/certs.sh` wrote the CA, the client certificate and keys. */
  get tlsDir(): string {
    return join(this.env.KAFKA_DIR!, 'tls');
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
