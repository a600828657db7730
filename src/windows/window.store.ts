import type { TemplateCategory } from '../contracts/template-category';
import type { ContactMember } from '../email-api/vendor.types';

/** A time window of one family of lists, named by the list it opens (`new-customers-<window>`). */
export interface ListWindow {
  /** The name of the window's first list; continuations and follow-ups are named after it. */
  name: string;
  /** When the window ends (ms since the epoch); its list is due a linger later. */
  end: number;
}

/**
 * What is needed to publish an order's result once its list exists, long after its record was
 * committed: the claim it completes, the event it answers, and the record's key and tracing
 * headers that the result carries over.
 */
export interface WindowOrder {
  /** The claim key, `<eventId>:<template>`: one order is one reference, however often it comes. */
  ref: string;
  eventId: string;
  eventType: string;
  template: string;
  /** The record's key, base64; null for a record without one. */
  key: string | null;
  headers: Record<string, string>;
  /**
   * The member address's keyed hash (`SuppressionList.keyOf`), never the address: what finds
   * the order again when its member turns out suppressed, or was erased, by the time its list is
   * created. Absent in orders stored by an earlier release.
   */
  addressKey?: string;
  /** Its template's category; absent in orders of an earlier release (read as `marketing`). */
  category?: TemplateCategory;
}

/** One order's member for a window. */
export interface WindowEntry {
  /** The order's window (clock skew already applied). */
  window: ListWindow;
  /** The window that holds the present: where a late order goes under `next-window`. */
  present: ListWindow;
  order: WindowOrder;
  /** The member's normalised address: a repeat address is one member, its latest details win. */
  address: string;
  member: ContactMember;
}

/**
 * Where an order's member went: `added` to its window's open list (or a continuation of it),
 * `late` into a follow-up list of its window, `next-window` into the present window's list, or
 * `duplicate`: the order was stored before (in `list`), nothing changed.
 */
export interface Placement {
  status: 'added' | 'late' | 'next-window' | 'duplicate';
  list: string;
}

/** What becomes of an order arriving after its window's list was taken to be created. */
export const LATE_POLICIES = ['follow-up', 'next-window'] as const;
export type LatePolicy = (typeof LATE_POLICIES)[number];

/** A list taken to be created (or finished) by one owner. */
export interface TakenList {
  name: string;
  /** An earlier owner marked it `sending` and vanished: the vendor may have created it. */
  maybeSent: boolean;
  /** Set when an earlier owner created it and vanished before publishing the results. */
  listId?: string;
  /** An earlier attempt's answer was lost: the outcomes say `ambiguous`. */
  ambiguous: boolean;
  /** Whether an earlier owner held it (it is taken over, not taken fresh). */
  takenOver: boolean;
  members: ContactMember[];
  orders: WindowOrder[];
}

export interface WindowStoreOptions {
  lingerMs: number;
  maxMembers: number;
  latePolicy: LatePolicy;
  /** How long a list's keys outlive its close (and its results), in seconds. */
  retentionSeconds: number;
}

/**
 * Contact-list windows every replica shares. Members accumulate as orders arrive (their records
 * are committed at once); when a list is due (its window's end + the linger, or full) exactly
 * one replica takes it, creates it at the vendor and publishes every order's result. A list moves
 * open → taken → sending → created → published; an owner holds it under a lease it renews, and a
 * list whose owner stopped (lease lapsed, or its instance gone) is taken over from where it was.
 *
 * Names: a window's list is `<window>`; one that fills up (`maxMembers`) is due at once and the
 * window goes on in `<window>-2`, `-3`, …; an order arriving once the list is taken goes, by
 * `latePolicy`, into a follow-up `<window>-late-1`, `-2`, … (due a linger after it opened) or
 * into the present window. Every decision is made in one atomic step, so replicas cannot race.
 */
export interface WindowStore {
  add(entry: WindowEntry): Promise<Placement>;
  /** One due list (open and due, or its owner's lease lapsed), now this owner's; or none. */
  take(owner: string, leaseMs: number): Promise<TakenList | undefined>;
  /** Extends the owner's lease; false when the list is no longer the owner's. */
  renew(name: string, owner: string, leaseMs: number): Promise<boolean>;
  /** The request creating the list is about to be written; false when the list was lost. */
  markSending(name: string, owner: string): Promise<boolean>;
  /** The vendor created the list: stored at once, so no later owner creates it again. */
  created(name: string, owner: string, listId: string, ambiguous: boolean): Promise<boolean>;
  /**
   * Every order's result is on Kafka: the list is done, its members deleted at once (nothing
   * needs their addresses any more) and its other keys expire after the retention.
   */
  published(name: string, owner: string): Promise<boolean>;
  /** Gives a list back (at shutdown): due again at `dueAt`, a `sending` mark kept. */
  giveBack(name: string, owner: string, dueAt: number): Promise<void>;
  /** When the next list is due (or its lease ends), if any is. */
  nextDue(): Promise<number | undefined>;
  /**
   * Erasure: removes the member of this address (normalised, as members are stored) from every
   * list not yet published (a published list keeps no members); resolves with how many held it.
   */
  forget(address: string): Promise<number>;
  /** Lists not yet published and their members, for the metrics. */
  openCounts(): Promise<{ lists: number; members: number }>;
  close(): Promise<void>;
}

export const WINDOW_STORE = Symbol('WINDOW_STORE');
