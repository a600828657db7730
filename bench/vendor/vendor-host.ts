import { SANDBOX_API_KEY, SANDBOX_RELAY_ACCESS_TOKEN } from '../../src/config/sandbox-defaults';
import { SandboxServer, type RecordedRequest } from '../../src/sandbox/sandbox.server';
import { fixedLatency, type LatencyProfile } from './latency-profile';
import { LatencyProxy } from './latency-proxy';
import { emptyStats, type VendorCommand, type VendorReport } from './vendor-stats';

/**
 * The vendor's side of the wire, in its own process as a real vendor would be: the project's
 * SandboxServer behind a latency proxy. Recorded requests are folded into counters every 250 ms
 * and dropped, so the sandbox's memory stays flat over a million requests.
 */
async function main(): Promise<void> {
  const profile = JSON.parse(process.env.BENCH_VENDOR_PROFILE ?? 'null') as LatencyProfile | null;
  const sandbox = new SandboxServer({
    relayAccessToken: SANDBOX_RELAY_ACCESS_TOKEN,
    apiKey: SANDBOX_API_KEY,
  });
  const directUrl = await sandbox.listen(0);
  const proxy = new LatencyProxy(Number(new URL(directUrl).port), profile ?? fixedLatency(25));
  const port = await proxy.listen();

  let stats = emptyStats();
  const fold = () => {
    for (const request of sandbox.requests) count(stats, request);
    sandbox.reset();
  };
  setInterval(fold, 250).unref();

  process.on('message', (command: VendorCommand) => {
    switch (command.type) {
      case 'stats': {
        fold();
        send({ type: 'stats', stats });
        if (command.reset) stats = emptyStats();
        break;
      }
      case 'profile':
        proxy.profile = command.profile;
        break;
    }
  });
  process.on('disconnect', () => process.exit(0));
  send({ type: 'ready', url: `http://127.0.0.1:${port}`, directUrl });
}

function count(stats: ReturnType<typeof emptyStats>, request: RecordedRequest): void {
  stats.statuses[request.status] = (stats.statuses[request.status] ?? 0) + 1;
  const body = request.body as { recipients?: { to?: unknown[] }; members?: unknown[] } | undefined;
  if (request.path.endsWith('/email/campaign')) {
    const recipients = body?.recipients?.to?.length ?? 0;
    stats.campaignRequests += 1;
    stats.campaignRecipients += recipients;
    stats.campaignSizes[recipients] = (stats.campaignSizes[recipients] ?? 0) + 1;
  } else {
    stats.contactRequests += 1;
    stats.contactMembers += body?.members?.length ?? 0;
  }
}

function send(report: VendorReport): void {
  process.send?.(report);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
