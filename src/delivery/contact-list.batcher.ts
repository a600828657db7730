import type { Context } from '@opentelemetry/api';
import { normalisedAddress } from '../email-api/vendor-request.validator';
import type { ContactListHooks } from '../email-api/vendor.client';
import { VendorError } from '../email-api/vendor.errors';
import type {
  ContactListCreated,
  ContactListRequest,
  ContactMember,
} from '../email-api/vendor.types';
import { ClaimLostError } from '../idempotency/claim-lost.error';
import type { ActionOutcome } from '../contracts/action-outcome';
import type { HeldClaim, IdempotencyStore } from '../idempotency/idempotency.store';
import { MemoryIdempotencyStore } from '../idempotency/memory-idempotency.store';
import { endSpan, type Tracing } from '../tracing/tracing';

export interface ContactListCreator {
  createContactList(
    request: ContactListRequest,
    hooks?: ContactListHooks,
  ): Promise<ContactListCreated>;
}

export interface ContactListDelivery {
  listId: string;
  name: string;
  memberCount: number;
  /** Failed attempts that may have created the list (or a twin of it) all the same. */
  ambiguousAttempts: number;
}

export interface ContactListBatcherOptions {
  maxMembers: number;
  /** Grace after a window's end (by the clock) before its list is created. */
  lingerMs: number;
  /** List name for a window, e.g. `new-customers-{window}`. */
  namePattern: string;
  /**
   * How far a window may start ahead of our clock (producers' clocks run ahead, a little). A
   * window further ahead is taken to be the current one, so no record waits on it for long.
   */
  clockSkewMs: number;
}

/** Claims marked before a list is created, outcomes recorded when it is; list numbers shared. */
export type ListLedger = Pick<IdempotencyStore, 'markSending' | 'complete' | 'nextSequence'>;

/** The claimed action some members belong to, and the outcome to record once the list exists. */
export interface ListedAction {
  claim: HeldClaim;
  /** The event's trace, which the request creating the list links to. */
  trace?: Context;
  outcomeOf(delivery: ContactListDelivery): ActionOutcome;
}

interface Waiter {
  members: ContactMember[];
  action?: ListedAction;
  resolve: (d: ContactListDelivery) => void;
  reject: (e: unknown) => void;
}

interface OpenList {
  window: { start: Date; end: Date };
  waiters: Waiter[];
  memberCount: number;
  timer?: NodeJS.Timeout;
}

/**
 * Creates contact lists. Window lists gather the members of every event of one time window
 * (repeat addresses kept once, the latest details winning) and are created when the window has
 * closed and `lingerMs` passed, or when `maxMembers` is reached. The vendor can only create a
 * list, never add to one, so a window that fills up (or hears of a late event after its list
 * was created) continues in a further list named `<name>-2`, `-3`, …. The numbers come from the
 * ledger, shared by every replica and kept across restarts, so no name is ever created twice; a
 * number whose creation surely failed is used again by the next attempt here.
 */
export class ContactListBatcher {
  private readonly open = new Map<string, OpenList>();
  /** Names whose creation surely failed (nothing was created), for the next attempt. */
  private readonly spare = new Map<string, string>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly creator: ContactListCreator,
    private readonly options: ContactListBatcherOptions,
    private readonly ledger: ListLedger = new MemoryIdempotencyStore(86_400),
    private readonly now: () => number = Date.now,
    private readonly tracing?: Pick<Tracing, 'vendorRequest'>,
  ) {}

  /**
   * Creates exactly this list, on its own. Its claim is marked `sending` only once the request
   * holds its budget token, just before it is written: an action still waiting for a token is
   * not "maybe sent" when its replica stops or dies.
   */
  async createExact(
    name: string,
    members: ContactMember[],
    action?: ListedAction,
  ): Promise<ContactListDelivery> {
    const beforeWrite = action && (() => this.markExact(action));
    const created = await this.createTraced({ name, members }, [action], { beforeWrite });
    const delivery = {
      listId: created.id,
      name,
      memberCount: members.length,
      ambiguousAttempts: created.ambiguousAttempts,
    };
    // Each action records its own outcome again when it resumes: a failed record costs nothing.
    if (action) await this.record([action], delivery).catch(() => undefined);
    return delivery;
  }

  addToWindow(
    listKey: string,
    window: { start: Date; end: Date },
    members: ContactMember[],
    action?: ListedAction,
  ): Promise<ContactListDelivery> {
    window = this.withinReach(window);
    return new Promise((resolve, reject) => {
      const key = `${listKey}@${window.start.toISOString()}`;
      let list = this.open.get(key);
      if (!list) {
        list = { window, waiters: [], memberCount: 0 };
        this.open.set(key, list);
        const due = Math.max(window.end.getTime() - this.now(), 0) + this.options.lingerMs;
        list.timer = setTimeout(() => this.flush(key), due);
      }
      list.waiters.push({ members, action, resolve, reject });
      list.memberCount += members.length;
      if (list.memberCount >= this.options.maxMembers) this.flush(key);
    });
  }

  /**
   * The window itself, unless it starts more than `clockSkewMs` ahead of our clock: then the
   * window of the same length that holds the present. A record then waits at most about
   * `clockSkewMs` + the window + `lingerMs` for its list, whatever time its event claims.
   */
  private withinReach(window: { start: Date; end: Date }): { start: Date; end: Date } {
    const now = this.now();
    if (window.start.getTime() - now <= this.options.clockSkewMs) return window;
    const length = Math.max(1, window.end.getTime() - window.start.getTime());
    const start = Math.floor(now / length) * length;
    return { start: new Date(start), end: new Date(start + length) };
  }

  async drain(): Promise<void> {
    for (const key of [...this.open.keys()]) this.flush(key);
    await Promise.allSettled([...this.inFlight]);
  }

  private flush(key: string): void {
    const list = this.open.get(key);
    if (!list) return;
    this.open.delete(key);
    clearTimeout(list.timer);
    const creating = this.create(key, list).catch((error: unknown) =>
      list.waiters.forEach((w) => w.reject(error)),
    );
    const tracked = creating.finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  private async create(key: string, list: OpenList): Promise<void> {
    const waiters = await this.stillHeld(list.waiters);
    if (waiters.length === 0) return;
    const members = new Map<string, ContactMember>();
    for (const m of waiters.flatMap((w) => w.members)) members.set(normalisedAddress(m.email), m);
    const name = this.spare.get(key) ?? (await this.nextName(list.window));
    this.spare.delete(key);
    let created: ContactListCreated;
    try {
      created = await this.createTraced(
        { name, members: [...members.values()] },
        waiters.map((w) => w.action),
      );
    } catch (error) {
      const maybeCreated = error instanceof VendorError && error.ambiguous;
      if (!maybeCreated && !this.spare.has(key)) this.spare.set(key, name);
      waiters.forEach((w) => w.reject(error));
      return;
    }
    const delivery = {
      listId: created.id,
      name,
      memberCount: members.size,
      ambiguousAttempts: created.ambiguousAttempts,
    };
    await this.record(
      waiters.flatMap((w) => (w.action ? [w.action] : [])),
      delivery,
    ).catch(() => undefined);
    waiters.forEach((w) => w.resolve(delivery));
  }

  private async markExact(action: ListedAction): Promise<void> {
    if (!(await this.ledger.markSending([action.claim])).has(action.claim.key)) {
      throw new ClaimLostError(action.claim.key);
    }
  }

  /** The vendor request creating a list, as a span linked to every event whose member it holds. */
  private async createTraced(
    request: ContactListRequest,
    actions: Array<ListedAction | undefined>,
    hooks: ContactListHooks = {},
  ): Promise<ContactListCreated> {
    const span = this.tracing?.vendorRequest(
      'create contact list',
      actions.map((a) => a?.trace),
      { 'mailbridge.events': actions.length, 'mailbridge.members': request.members?.length ?? 0 },
    );
    try {
      const created = await this.creator.createContactList(request, hooks);
      if (span) endSpan(span);
      return created;
    } catch (error) {
      if (span) endSpan(span, error);
      throw error;
    }
  }

  /** Marks the waiters' claims `sending`; a waiter whose claim was lost is turned away. */
  private async stillHeld(waiters: Waiter[]): Promise<Waiter[]> {
    const claims = waiters.flatMap((w) => (w.action ? [w.action.claim] : []));
    if (claims.length === 0) return waiters;
    const held = await this.ledger.markSending(claims);
    return waiters.filter((w) => {
      const key = w.action?.claim.key;
      if (key === undefined || held.has(key)) return true;
      w.reject(new ClaimLostError(key));
      return false;
    });
  }

  /** Records, in one atomic step, the outcome of every action the created list completes. */
  private async record(actions: ListedAction[], delivery: ContactListDelivery): Promise<void> {
    await this.ledger.complete(
      actions.map((a) => ({ key: a.claim.key, outcome: a.outcomeOf(delivery) })),
    );
  }

  /**
   * Numbered by name, not by window: whatever the pattern makes of two windows, they can never
   * be given the same name.
   */
  private async nextName(window: { start: Date; end: Date }): Promise<string> {
    const name = this.options.namePattern.replace('{window}', windowLabel(window));
    const count = await this.ledger.nextSequence(`list:${name}`);
    return count === 1 ? name : `${name}-${count}`;
  }
}

/** `20261121T1000Z` for windows of whole minutes, `20261121T100010Z` for shorter ones. */
function windowLabel({ start, end }: { start: Date; end: Date }): string {
  const wholeMinutes =
    start.getTime() % 60_000 === 0 && (end.getTime() - start.getTime()) % 60_000 === 0;
  const iso = start.toISOString();
  return iso.slice(0, wholeMinutes ? 16 : 19).replace(/[-:]/g, '') + 'Z';
}
