import { join } from 'node:path';
import { nextMessage, startNode, stopChild, type StartedChild } from '../infra/child-process';
import { ProcessMonitor } from '../infra/process-monitor';
import type { LatencyProfile } from './latency-profile';
import type { VendorCommand, VendorReport, VendorStats } from './vendor-stats';

/** The harness's handle on the vendor host process. */
export class VendorHandle {
  private constructor(
    private readonly started: StartedChild,
    /** Base URL through the latency proxy: what the services under test call. */
    readonly url: string,
    /** Base URL of the sandbox itself, without injected latency. */
    readonly directUrl: string,
    readonly monitor: ProcessMonitor,
  ) {}

  static async start(profile: LatencyProfile): Promise<VendorHandle> {
    const started = startNode(
      'vendor',
      join(__dirname, 'vendor-host.js'),
      {
        BENCH_VENDOR_PROFILE: JSON.stringify(profile),
      },
      { ipc: true },
    );
    const ready = await nextMessage<Extract<VendorReport, { type: 'ready' }>>(
      started,
      'ready',
      15_000,
    );
    const monitor = new ProcessMonitor(started.pid).start();
    return new VendorHandle(started, ready.url, ready.directUrl, monitor);
  }

  /** Counters since the last reset; `reset` zeroes them for the next phase. */
  async stats(reset = true): Promise<VendorStats> {
    const reply = nextMessage<Extract<VendorReport, { type: 'stats' }>>(
      this.started,
      'stats',
      10_000,
    );
    this.send({ type: 'stats', reset });
    return (await reply).stats;
  }

  setProfile(profile: LatencyProfile): void {
    this.send({ type: 'profile', profile });
  }

  async stop(): Promise<void> {
    this.monitor.stop();
    await stopChild(this.started);
  }

  private send(command: VendorCommand): void {
    this.started.child.send(command);
  }
}
