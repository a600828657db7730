/**
 * Which mail a template sends, declared by every template (`Planner.category`). `transactional`
 * mail is what a person needs because of something they did (an order's confirmation): only a
 * suppression of scope `all` stops it. `marketing` mail is anything else: a suppression of either
 * scope stops it.
 */
export const TEMPLATE_CATEGORIES = ['transactional', 'marketing'] as const;
export type TemplateCategory = (typeof TEMPLATE_CATEGORIES)[number];
