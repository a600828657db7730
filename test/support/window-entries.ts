import type { ListWindow, WindowEntry } from '../../src/windows/window.store';

/** Order `n` for window `w`: reference `o<n>:t`, member `buyer<n>@example.com`. */
export function windowEntry(w: ListWindow, n: number, present: ListWindow = w): WindowEntry {
  return {
    window: w,
    present,
    order: {
      ref: `o${n}:t`,
      eventId: `o${n}`,
      eventType: 'order.placed.v1',
      template: 't',
      key: null,
      headers: {},
    },
    address: `buyer${n}@example.com`,
    member: { email: `buyer${n}@example.com` },
  };
}
