import { normalisedAddress } from '../email-api/vendor-request.validator';
import type { ContactMember } from '../email-api/vendor.types';
import type {
  ListWindow,
  Placement,
  TakenList,
  WindowEntry,
  WindowOrder,
  WindowStore,
  WindowStoreOptions,
} from './window.store';

type ListState = 'open' | 'taken' | 'sending' | 'created' | 'published';

interface StoredList {
  state: ListState;
  due: number;
  owner?: string;
  lease: number;
  listId?: string;
  ambiguous: boolean;
  /** A follow-up list (or a continuation of one): it holds late orders. */
  late: boolean;
  members: Map<string, ContactMember>;
  orders: Map<string, WindowOrder>;
  expiresAt: number;
}

interface StoredWindow {
  current?: string;
  parts: number;
  lates: number;
  /** Order reference → the list it went to. */
  orders: Map<string, string>;
  expiresAt: number;
}

/**
 * The window store of one process (`IDEMPOTENCY_STORE=memory`, local runs, unit specs): the
 * same rules as the Redis one (`redis-window.store.ts`), kept in maps. Nothing survives a
 * restart, which on the in-memory store nothing else does either.
 */
export class MemoryWindowStore implements WindowStore {
  private readonly lists = new Map<string, StoredList>();
  private readonly windows = new Map<string, StoredWindow>();

  constructor(
    private readonly options: WindowStoreOptions,
    private readonly now: () => number = Date.now,
  ) {}

  add(entry: WindowEntry): Promise<Placement> {
    this.expire();
    const window = this.window(entry.window.name);
    const known = window.orders.get(entry.order.ref);
    if (known) return Promise.resolve({ status: 'duplicate', list: known });
    let placed = this.place(entry.window, entry.address, true);
    let status: Placement['status'] = placed?.late ? 'late' : 'added';
    if (!placed) {
      placed = this.place(entry.present, entry.address, false)!;
      status = 'next-window';
    }
    const list = this.lists.get(placed.name)!;
    list.members.set(entry.address, entry.member);
    list.orders.set(entry.order.ref, entry.order);
    window.orders.set(entry.order.ref, placed.name);
    const until = list.due + this.options.retentionSeconds * 1000;
    list.expiresAt = Math.max(list.expiresAt, until);
    window.expiresAt = Math.max(window.expiresAt, until);
    this.window(entry.present.name).expiresAt = Math.max(
      this.window(entry.present.name).expiresAt,
      until,
    );
    return Promise.resolve({ status, list: placed.name });
  }

  /** The list of `window` that takes `address` now; undefined for `next-window` to decide. */
  private place(
    window: ListWindow,
    address: string,
    mayDefer: boolean,
  ): { name: string; late: boolean } | undefined {
    const stored = this.window(window.name);
    if (stored.current === undefined) {
      return {
        // A window first heard of after its end (a backlog) gathers for a linger from then.
        name: this.open(
          stored,
          window.name,
          Math.max(window.end, this.now()) + this.options.lingerMs,
          false,
        ),
        late: false,
      };
    }
    const current = this.lists.get(stored.current)!;
    if (current.state === 'open') {
      if (current.members.size < this.options.maxMembers || current.members.has(address)) {
        return { name: stored.current, late: current.late };
      }
      const due = current.due;
      current.due = this.now();
      stored.parts += 1;
      const name = `${window.name}-${stored.parts + 1}`;
      return { name: this.open(stored, name, due, current.late), late: current.late };
    }
    if (this.options.latePolicy === 'next-window' && mayDefer) return undefined;
    stored.lates += 1;
    const name = `${window.name}-late-${stored.lates}`;
    return { name: this.open(stored, name, this.now() + this.options.lingerMs, true), late: true };
  }

  private open(window: StoredWindow, name: string, due: number, late: boolean): string {
    this.lists.set(name, {
      state: 'open',
      due,
      lease: 0,
      ambiguous: false,
      late,
      members: new Map(),
      orders: new Map(),
      expiresAt: due + this.options.retentionSeconds * 1000,
    });
    window.current = name;
    return name;
  }

  private window(name: string): StoredWindow {
    let window = this.windows.get(name);
    if (!window) {
      window = { parts: 0, lates: 0, orders: new Map(), expiresAt: 0 };
      this.windows.set(name, window);
    }
    return window;
  }

  take(owner: string, leaseMs: number): Promise<TakenList | undefined> {
    this.expire();
    const now = this.now();
    const due = [...this.lists.entries()]
      .filter(([, l]) => l.state !== 'published' && this.dueAt(l) <= now)
      .sort(([, a], [, b]) => this.dueAt(a) - this.dueAt(b));
    for (const [name, list] of due) {
      const takenOver = list.state !== 'open';
      const maybeSent = list.state === 'sending';
      if (list.state === 'open') list.state = 'taken';
      list.owner = owner;
      list.lease = now + leaseMs;
      list.expiresAt = Math.max(list.expiresAt, now + this.options.retentionSeconds * 1000);
      return Promise.resolve({
        name,
        maybeSent,
        listId: list.listId,
        ambiguous: list.ambiguous,
        takenOver,
        members: [...list.members.values()],
        orders: [...list.orders.values()],
      });
    }
    return Promise.resolve(undefined);
  }

  /** An open list is due at its due time; a held one when its owner's lease ends. */
  private dueAt(list: StoredList): number {
    return list.state === 'open' ? list.due : list.lease;
  }

  renew(name: string, owner: string, leaseMs: number): Promise<boolean> {
    const list = this.held(name, owner);
    if (list) list.lease = this.now() + leaseMs;
    return Promise.resolve(list !== undefined);
  }

  markSending(name: string, owner: string): Promise<boolean> {
    const list = this.held(name, owner);
    if (!list || list.state === 'created') return Promise.resolve(false);
    list.state = 'sending';
    return Promise.resolve(true);
  }

  created(name: string, owner: string, listId: string, ambiguous: boolean): Promise<boolean> {
    const list = this.held(name, owner);
    if (!list) return Promise.resolve(false);
    Object.assign(list, { state: 'created', listId, ambiguous });
    return Promise.resolve(true);
  }

  published(name: string, owner: string): Promise<boolean> {
    const list = this.held(name, owner);
    if (!list) return Promise.resolve(false);
    list.state = 'published';
    list.members.clear();
    list.expiresAt = this.now() + this.options.retentionSeconds * 1000;
    return Promise.resolve(true);
  }

  giveBack(name: string, owner: string, dueAt: number): Promise<void> {
    const list = this.held(name, owner);
    if (list) {
      if (list.state === 'taken') list.state = 'open';
      list.owner = undefined;
      list.due = dueAt;
      list.lease = dueAt;
    }
    return Promise.resolve();
  }

  nextDue(): Promise<number | undefined> {
    const times = [...this.lists.values()]
      .filter((l) => l.state !== 'published')
      .map((l) => this.dueAt(l));
    return Promise.resolve(times.length > 0 ? Math.min(...times) : undefined);
  }

  forget(address: string): Promise<number> {
    let lists = 0;
    for (const list of this.lists.values()) {
      if (list.state !== 'published' && list.members.delete(normalisedAddress(address))) lists++;
    }
    return Promise.resolve(lists);
  }

  openCounts(): Promise<{ lists: number; members: number }> {
    const open = [...this.lists.values()].filter((l) => l.state !== 'published');
    const members = open.reduce((sum, l) => sum + l.members.size, 0);
    return Promise.resolve({ lists: open.length, members });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  /** The list while `owner` holds it (taken, sending or created). */
  private held(name: string, owner: string): StoredList | undefined {
    const list = this.lists.get(name);
    if (!list || list.owner !== owner) return undefined;
    return list.state === 'open' || list.state === 'published' ? undefined : list;
  }

  private expire(): void {
    const now = this.now();
    for (const [name, list] of this.lists) if (list.expiresAt <= now) this.lists.delete(name);
    for (const [name, w] of this.windows) if (w.expiresAt <= now) this.windows.delete(name);
  }
}
