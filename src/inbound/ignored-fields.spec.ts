import { MetricsService } from '../metrics/metrics.service';
import { IgnoredFields, MAX_REMEMBERED_FIELDS, type LogLine } from './ignored-fields';

function reporter(limit?: number) {
  const counted: Array<[string, number]> = [];
  const lines: LogLine[] = [];
  const ignored = new IgnoredFields(
    (type, n) => counted.push([type, n]),
    (line) => lines.push(line),
    limit,
  );
  return { ignored, counted, lines };
}

describe(IgnoredFields.name, () => {
  it('remembers at most 100 paths by default', () => {
    expect(MAX_REMEMBERED_FIELDS).toBe(100);
  });

  it('counts every ignored field, and logs each path of a type once', () => {
    const { ignored, counted, lines } = reporter();
    ignored.report('user.signed_up.v1', ['data.referralCode']);
    ignored.report('user.signed_up.v1', ['data.referralCode', 'data.utm.campaign']);
    ignored.report('order.placed.v1', ['data.referralCode']);

    expect(counted).toEqual([
      ['user.signed_up.v1', 1],
      ['user.signed_up.v1', 2],
      ['order.placed.v1', 1],
    ]);
    expect(lines.map((l) => [l.eventType, l.field])).toEqual([
      ['user.signed_up.v1', 'data.referralCode'],
      ['user.signed_up.v1', 'data.utm.campaign'],
      ['order.placed.v1', 'data.referralCode'],
    ]);
    expect(lines[0].msg).toBe(
      'ignored an unknown field of user.signed_up.v1: data.referralCode (logged once)',
    );
  });

  it('counts lenient values that did not fit with the unknown fields, and logs them as such', () => {
    const { ignored, counted, lines } = reporter();
    ignored.report('order.placed.v1', ['data.loyalty'], ['data.customer.timeZone']);
    ignored.report('order.placed.v1', [], ['data.customer.timeZone']);

    expect(counted).toEqual([
      ['order.placed.v1', 2],
      ['order.placed.v1', 1],
    ]);
    expect(lines.map((l) => l.msg)).toEqual([
      'ignored an unknown field of order.placed.v1: data.loyalty (logged once)',
      'ignored a value that does not fit of order.placed.v1: data.customer.timeZone (logged once)',
    ]);
  });

  it('past its bound, counts new paths without logging them, and says so once', () => {
    const { ignored, counted, lines } = reporter(3);
    for (let i = 0; i < 10; i++) ignored.report('order.placed.v1', [`data.f${i}`, 'data.f0']);

    expect(counted).toHaveLength(10);
    expect(counted.every(([, n]) => n === 2)).toBe(true);
    expect(lines.map((l) => l.field ?? l.limit)).toEqual(['data.f0', 'data.f1', 'data.f2', 3]);
    expect(lines[3].msg).toContain('3 paths already logged');
    // The paths remembered are still recognised: no line for them either.
    ignored.report('order.placed.v1', ['data.f1']);
    expect(lines).toHaveLength(4);
  });

  it('feeds mailbridge_inbound_ignored_fields_total, labelled by event type only', async () => {
    const metrics = new MetricsService();
    const ignored = new IgnoredFields(
      (type, n) => metrics.fieldsIgnored(type, n),
      () => undefined,
    );
    ignored.report('user.signed_up.v1', ['data.a', 'data.b']);
    ignored.report('user.signed_up.v1', ['data.a']);
    ignored.report('order.placed.v1', ['data.items[].discount']);

    const text = await metrics.registry.metrics();
    const lines = text.split('\n').filter((l) => l.startsWith('mailbridge_inbound_ignored_'));
    expect(lines).toEqual([
      'mailbridge_inbound_ignored_fields_total{type="user.signed_up.v1"} 3',
      'mailbridge_inbound_ignored_fields_total{type="order.placed.v1"} 1',
    ]);
    // A second scrape counts from the totals, not on top of the first.
    expect(await metrics.registry.metrics()).toContain(
      'mailbridge_inbound_ignored_fields_total{type="user.signed_up.v1"} 3',
    );
  });
});
