import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Eta } from 'eta';
import type { SenderConfig } from '../config/app-config';
import type { CampaignContent } from './planner';

/** The body is HTML: every `<%= %>` is HTML-escaped. */
const html = new Eta({ autoEscape: true, useWith: false, autoTrim: false });
/** Subject and preview are plain text, where an escaped `&` would show as `&amp;`. */
const text = new Eta({ autoEscape: false, useWith: false, autoTrim: false });
const PARTS = { subject: text, preview: text, body: html } as const;

/** A compiled template part. */
export type RenderFn = (data: object) => string;

/**
 * Loads and compiles `<name>.subject.eta`, `.preview.eta` and `.body.eta` from `dir` once, at
 * startup (the only file I/O of a template), so that rendering afterwards is pure. `<%= it.x %>`
 * is HTML-escaped in the body only; `{{KEY}}` is left for the vendor to merge with each
 * recipient's attributes.
 */
export function loadTemplateFiles(dir: string, name: string): Record<keyof typeof PARTS, RenderFn> {
  const load = (part: keyof typeof PARTS): RenderFn => {
    const eta = PARTS[part];
    const fn = eta.compile(readFileSync(join(dir, `${name}.${part}.eta`), 'utf8'));
    return (data) => eta.render(fn, data).trim();
  };
  return { subject: load('subject'), preview: load('preview'), body: load('body') };
}

/** The configured sender block, with `replyTo` only when one is configured. */
export function senderOf(sender: SenderConfig): NonNullable<CampaignContent['sender']> {
  return { from: sender.from, ...(sender.replyTo ? { replyTo: sender.replyTo } : {}) };
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** The text as HTML shows it: `&`, `<`, `>`, `"` and `'` as character references. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}
