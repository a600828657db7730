import type { SuppressionScope } from '../contracts/email-suppression-requested.v1';
import type { TemplateCategory } from '../contracts/template-category';

export type { SuppressionScope, TemplateCategory };

/**
 * What the unsubscribe listener needs of the suppression list: one idempotent add. The list
 * itself is `src/suppression/` (`SuppressionList`, bound to this in `unsubscribe.module.ts`); the
 * listener's specs give it a recording one.
 */
export interface SuppressionWriter {
  add(address: string, scope: SuppressionScope, reason: 'unsubscribed'): Promise<void>;
}

export const SUPPRESSION_WRITER = Symbol('SUPPRESSION_WRITER');

/** An unsubscribe from a marketing email stops marketing mail; from any other, all mail. */
export function scopeFor(category: TemplateCategory): SuppressionScope {
  return category === 'marketing' ? 'marketing' : 'all';
}
