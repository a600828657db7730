import { Logger } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import type { ContactMember } from '../email-api/vendor.types';
import { MetricsService } from '../metrics/metrics.service';
import { AddressKeyer } from '../suppression/address-key';
import { MemorySuppressionStore } from '../suppression/memory-suppression.store';
import { SuppressionList } from '../suppression/suppression-list';
import { ContactListWindows } from './contact-list.windows';
import { MemoryWindowStore } from './memory-window.store';
import { WindowPlacement, type WindowAction } from './window.placement';

const member: ContactMember = { email: 'm@example.com', firstName: 'M' };
const windowList: WindowAction = {
  kind: 'contact-list',
  mode: 'window',
  listKey: 'new-customers',
  window: { start: new Date(0), end: new Date(60_000) },
  members: [member],
};

function setUp() {
  const config = {
    batching: { contactListLatePolicy: 'follow-up' },
  } as unknown as AppConfig;
  const windowStore = new MemoryWindowStore({
    lingerMs: 1_000,
    maxMembers: 10,
    latePolicy: 'follow-up',
    retentionSeconds: 3600,
  });
  const naming = new ContactListWindows(
    { namePattern: 'new-customers-{window}', clockSkewMs: 30_000 },
    () => 30_000,
  );
  const metrics = new MetricsService();
  const suppression = new SuppressionList(
    new MemorySuppressionStore(),
    new AddressKeyer('a-key-for-the-spec-only-32-characters'),
  );
  const placement = new WindowPlacement(config, naming, windowStore, metrics, suppression);
  const count = async (name: string, labels: Record<string, string>) => {
    const metric = (await metrics.registry.getSingleMetric(name)?.get())?.values ?? [];
    const match = metric.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
    return match?.value ?? 0;
  };
  return { placement, windowStore, count };
}

describe(WindowPlacement.name, () => {
  it("stores a window action's member and returns at once", async () => {
    const { placement, windowStore } = setUp();
    const order = {
      ref: 'evt-1:new-customers',
      eventId: 'evt-1',
      eventType: 'order.placed.v1',
      template: 'new-customers',
      key: null,
      headers: {},
    };
    expect(await placement.place(windowList, order)).toEqual({
      status: 'in-window',
      list: 'new-customers-19700101T0000Z',
    });
    expect(await windowStore.openCounts()).toEqual({ lists: 1, members: 1 });
  });

  it('counts late orders, and says once per follow-up list where they go', async () => {
    // The window store reads the clock it was made with: a fake one, moved past the linger.
    jest.useFakeTimers({ now: 1_000_000 });
    try {
      const { placement, windowStore, count } = setUp();
      const lines = jest.spyOn(Logger.prototype, 'log');
      const order = (n: number) => ({
        ref: `evt-${n}:new-customers`,
        eventId: `evt-${n}`,
        eventType: 'order.placed.v1',
        template: 'new-customers',
        key: null,
        headers: {},
      });
      const window = 'new-customers-19700101T0000Z';
      await placement.place(windowList, order(1));
      jest.setSystemTime(1_000_000 + 1_000);
      expect((await windowStore.take('closer', 60_000))?.name).toBe(window);
      for (const n of [2, 3, 4]) {
        expect(await placement.place(windowList, order(n))).toEqual({
          status: 'in-window',
          list: `${window}-late-1`,
        });
      }
      expect(
        await count('mailbridge_contact_list_late_orders_total', { policy: 'follow-up' }),
      ).toBe(3);
      const said = lines.mock.calls.filter(([line]) => String(line).startsWith('late orders'));
      expect(said).toEqual([
        [`late orders for ${window} go into ${window}-late-1 (CONTACT_LIST_LATE_POLICY=follow-up)`],
      ]);
    } finally {
      jest.useRealTimers();
    }
  });
});
