import { Inject, Injectable } from '@nestjs/common';
import type {
  SuppressionReason,
  SuppressionScope,
} from '../contracts/email-suppression-requested.v1';
import { AddressKeyer } from './address-key';
import {
  stops,
  SUPPRESSION_STORE,
  type SuppressionStore,
  type TemplateCategory,
} from './suppression.store';

/**
 * The suppression list by address: what the rest of the service (and a future unsubscribe
 * listener) calls. Addresses are turned into their keyed hash here and go no further.
 */
@Injectable()
export class SuppressionList {
  constructor(
    @Inject(SUPPRESSION_STORE) private readonly store: SuppressionStore,
    private readonly keyer: AddressKeyer,
  ) {}

  /** Idempotent. `erased` always suppresses every category, whatever `scope` says. */
  add(address: string, scope: SuppressionScope, reason: SuppressionReason): Promise<void> {
    return this.store.add(this.keyer.of(address), scope, reason);
  }

  /** Idempotent; an `erased` entry stays. */
  remove(address: string, scope: SuppressionScope): Promise<void> {
    return this.store.remove(this.keyer.of(address), scope);
  }

  /**
   * For each of `addresses`, in order, whether mail of `category` must not reach it: one store
   * round trip for all of them.
   */
  check(addresses: readonly string[], category: TemplateCategory): Promise<boolean[]> {
    return this.checkEach(addresses.map((address) => ({ address, category })));
  }

  /**
   * The same, for recipients of templates of different categories (one vendor request may carry
   * several): still one store round trip.
   */
  async checkEach(
    recipients: ReadonlyArray<{ address: string; category: TemplateCategory }>,
  ): Promise<boolean[]> {
    if (recipients.length === 0) return [];
    const hashes = recipients.map(({ address }) => this.keyer.of(address));
    const found = await this.store.scopesOf([...new Set(hashes)]);
    return recipients.map(({ category }, i) => stops(found.get(hashes[i]) ?? [], category));
  }

  /** Those of `hashes` (keyed hashes, `keyOf`) that mail of `category` must not reach. */
  async suppressedKeys(
    hashes: readonly string[],
    category: TemplateCategory,
  ): Promise<Set<string>> {
    const found = await this.store.scopesOf([...new Set(hashes)]);
    return new Set([...found].filter(([, scopes]) => stops(scopes, category)).map(([h]) => h));
  }

  /** The keyed hash of `address`: what a window keeps to find an order's member again. */
  keyOf(address: string): string {
    return this.keyer.of(address);
  }
}
