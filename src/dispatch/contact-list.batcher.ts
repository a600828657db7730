import type {
  ContactListRequest,
  ContactListResponse,
  ContactMember,
} from '../vendor/vendor.types';

export interface ContactListCreator {
  createContactList(request: ContactListRequest): Promise<ContactListResponse>;
}

export interface ContactListDelivery {
  listId: string;
  name: string;
  memberCount: number;
}

export interface ContactListBatcherOptions {
  maxMembers: number;
  /** Grace after a window's end (by the clock) before its list is created. */
  lingerMs: number;
  /** List name for a window, e.g. `new-customers-{window}`. */
  namePattern: string;
}

interface OpenList {
  name: string;
  members: Map<string, ContactMember>;
  waiters: Array<{ resolve: (d: ContactListDelivery) => void; reject: (e: unknown) => void }>;
  timer?: NodeJS.Timeout;
}

/**
 * Creates contact lists. Window lists gather the members of every event of one time window
 * (repeat addresses kept once, the latest details winning) and are created when the window has
 * closed and `lingerMs` passed, or when `maxMembers` is reached. The vendor can only create a
 * list, never add to one, so a window that fills up (or hears of a late event after its list
 * was created) continues in a further list named `<name>-2`, `-3`, ….
 */
export class ContactListBatcher {
  private readonly open = new Map<string, OpenList>();
  private readonly created = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly creator: ContactListCreator,
    private readonly options: ContactListBatcherOptions,
    private readonly now: () => number = Date.now,
  ) {}

  /** Creates exactly this list, on its own. */
  async createExact(name: string, members: ContactMember[]): Promise<ContactListDelivery> {
    const { id } = await this.creator.createContactList({ name, members });
    return { listId: id, name, memberCount: members.length };
  }

  addToWindow(
    listKey: string,
    window: { start: Date; end: Date },
    members: ContactMember[],
  ): Promise<ContactListDelivery> {
    return new Promise((resolve, reject) => {
      const key = `${listKey}@${window.start.toISOString()}`;
      let list = this.open.get(key);
      if (!list) {
        list = { name: this.nameFor(key, window.start), members: new Map(), waiters: [] };
        this.open.set(key, list);
        const due = Math.max(window.end.getTime() - this.now(), 0) + this.options.lingerMs;
        list.timer = setTimeout(() => this.flush(key), due);
      }
      for (const m of members) list.members.set(m.email.toLowerCase(), m);
      list.waiters.push({ resolve, reject });
      if (list.members.size >= this.options.maxMembers) this.flush(key);
    });
  }

  async drain(): Promise<void> {
    for (const key of [...this.open.keys()]) this.flush(key);
    await Promise.allSettled([...this.inFlight]);
  }

  private nameFor(key: string, start: Date): string {
    const count = (this.created.get(key) ?? 0) + 1;
    this.created.set(key, count);
    const window = start.toISOString().slice(0, 16).replace(/[-:]/g, '') + 'Z';
    const name = this.options.namePattern.replace('{window}', window);
    return count === 1 ? name : `${name}-${count}`;
  }

  private flush(key: string): void {
    const list = this.open.get(key);
    if (!list) return;
    this.open.delete(key);
    clearTimeout(list.timer);
    const members = [...list.members.values()];
    const sending = this.createExact(list.name, members).then(
      (delivery) => list.waiters.forEach((w) => w.resolve(delivery)),
      (error: unknown) => {
        // Nothing was created under this name: the retry may use it.
        this.created.set(key, (this.created.get(key) ?? 1) - 1);
        list.waiters.forEach((w) => w.reject(error));
      },
    );
    const tracked = sending.finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }
}
