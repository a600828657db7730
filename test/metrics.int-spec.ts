import type { INestApplication } from '@nestjs/common';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signUp } from './support/events';
import { produce, uniqueName, waitFor } from './support/kafka-helpers';
import { metricNamesUsed, seriesNamesOf } from './support/monitoring';
import { PipelineFixture } from './support/service-harness';

jest.setTimeout(180_000);

/** One sample of a scrape: `name{labels} value`. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The text format, as far as this test reads it: TYPE lines and samples. */
function parseScrape(text: string): { types: Map<string, string>; samples: Sample[] } {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1], type[2]);
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (sample[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[key] = value;
    }
    samples.push({ name: sample[1], labels, value: Number(sample[3]) });
  }
  return { types, samples };
}

/** The value of the one sample of `name` whose labels include `labels`; undefined if none. */
function valueOf(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  return samples.find(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  )?.value;
}

describe('GET /metrics on a running service', () => {
  const fixture = new PipelineFixture();
  const run = uniqueName('metrics');
  const events = Array.from({ length: 12 }, (_, i) => signUp(i, run));
  let app: INestApplication;
  let url: string;

  const scrape = async () => {
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    return parseScrape(await response.text());
  };

  beforeAll(async () => {
    await fixture.start();
    // Every relay request fails until the test heals the vendor: retries, then the gate closes.
    fixture.sandbox.setFaults({ statuses: [{ status: 503, share: 1 }] });
    app = await fixture.startService({ PAUSE_ON_VENDOR_FAILURE_MS: '2000' });
    const { port } = (app.getHttpServer() as Server).address() as AddressInfo;
    url = `http://127.0.0.1:${port}/metrics`;
  });
  afterAll(() => fixture.stop());

  it('shows the families an operator needs, moving with the work', async () => {
    const topic = fixture.topics.TOPIC_USER_SIGNED_UP;
    await fixture.publish('TOPIC_USER_SIGNED_UP', events, (e) => e.data.userId);
    await produce(fixture.kafka, topic, [{ key: 'broken', value: 'this is not JSON' }]);

    // The vendor fails: each attempt is timed with its 503, retried, and the gate closes.
    await waitFor(
      async () => {
        const { samples } = await scrape();
        const retried = valueOf(samples, 'mailbridge_vendor_retries_total', {
          endpoint: 'relay',
          reason: 'server_error',
        });
        const closed = valueOf(samples, 'mailbridge_vendor_gate_closed', { cause: 'outage' });
        return (retried ?? 0) >= 1 && closed === 1 ? true : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100, what: 'a counted retry and the gate closed' },
    );
    const during = await scrape();
    expect(
      valueOf(during.samples, 'mailbridge_vendor_request_duration_seconds_count', {
        endpoint: 'relay',
        status: '503',
      }),
    ).toBeGreaterThanOrEqual(2);
    expect(valueOf(during.samples, 'mailbridge_consumer_in_flight_records')).toBeGreaterThanOrEqual(
      1,
    ); // the sign-ups wait for the vendor
    const waiting = during.samples.filter(
      (s) => s.name === 'mailbridge_consumer_lag_records' && s.labels.topic === topic,
    );
    expect(waiting.reduce((sum, s) => sum + s.value, 0)).toBeGreaterThanOrEqual(1);

    // The vendor heals: everything is sent, the broken record dead-lettered.
    fixture.sandbox.setFaults({});
    await waitFor(
      () =>
        fixture.collector.count(fixture.topics.TOPIC_CAMPAIGN_SENT) === events.length &&
        fixture.collector.count(fixture.topics.TOPIC_DEAD_LETTER) === 1
          ? true
          : undefined,
      { timeoutMs: 90_000, what: 'every sign-up sent and the broken record dead-lettered' },
    );

    // Lag back to 0 on every partition that had records, the window empty, the gate open.
    const after = await waitFor(
      async () => {
        const scraped = await scrape();
        const lags = scraped.samples.filter(
          (s) => s.name === 'mailbridge_consumer_lag_records' && s.labels.topic === topic,
        );
        const settled =
          lags.length > 0 &&
          lags.every((s) => s.value === 0) &&
          valueOf(scraped.samples, 'mailbridge_consumer_in_flight_records') === 0 &&
          valueOf(scraped.samples, 'mailbridge_vendor_gate_closed', { cause: 'outage' }) === 0;
        return settled ? scraped : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'lag 0, nothing in flight, the gate open' },
    );
    const { samples, types } = after;

    expect(valueOf(samples, 'mailbridge_dead_letters_total', { code: 'UNPARSEABLE' })).toBe(1);
    expect(valueOf(samples, 'mailbridge_outcomes_total', { outcome: 'dead_lettered' })).toBe(1);
    expect(valueOf(samples, 'mailbridge_outcomes_total', { outcome: 'sent' })).toBe(events.length);
    const relayOk = valueOf(samples, 'mailbridge_vendor_request_duration_seconds_count', {
      endpoint: 'relay',
      status: '200',
    });
    expect(relayOk).toBeGreaterThanOrEqual(1);
    const relayOkSeconds = valueOf(samples, 'mailbridge_vendor_request_duration_seconds_sum', {
      endpoint: 'relay',
      status: '200',
    });
    expect(relayOkSeconds).toBeGreaterThan(0);
    expect(relayOkSeconds! / relayOk!).toBeLessThan(30); // seconds, not milliseconds
    expect(
      valueOf(samples, 'mailbridge_vendor_request_duration_seconds_bucket', {
        endpoint: 'relay',
        status: '200',
        le: '+Inf',
      }),
    ).toBe(relayOk);
    expect(
      valueOf(samples, 'mailbridge_vendor_retries_total', {
        endpoint: 'relay',
        reason: 'server_error',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      valueOf(samples, 'mailbridge_vendor_pauses_total', { reason: 'outage' }),
    ).toBeGreaterThanOrEqual(1);
    expect(valueOf(samples, 'mailbridge_vendor_gate_closed', { cause: 'auth' })).toBe(0);
    expect(valueOf(samples, 'mailbridge_consumer_in_flight_bytes')).toBe(0);
    expect(valueOf(samples, 'mailbridge_consumer_in_flight_limit_records')).toBe(2000);
    expect(valueOf(samples, 'mailbridge_consumer_in_flight_limit_bytes')).toBeGreaterThan(0);
    expect(valueOf(samples, 'mailbridge_consumer_batch_records_count')).toBeGreaterThanOrEqual(1);
    expect(valueOf(samples, 'mailbridge_consumer_batch_records_sum')).toBeGreaterThanOrEqual(
      events.length + 1,
    );
    expect(
      valueOf(samples, 'mailbridge_campaign_recipients_per_request_count'),
    ).toBeGreaterThanOrEqual(1);
    expect(valueOf(samples, 'mailbridge_possible_duplicate_sends_total')).toBe(0);
    expect(valueOf(samples, 'mailbridge_log_lines_dropped_total')).toBe(0);
    expect(valueOf(samples, 'mailbridge_redis_writes_without_replicas_total')).toBe(0);

    // Node's defaults under their standard names, and none under the old prefix.
    expect(types.get('process_cpu_seconds_total')).toBe('counter');
    expect(types.get('nodejs_heap_size_used_bytes')).toBe('gauge');
    expect(valueOf(samples, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect([...types.keys()].filter((name) => /^mailbridge_(process|nodejs)_/.test(name))).toEqual(
      [],
    );

    // Every metric the dashboard and the alert rules query is a family this scrape has.
    const scraped = new Set([...types].flatMap(([name, type]) => seriesNamesOf(name, type)));
    const missing = [...metricNamesUsed().keys()].filter(
      (name) => name !== 'up' && !scraped.has(name),
    );
    expect(missing).toEqual([]);
  });
});
