import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import type { ActionOutcome } from '../contracts/action-outcome';
import { WINDOW_STORE, type TakenList, type WindowStore } from './window.store';
import { CLOCK, systemClock, type Clock } from '../delivery/clock';
import { ContactListDelivery } from '../delivery/contact-list.delivery';
import { ambiguousFailure } from '../delivery/vendor-trouble';
import { ClaimLostError } from '../idempotency/claim-lost.error';
import { IDEMPOTENCY_STORE, type IdempotencyStore } from '../idempotency/idempotency.store';
import { InstanceLiveness } from '../idempotency/instance-liveness';
import { MetricsService } from '../metrics/metrics.service';
import { ResultPublisher } from '../outbound/result.publisher';
import { SuppressionList } from '../suppression/suppression-list';
import { suppressedFailure } from '../delivery/suppressed-failure';
import type { ContactMember } from '../email-api/vendor.types';

/** A list's members once checked against the suppression list. */
interface Screened {
  /** Those that may be mailed: what the list is created with. */
  members: ContactMember[];
  /** The keyed hashes (of members and of orders) on the suppression list. */
  suppressed: ReadonlySet<string>;
  /** How many members were left out. */
  left?: number;
}

/** The longest the closer sleeps: lists other replicas opened, and lapsed leases, are seen by then. */
const POLL_MS = 1_000;
/** After an error of the store or of publishing, before the list is tried again. */
const RETRY_MS = 2_000;
/**
 * How long a stop waits for the list in hand before giving it back: by then the vendor client has
 * stopped (its requests answered or aborted), so what is left is publishing and the store.
 */
const STOP_WAIT_MS = 5_000;

/**
 * Closes contact-list windows, on every replica: wakes when the next list is due (and at least
 * every second), takes one due list from the window store (exactly one replica gets it), creates
 * it at the vendor through the gate, stores its id at once, records every order's `created`
 * outcome, publishes every order's result, and marks the list published. A replica that stops
 * mid-way leaves a lease that lapses; the next taker goes on from where it stopped: from the
 * stored id without creating the list again, or, from `sending`, as `AMBIGUOUS_SEND_POLICY` says.
 */
@Injectable()
export class WindowCloser
  implements OnApplicationBootstrap, OnModuleDestroy, BeforeApplicationShutdown
{
  private readonly logger = new Logger(WindowCloser.name);
  private stopping = false;
  private wake?: () => void;
  private loop?: Promise<void>;
  /** The list this replica is creating now. */
  private current?: TakenList;
  private readonly leaseMs: number;

  constructor(
    private readonly config: AppConfig,
    @Inject(WINDOW_STORE) private readonly windows: WindowStore,
    @Inject(IDEMPOTENCY_STORE) private readonly claims: IdempotencyStore,
    private readonly delivery: ContactListDelivery,
    private readonly publisher: ResultPublisher,
    private readonly metrics: MetricsService,
    private readonly instance: InstanceLiveness,
    private readonly suppression: SuppressionList,
    @Optional() @Inject(CLOCK) private readonly clock: Clock = systemClock,
  ) {
    // As long as an instance counts as alive: a replica killed mid-way frees its list as soon
    // as it frees its claims.
    this.leaseMs = config.idempotency.instanceTtlMs;
  }

  onApplicationBootstrap(): void {
    this.loop = this.run();
  }

  /** The stop's first step: no list is taken from here on. */
  onModuleDestroy(): void {
    this.stopping = true;
    this.wake?.();
  }

  /**
   * After the vendor client stopped (every destroy hook runs first): the list in hand has a few
   * seconds to be published; then it is given back, due at once for another replica (a
   * `sending` mark kept, so that replica knows the request may have been written). Nothing of
   * it is written after that: the client is stopped, and every attempt first checks the list is
   * still this replica's.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    let cancel = (): void => undefined;
    const waited = new Promise<void>(
      (resolve) => (cancel = this.clock.after(STOP_WAIT_MS, resolve)),
    );
    await Promise.race([this.loop, waited]);
    cancel();
    const held = this.current;
    if (held) {
      await this.windows
        .giveBack(held.name, this.instance.id, this.clock.now())
        .catch(() => undefined);
      this.logger.log(`gave contact list ${held.name} back at shutdown`);
    }
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      let wait = POLL_MS;
      try {
        const taken = await this.windows.take(this.instance.id, this.leaseMs);
        if (taken) {
          await this.close(taken);
          continue;
        }
        const counts = await this.windows.openCounts();
        this.metrics.windowListsOpen.set(counts.lists);
        this.metrics.windowMembersOpen.set(counts.members);
        const next = await this.windows.nextDue();
        if (next !== undefined) wait = Math.min(POLL_MS, Math.max(0, next - this.clock.now()));
      } catch (error) {
        // Once stopping, Redis may have been given up: the stop says so, once.
        if (!this.stopping) this.logger.warn(`contact-list windows: ${(error as Error).message}`);
        wait = RETRY_MS;
      }
      await this.pause(wait);
    }
  }

  private pause(ms: number): Promise<void> {
    // A stop that began while this loop waited for Redis: no pause before it ends.
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const cancel = this.clock.after(ms, () => resolve());
      this.wake = () => {
        cancel();
        resolve();
      };
    });
  }

  /** Creates (or finishes) one taken list; gives it back if that fails for now. */
  async close(list: TakenList): Promise<void> {
    const owner = this.instance.id;
    const stopRenewing = this.clock.every(Math.floor(this.leaseMs / 3), () => {
      this.windows.renew(list.name, owner, this.leaseMs).then(
        (held) => held || this.logger.warn(`contact list ${list.name} was taken over`),
        (e: Error) => this.logger.warn(`contact list lease: ${e.message}`),
      );
    });
    this.current = list;
    try {
      if (list.takenOver) {
        this.metrics.windowTakeovers.inc();
        this.logger.warn({
          msg: `taking over contact list ${list.name} from a replica that stopped`,
          stage: list.listId ? 'created' : list.maybeSent ? 'sending' : 'taken',
        });
      }
      const screened = await this.screened(list);
      const outcome = await this.outcomeOf(list, screened, owner);
      await this.finish(list, outcome, owner, screened);
    } catch (error) {
      if (error instanceof ClaimLostError) {
        // Lost before a write (checked before every one: nothing was written) or before its id
        // was stored: either way the owner it has now finishes it.
        this.logger.warn(
          `contact list ${list.name} is no longer this replica's; left to its owner`,
        );
        return;
      }
      // The gate closed for good (shutdown), the store or Kafka failed: the list goes back, due
      // again shortly, with whatever it reached (sending, created) kept.
      const dueAt = this.clock.now() + (this.stopping ? 0 : RETRY_MS);
      await this.windows.giveBack(list.name, owner, dueAt).catch(() => undefined);
      if (!this.stopping)
        this.logger.warn(`contact list ${list.name}: ${(error as Error).message}`);
    } finally {
      stopRenewing();
      this.current = undefined;
    }
  }

  /**
   * The list's members that may be mailed, and the keyed hashes of those that may not: checked
   * against the suppression list in one round trip, just before the list is created (a check
   * when an order arrived would miss an address suppressed, or erased, while its window was
   * open). The orders' hashes are asked too: an erased member has left the list, its order not.
   * A list created already (by an owner that stopped) is not checked again.
   */
  private async screened(list: TakenList): Promise<Screened> {
    if (list.listId !== undefined) return { members: list.members, suppressed: new Set() };
    const category = list.orders.find((o) => o.category)?.category ?? 'marketing';
    const memberKeys = list.members.map((m) => this.suppression.keyOf(m.email));
    const orderKeys = list.orders.flatMap((o) => (o.addressKey ? [o.addressKey] : []));
    const suppressed = await this.suppression.suppressedKeys(
      [...memberKeys, ...orderKeys],
      category,
    );
    const members = list.members.filter((_, i) => !suppressed.has(memberKeys[i]));
    return { members, suppressed, left: list.members.length - members.length };
  }

  /**
   * Records the list's outcome for every order in it (a suppressed member's order: that it was
   * suppressed), publishes every order's result, and marks the list published.
   */
  private async finish(
    list: TakenList,
    outcome: ActionOutcome,
    owner: string,
    { suppressed }: Screened,
  ): Promise<void> {
    const outcomes = list.orders.map((o) =>
      o.addressKey && suppressed.has(o.addressKey) ? suppressedFailure(1, 'member') : outcome,
    );
    await this.claims.complete(list.orders.map((o, i) => ({ key: o.ref, outcome: outcomes[i] })));
    // Results of one list, published in one turn: they travel in one produce request.
    await Promise.all(
      list.orders.map((o, i) =>
        this.publisher.publishResult(
          { id: o.eventId, type: o.eventType },
          o.template,
          outcomes[i],
          {
            key: o.key === null ? null : Buffer.from(o.key, 'base64'),
            headers: o.headers,
          },
        ),
      ),
    );
    if (!(await this.windows.published(list.name, owner))) {
      this.logger.warn(`contact list ${list.name}: taken over before it was marked published`);
    }
    this.metrics.windowListsClosed.inc({
      result: outcome.status === 'created' ? 'created' : 'failed',
    });
    for (const each of outcomes) this.metrics.outcomes.inc({ outcome: each.status });
    const line = {
      msg: `contact list ${list.name} ${outcome.status}: ${list.members.length} members, ${list.orders.length} results published`,
      list: list.name,
      ...(outcome.status === 'created' ? { listId: outcome.listId } : {}),
    };
    if (outcome.status === 'failed') this.logger.warn({ ...line, reason: outcome.message });
    else this.logger.log(line);
  }

  /**
   * The list's outcome for every order in it: created (now, or by an earlier owner) or failed;
   * failed as suppressed, with nothing written, when every member is.
   */
  private async outcomeOf(
    list: TakenList,
    { members, left }: Screened,
    owner: string,
  ): Promise<ActionOutcome> {
    if (list.listId !== undefined) {
      // Created by an owner that stopped before publishing: never created again.
      return {
        status: 'created',
        listId: list.listId,
        name: list.name,
        memberCount: list.members.length,
        ...(list.ambiguous ? { ambiguous: true as const } : {}),
      };
    }
    // No member left (suppressed, or erased from the window): no list, nothing written.
    if (members.length === 0) return suppressedFailure(left || list.orders.length, 'member');
    let ambiguous = list.ambiguous;
    if (list.maybeSent) {
      const policy = this.config.idempotency.ambiguousSendPolicy;
      this.metrics.ambiguousSend('takeover', policy);
      this.logger.warn(
        `contact list ${list.name}: an earlier attempt stopped after its request was written; ${policy === 'resend' ? 'creating it again' : 'failing it as ambiguous'}`,
      );
      if (policy === 'fail')
        return ambiguousFailure('an earlier attempt stopped after writing its request');
      ambiguous = true;
    }
    const created = await this.delivery.create(list.name, members, {
      ambiguous,
      send: {
        markSending: () => this.windows.markSending(list.name, owner),
        traces: [],
        // The request links to the trace of every order in the list.
        traceHeaders: list.orders.map((o) => o.headers),
      },
    });
    if (created.status !== 'created') return created;
    const outcome = left ? { ...created, suppressedCount: left } : created;
    // Stored the moment the vendor answers: from here on nobody creates it again.
    const stored = await this.windows.created(
      list.name,
      owner,
      outcome.listId,
      outcome.ambiguous === true,
    );
    if (!stored) throw new ClaimLostError(list.name);
    return outcome;
  }
}
