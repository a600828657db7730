import type { INestApplication } from '@nestjs/common';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MetricsService } from '../../src/metrics/metrics.service';
import { signUp } from '../support/events';
import { uniqueName, waitFor } from '../support/kafka-helpers';
import { PipelineFixture } from '../support/service-harness';

jest.setTimeout(90_000);

describe('the vendor refusing our key (401)', () => {
  const fixture = new PipelineFixture();
  const run = uniqueName('auth');
  const events = Array.from({ length: 50 }, (_, i) => signUp(i, run));
  let app: INestApplication;

  beforeAll(async () => {
    await fixture.start();
    await fixture.publish('TOPIC_USER_SIGNED_UP', events, (e) => e.data.userId);
    app = await fixture.startService({
      VENDOR_RELAY_ACCESS_TOKEN: 'a-wrong-key',
      BATCH_MAX_RECIPIENTS: '10',
      PAUSE_ON_AUTH_FAILURE_MS: '2000',
    });
  });
  afterAll(() => fixture.stop());

  it('pauses consumption and reports not ready, instead of failing or dead-lettering events', async () => {
    const { port } = (app.getHttpServer() as Server).address() as AddressInfo;
    const body = await waitFor(
      async () => {
        const response = await fetch(`http://127.0.0.1:${port}/health/ready`);
        return response.status === 503
          ? ((await response.json()) as { reason: string })
          : undefined;
      },
      { what: 'readiness to drop' },
    );
    expect(body.reason).toContain('refused the credentials');

    // Nothing may happen during the pause. Rather than sleep through it, wait for the service's
    // own next step: when the pause ends it tries again, is refused again and pauses a second
    // time. By then at most two rounds were refused, each at most one request per batch of ten
    // (the batches already under way when the first 401 came back, then the retry); a consumer
    // that kept trying during the pause would have been refused many times more.
    const metrics = app.get(MetricsService);
    await waitFor(
      async () => {
        const { values } = await metrics.vendorPauses.get();
        const auth = values.find((v) => v.labels.reason === 'auth')?.value ?? 0;
        return auth >= 2 ? true : undefined;
      },
      { what: 'the pause to end in a second refusal and pause' },
    );
    const refused = fixture.sandbox.stats.byStatus['401'];
    expect(refused).toBeGreaterThan(0);
    expect(refused).toBeLessThanOrEqual((2 * events.length) / 10);
    expect(fixture.collector.count(fixture.topics.TOPIC_DISPATCH_FAILED)).toBe(0);
    expect(fixture.collector.count(fixture.topics.TOPIC_DEAD_LETTER)).toBe(0);
    expect(fixture.collector.count(fixture.topics.TOPIC_CAMPAIGN_SENT)).toBe(0);
  });
});
