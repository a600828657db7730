import type { AppConfig } from '../config/app-config';
import type { ResultPublisher } from '../outbound/result.publisher';
import { MemoryUnsubscribeOutbox } from './memory-unsubscribe.outbox';
import { MetricsService } from '../metrics/metrics.service';
import { UnsubscribeDrain } from './unsubscribe.drain';
import { UnsubscribeMetrics } from './unsubscribe.metrics';
import type { PendingUnsubscribe } from './unsubscribe.outbox';

const config = {
  unsubscribe: { enabled: true },
  topics: { unsubscribed: 'email.unsubscribed.v1' },
  results: { mode: 'binary', source: 'mailbridge' },
} as unknown as AppConfig;

const pending = (i: number): PendingUnsubscribe => ({
  unsubscribeId: `u-${i}`,
  address: `Reader${i}@Example.com`,
  category: 'marketing',
  scope: 'marketing',
  unsubscribedAt: '2026-11-21T10:00:00.000Z',
});

/** Lets a kicked drain run to its end: it only waits on promises that settle at once here. */
async function settled(): Promise<void> {
  for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
}

describe(UnsubscribeDrain.name, () => {
  it('keeps what it could not publish, and publishes it once the broker takes it', async () => {
    const outbox = new MemoryUnsubscribeOutbox();
    await outbox.record(pending(1), 60_000);
    const published: { topic: string; key: unknown; headers: Record<string, unknown> }[] = [];
    let brokerUp = false;
    const publisher = {
      publish: (topic: string, record: { key: unknown; headers: Record<string, unknown> }) => {
        if (!brokerUp) return Promise.reject(new Error('broker away'));
        published.push({ topic, key: record.key, headers: record.headers });
        return Promise.resolve();
      },
    } as unknown as ResultPublisher;
    const metrics = new UnsubscribeMetrics(new MetricsService());
    const drain = new UnsubscribeDrain(outbox, publisher, config, metrics);

    drain.kick();
    await settled();
    expect(outbox.size).toBe(1);
    expect((await metrics.outboxBlocked.get()).values[0].value).toBe(1);

    brokerUp = true;
    drain.kick();
    await settled();
    expect(outbox.size).toBe(0);
    expect((await metrics.outboxBlocked.get()).values[0].value).toBe(0);
    expect((await metrics.published.get()).values[0].value).toBe(1);
    expect(published).toEqual([
      {
        topic: 'email.unsubscribed.v1',
        key: 'u-1',
        headers: expect.objectContaining({
          ce_type: 'email.unsubscribed.v1',
          ce_sourceeventid: 'u-1',
        }) as unknown,
      },
    ]);
  });

  it('the same unsubscribe recorded twice is published once', async () => {
    const outbox = new MemoryUnsubscribeOutbox();
    expect(await outbox.record(pending(2), 60_000)).toBe(true);
    expect(await outbox.record(pending(2), 60_000)).toBe(false);
    const batches: number[] = [];
    await outbox.drain(100, (batch) => Promise.resolve(void batches.push(batch.length)));
    expect(batches).toEqual([1]);
  });
});
