import { join } from 'node:path';
import { SANDBOX_RELAY_ACCESS_TOKEN } from '../../src/config/sandbox-defaults';
import { nextMessage, startNode, stopChild } from '../infra/child-process';
import { ProcessMonitor } from '../infra/process-monitor';
import { MB, type ThroughputResult } from '../report/result-types';
import type { BenchContext } from './bench-context';
import type { HttpChildConfig, HttpReport } from './child-messages';
import { vendorFigures } from './throughput.runner';

/**
 * ceiling-http with `recipients` per request: requests/s the sandbox (behind its latency)
 * answers; its "events/s" are the recipients it accepted per second. RSS and CPU are the
 * client's (CPU of its measured loop only, without start-up).
 */
export async function runHttpCeiling(
  ctx: BenchContext,
  recipients: number,
  rep: number,
): Promise<ThroughputResult> {
  const config: HttpChildConfig = {
    relayBaseUrl: `${ctx.vendor.url}/relay/v1`,
    token: SANDBOX_RELAY_ACCESS_TOKEN,
    seconds: ctx.options.httpSeconds,
    connections: ctx.options.httpConnections,
    recipients,
  };
  await ctx.vendor.stats(true);
  const started = startNode(
    `${ctx.runId}.http-${recipients}.r${rep}`,
    join(__dirname, 'ceiling-http.child.js'),
    { BENCH_CHILD: JSON.stringify(config) },
    { ipc: true },
  );
  const monitor = new ProcessMonitor(started.pid).start();
  const base = {
    workload: 'user' as const,
    phase: 'ceiling-http' as const,
    variant: `${recipients} rcpt/req`,
    rep,
    expected: 0,
  };
  try {
    const report = await nextMessage<HttpReport>(
      started,
      'http-done',
      config.seconds * 1000 + 30_000,
    );
    const events = report.ok * recipients;
    return {
      ...base,
      status: report.failed > 0 && report.ok === 0 ? 'failed' : 'complete',
      note: report.failed > 0 ? `${report.failed} requests failed` : undefined,
      events,
      windowMs: report.elapsedMs,
      eventsPerSecond: (events * 1000) / report.elapsedMs,
      vendor: vendorFigures(await ctx.vendor.stats(true)),
      peakRssMb: monitor.peakRssBytes / MB,
      cpuMsPer1kEvents: events > 0 ? (report.cpuMs * 1000) / events : null,
      http: {
        requestsPerSecond: (report.ok * 1000) / report.elapsedMs,
        connections: config.connections,
        recipientsPerRequest: recipients,
        bodyBytes: report.bodyBytes,
        latencyMs: report.latencyMs,
        failed: report.failed,
      },
    };
  } catch (error) {
    return {
      ...base,
      status: 'failed',
      note: (error as Error).message,
      events: 0,
      windowMs: 0,
      eventsPerSecond: 0,
      vendor: vendorFigures(await ctx.vendor.stats(true)),
      peakRssMb: monitor.peakRssBytes / MB,
      cpuMsPer1kEvents: null,
    };
  } finally {
    monitor.stop();
    await stopChild(started, 3_000);
  }
}
