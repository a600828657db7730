import type { INestApplication } from '@nestjs/common';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EmailCampaignSentV1 } from '../../src/contracts/email-campaign-sent.v1';
import type { CampaignRequest } from '../../src/email-api/vendor.types';
import { signUp } from '../support/events';
import { freePort } from '../support/free-port';
import { uniqueName, waitFor } from '../support/kafka-helpers';
import { PipelineFixture } from '../support/service-harness';

jest.setTimeout(120_000);

describe('the idempotency store (Redis) unreachable', () => {
  const fixture = new PipelineFixture();
  const run = uniqueName('redis-outage');
  const events = Array.from({ length: 30 }, (_, i) => signUp(i, run));
  const dir = mkdtempSync(join(tmpdir(), 'mailbridge-redis-'));
  let redis: ChildProcess | undefined;
  let app: INestApplication;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    await fixture.start();
    await fixture.publish('TOPIC_USER_SIGNED_UP', events, (e) => e.data.userId);
    app = await fixture.startService({ REDIS_URL: `redis://127.0.0.1:${port}` });
  });
  afterAll(async () => {
    await fixture.stop();
    redis?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends nothing and reports not ready until Redis is back, then sends every event once', async () => {
    const http = (app.getHttpServer() as Server).address() as AddressInfo;
    const ready = () => fetch(`http://127.0.0.1:${http.port}/health/ready`);
    const notReady = await waitFor(
      async () => {
        const response = await ready();
        const body = (await response.json()) as { reason?: string };
        return response.status === 503 && body.reason?.includes('Redis') ? body : undefined;
      },
      { what: 'readiness to name Redis' },
    );
    expect(notReady.reason).toContain('unreachable');

    // Nothing may reach the vendor without a claim: give the consumer time in which it could.
    await expect(
      waitFor(() => (fixture.sandbox.requests.length > 0 ? true : undefined), {
        timeoutMs: 3_000,
      }),
    ).rejects.toThrow(/timed out/);
    expect(fixture.collector.count(fixture.topics.TOPIC_CAMPAIGN_SENT)).toBe(0);

    redis = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir],
      { stdio: 'ignore' },
    );
    const results = await waitFor(
      () => {
        const r = fixture.collector.results<EmailCampaignSentV1>(
          fixture.topics.TOPIC_CAMPAIGN_SENT,
        );
        return r.length >= events.length ? r : undefined;
      },
      { timeoutMs: 60_000, what: 'every event sent once Redis is back' },
    );
    expect(new Set(results.map((r) => r.sourceeventid))).toEqual(new Set(events.map((e) => e.id)));
    const emails = fixture.sandbox.requests.flatMap((r) =>
      (r.body as CampaignRequest).recipients.to.map((t) => t.email),
    );
    expect(emails.sort()).toEqual(events.map((e) => e.data.email).sort());
    await waitFor(async () => ((await ready()).status === 200 ? true : undefined), {
      what: 'readiness once Redis is back',
    });
  });
});
