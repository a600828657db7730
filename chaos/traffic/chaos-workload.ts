import { order, signUp } from '../../test/support/events';

export type ActionKind = 'campaign' | 'list';

/** One (event, template) the service owes a result for, and the address the vendor sees for it. */
export interface ExpectedAction {
  eventId: string;
  template: string;
  kind: ActionKind;
  /** Unique per event, so every recipient or list member maps back to its event. */
  email: string;
}

export interface WorkloadRecord {
  kind: 'signup' | 'order';
  id: string;
  key: string;
  value: string;
}

/**
 * The run's input: sign-ups and orders interleaved evenly, made with the integration tests'
 * factories. Events are stamped when they are produced (an order's window, and so its contact
 * list, follows its `placedAt`); their ids and addresses depend only on the run and the index.
 */
export class ChaosWorkload {
  readonly total: number;

  constructor(
    readonly run: string,
    readonly signups: number,
    readonly orders: number,
  ) {
    this.total = signups + orders;
  }

  /** The n-th event of the run (0-based), stamped `at`. */
  make(n: number, at: Date): WorkloadRecord {
    const { kind, index } = this.slot(n);
    if (kind === 'order') {
      const event = order(index, this.run, at.toISOString());
      return { kind, id: event.id, key: event.data.orderId, value: JSON.stringify(event) };
    }
    const event = { ...signUp(index, this.run), time: at.toISOString() };
    return { kind, id: event.id, key: event.data.userId, value: JSON.stringify(event) };
  }

  /** Every (event, template) of the run: a welcome per sign-up; a confirmation and a list entry per order. */
  expected(): ExpectedAction[] {
    const out: ExpectedAction[] = [];
    for (let n = 0; n < this.total; n++) {
      const { kind, index } = this.slot(n);
      if (kind === 'signup') {
        const e = signUp(index, this.run);
        out.push({ eventId: e.id, template: 'welcome', kind: 'campaign', email: e.data.email });
      } else {
        const e = order(index, this.run);
        const email = e.data.customer.email;
        out.push({ eventId: e.id, template: 'order-confirmation', kind: 'campaign', email });
        out.push({ eventId: e.id, template: 'new-customers', kind: 'list', email });
      }
    }
    return out;
  }

  /** Orders spread evenly through the run rather than in one block. */
  private slot(n: number): { kind: 'signup' | 'order'; index: number } {
    const ordersBefore = Math.floor((n * this.orders) / this.total);
    const ordersThrough = Math.floor(((n + 1) * this.orders) / this.total);
    return ordersThrough > ordersBefore
      ? { kind: 'order', index: ordersBefore }
      : { kind: 'signup', index: n - ordersBefore };
  }
}
