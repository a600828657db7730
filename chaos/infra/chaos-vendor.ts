import { SANDBOX_API_KEY, SANDBOX_RELAY_ACCESS_TOKEN } from '../../src/config/sandbox-defaults';
import type { FaultConfig, SandboxStats } from '../../src/sandbox/sandbox-options';
import { SandboxServer, type RecordedRequest } from '../../src/sandbox/sandbox.server';
import { WitnessProxy, type UnansweredRequest } from './witness-proxy';

/** Far above what a run sends (a few thousand requests): the record must keep every one. */
const RECORD_LIMIT = 10_000_000;

/**
 * The vendor of a chaos run: the project's sandbox in this process, keeping every request in
 * full (its record is the ground truth of what the vendor accepted), behind the witness proxy
 * that keeps the bodies of unanswered requests. The services are pointed at the proxy.
 */
export class ChaosVendor {
  private constructor(
    private readonly sandbox: SandboxServer,
    private readonly proxy: WitnessProxy,
    /** Base URL the service instances use. */
    readonly url: string,
  ) {}

  static async start(): Promise<ChaosVendor> {
    const sandbox = new SandboxServer({
      relayAccessToken: SANDBOX_RELAY_ACCESS_TOKEN,
      apiKey: SANDBOX_API_KEY,
      recordLimit: RECORD_LIMIT,
    });
    const direct = await sandbox.listen(0);
    const proxy = new WitnessProxy(Number(new URL(direct).port));
    return new ChaosVendor(sandbox, proxy, await proxy.listen());
  }

  get relayAccessToken(): string {
    return SANDBOX_RELAY_ACCESS_TOKEN;
  }

  get apiKey(): string {
    return SANDBOX_API_KEY;
  }

  setFaults(faults: FaultConfig): void {
    this.sandbox.setFaults(faults);
  }

  get requests(): RecordedRequest[] {
    return this.sandbox.requests;
  }

  get stats(): SandboxStats {
    return this.sandbox.stats;
  }

  get unanswered(): UnansweredRequest[] {
    return this.proxy.unanswered;
  }

  get forwarded(): number {
    return this.proxy.forwarded;
  }

  async stop(): Promise<void> {
    await this.proxy.close().catch(() => undefined);
    await this.sandbox.close().catch(() => undefined);
  }
}

/**
 * About `share` of requests fail, split between the four faults a vendor really shows: 503,
 * 429 with Retry-After, connection resets and hangs past the client's timeout. Latency with
 * jitter keeps requests in flight long enough for a kill to land mid-request.
 */
export function chaosFaults(share: number): FaultConfig {
  return {
    latencyMs: 20,
    latencyJitterMs: 60,
    statuses: [
      { status: 503, share: share * 0.35 },
      { status: 429, share: share * 0.25, retryAfterSeconds: 1 },
    ],
    resetShare: share * 0.2,
    hangShare: share * 0.2,
  };
}
