import 'reflect-metadata';
import { Pool } from 'undici';
import { loadConfig } from '../../src/config/config.loader';
import { WelcomePlanner } from '../../src/templates/welcome/welcome.planner';
import { percentiles } from '../measure/percentiles';
import { userSignedUp } from '../workloads/event-factory';
import type { UserSignedUpV1 } from '../../src/contracts/user-signed-up.v1';
import { childConfig, type HttpChildConfig, type HttpReport } from './child-messages';

/**
 * ceiling-http: as many campaign POSTs as the sandbox answers, from `connections` concurrent
 * requests over a keep-alive undici pool. The body is the welcome template's real content with
 * `recipients` rendered recipients, so it costs what mailbridge's requests cost.
 */
async function main(): Promise<void> {
  const config = childConfig<HttpChildConfig>();
  const url = new URL(config.relayBaseUrl);
  const path = `${url.pathname.replace(/\/+$/, '')}/email/campaign`;
  const template = new WelcomePlanner(
    loadConfig({ MAILBRIDGE_MODE: 'local', SENDER_FROM_EMAIL: 'bench@mailbridge.local' }),
  );
  const planned = Array.from({ length: config.recipients }, (_, n) =>
    template.plan(JSON.parse(userSignedUp(n).value) as UserSignedUpV1),
  );
  const body = JSON.stringify({
    ...planned[0].content,
    recipients: { to: planned.flatMap((p) => p.recipients) },
  });
  const pool = new Pool(url.origin, { connections: config.connections });
  const latencies: number[] = [];
  let ok = 0;
  let failed = 0;
  const cpu = process.cpuUsage();
  const started = Date.now();
  const deadline = started + config.seconds * 1000;
  const worker = async () => {
    while (Date.now() < deadline) {
      const sent = performance.now();
      try {
        const response = await pool.request({
          method: 'POST',
          path,
          headers: { 'content-type': 'application/json', 'x-relay-access-token': config.token },
          body,
        });
        await response.body.text();
        if (response.statusCode >= 200 && response.statusCode < 300) ok += 1;
        else failed += 1;
      } catch {
        failed += 1;
      }
      latencies.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: config.connections }, worker));
  const elapsedMs = Date.now() - started;
  const { user, system } = process.cpuUsage(cpu);
  await pool.close();
  const { p50, p99 } = percentiles(latencies);
  const report: HttpReport = {
    type: 'http-done',
    requests: ok + failed,
    ok,
    failed,
    elapsedMs,
    latencyMs: { p50, p99 },
    bodyBytes: Buffer.byteLength(body),
    cpuMs: (user + system) / 1000,
  };
  process.send?.(report);
  process.disconnect?.();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
