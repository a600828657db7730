import type {
  SuppressionReason,
  SuppressionScope,
} from '../contracts/email-suppression-requested.v1';
import type { TemplateCategory } from '../contracts/template-category';

export type { TemplateCategory };

/**
 * The suppression list, by keyed hash (`AddressKeyer`): it never sees an address. One entry per
 * hash and scope, holding its reason; the same add twice is one entry, a remove of an absent one
 * changes nothing. An `erased` entry is for good: a `remove` leaves it, and erasing drops the
 * hash's `marketing` entry, so that the `all` entry is all that is left of the address.
 */
export interface SuppressionStore {
  add(hash: string, scope: SuppressionScope, reason: SuppressionReason): Promise<void>;
  remove(hash: string, scope: SuppressionScope): Promise<void>;
  /**
   * The scopes each of `hashes` is suppressed for (a hash on neither is left out): one store
   * round trip, however many hashes.
   */
  scopesOf(hashes: readonly string[]): Promise<Map<string, SuppressionScope[]>>;
}

export const SUPPRESSION_STORE = Symbol('SUPPRESSION_STORE');

/** Whether an address suppressed for `scopes` must not get mail of `category`. */
export function stops(scopes: readonly SuppressionScope[], category: TemplateCategory): boolean {
  return scopes.includes('all') || (category === 'marketing' && scopes.includes('marketing'));
}
