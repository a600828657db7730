import { MetricsService } from './metrics.service';

/** A sample as prom-client hands it out; histograms name the series each one belongs to. */
interface Sample {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/** One family's samples as `{labels…} value` strings, the way a scrape computes them. */
async function samples(metrics: MetricsService, name: string): Promise<string[]> {
  const family = await metrics.registry.getSingleMetric(name)!.get();
  return (family.values as Sample[])
    .filter((v) => v.metricName === undefined || v.metricName === name)
    .map((v) => `${JSON.stringify(v.labels)} ${v.value}`);
}

describe(MetricsService.name, () => {
  it("serves Node's default metrics under their standard names, without a prefix", async () => {
    const text = await new MetricsService().registry.metrics();

    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'process_start_time_seconds',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_gc_duration_seconds',
    ]) {
      expect(text).toMatch(new RegExp(`^# TYPE ${name} `, 'm'));
    }
    expect(text).not.toMatch(/^# TYPE mailbridge_(process|nodejs)_/m);
  });

  it('names every family of its own mailbridge_ and follows the unit and _total conventions', async () => {
    const families = await new MetricsService().registry.getMetricsAsJSON();
    const own = families.filter((f) => f.name.startsWith('mailbridge_'));

    expect(own.length).toBeGreaterThanOrEqual(14);
    for (const family of own) expect(family.name).toMatch(/^mailbridge_[a-z_]+$/);
    const isCounter = (f: { type: unknown }) => String(f.type) === 'counter';
    expect(own.filter((f) => isCounter(f) !== f.name.endsWith('_total'))).toEqual([]);
    const seconds = own.find((f) => f.name === 'mailbridge_vendor_request_duration_seconds');
    expect(seconds?.type).toBe('histogram');
  });

  it('counts dead letters by code, and each as the outcome dead_lettered', async () => {
    const metrics = new MetricsService();
    metrics.deadLettered('UNPARSEABLE');
    metrics.deadLettered('UNKNOWN_TYPE');
    metrics.deadLettered('UNPARSEABLE');

    expect(await samples(metrics, 'mailbridge_dead_letters_total')).toEqual([
      '{"code":"UNPARSEABLE"} 2',
      '{"code":"UNKNOWN_TYPE"} 1',
    ]);
    // A second scrape counts from the totals, not on top of the first.
    expect(await samples(metrics, 'mailbridge_dead_letters_total')).toEqual([
      '{"code":"UNPARSEABLE"} 2',
      '{"code":"UNKNOWN_TYPE"} 1',
    ]);
    expect(await samples(metrics, 'mailbridge_outcomes_total')).toEqual([
      '{"outcome":"dead_lettered"} 3',
    ]);
  });

  it('observes vendor attempts by endpoint and status, and counts retries by reason', async () => {
    const metrics = new MetricsService();
    metrics.vendorRequest('relay', '200', 0.04);
    metrics.vendorRequest('relay', '503', 0.3);
    metrics.vendorRequest('contacts', 'timeout', 30);
    metrics.vendorRetry('relay', 'server_error');

    const family = await metrics.registry
      .getSingleMetric('mailbridge_vendor_request_duration_seconds')!
      .get();
    const values = family.values as Sample[];
    const count = (endpoint: string, status: string) =>
      values.find(
        (v) =>
          v.metricName === 'mailbridge_vendor_request_duration_seconds_count' &&
          v.labels.endpoint === endpoint &&
          v.labels.status === status,
      )?.value;
    expect(count('relay', '200')).toBe(1);
    expect(count('relay', '503')).toBe(1);
    expect(count('contacts', 'timeout')).toBe(1);
    const le = (bound: number) =>
      values.find(
        (v) =>
          v.metricName === 'mailbridge_vendor_request_duration_seconds_bucket' &&
          v.labels.status === '200' &&
          v.labels.le === bound,
      )?.value;
    expect(le(0.025)).toBe(0);
    expect(le(0.05)).toBe(1);
    expect(await samples(metrics, 'mailbridge_vendor_retries_total')).toEqual([
      '{"endpoint":"relay","reason":"server_error"} 1',
    ]);
  });

  it('shows the gate closed for its cause only, and open as 0 for both', async () => {
    const metrics = new MetricsService();
    let state: { open: boolean; reason?: string } = { open: true };
    metrics.watchGate(() => state);

    expect(await samples(metrics, 'mailbridge_vendor_gate_closed')).toEqual([
      '{"cause":"auth"} 0',
      '{"cause":"outage"} 0',
    ]);
    state = { open: false, reason: 'outage' };
    expect(await samples(metrics, 'mailbridge_vendor_gate_closed')).toEqual([
      '{"cause":"auth"} 0',
      '{"cause":"outage"} 1',
    ]);
  });

  it('reports no lag and an empty window before a consumer is watched', async () => {
    const metrics = new MetricsService();
    expect(await samples(metrics, 'mailbridge_consumer_lag_records')).toEqual([]);
    expect(await samples(metrics, 'mailbridge_consumer_in_flight_records')).toEqual(['{} 0']);
  });
});
