import type { TemplateCategory } from '../contracts/template-category';

export type { TemplateCategory };

/** Which mail a suppression stops: `marketing` only, or `all` mail (transactional too). */
export type SuppressionScope = 'marketing' | 'all';

/**
 * What the unsubscribe listener needs of the suppression list: one idempotent add. The list
 * itself is `src/suppression/` (`SuppressionList`), which this port lets the listener use without
 * knowing how it keeps addresses.
 */
export interface SuppressionWriter {
  add(address: string, scope: SuppressionScope, reason: 'unsubscribed'): Promise<void>;
}

export const SUPPRESSION_WRITER = Symbol('SUPPRESSION_WRITER');

/** An unsubscribe from a marketing email stops marketing mail; from any other, all mail. */
export function scopeFor(category: TemplateCategory): SuppressionScope {
  return category === 'marketing' ? 'marketing' : 'all';
}
