import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Eta } from 'eta';
import type { SenderConfig } from '../config/app-config';
import type { CampaignContent } from './planner';

const eta = new Eta({ autoEscape: true, useWith: false, autoTrim: false });

/** A compiled template part; calling it renders with HTML escaping of every `<%= %>`. */
export type RenderFn = (data: object) => string;

/**
 * Loads and compiles template files once, at startup (the only file I/O of a template), so
 * that rendering afterwards is pure. `<%= it.x %>` is escaped; `{{KEY}}` is left for the
 * vendor to merge with each recipient's attributes.
 */
export function loadTemplateFiles<Part extends string>(
  dir: string,
  name: string,
  parts: readonly Part[],
): Record<Part, RenderFn> {
  const compiled = {} as Record<Part, RenderFn>;
  for (const part of parts) {
    const source = readFileSync(join(dir, `${name}.${part}.eta`), 'utf8');
    const fn = eta.compile(source);
    compiled[part] = (data) => eta.render(fn, data).trim();
  }
  return compiled;
}

/** The configured sender block, with `replyTo` only when one is configured. */
export function senderOf(sender: SenderConfig): NonNullable<CampaignContent['sender']> {
  return { from: sender.from, ...(sender.replyTo ? { replyTo: sender.replyTo } : {}) };
}

/**
 * A template's shared campaign content: `<name>.subject.eta`, `.preview.eta` and `.body.eta`
 * from `dir`, rendered once with the brand (the sender's name), plus the configured sender.
 */
export function renderCampaignContent(
  dir: string,
  name: string,
  campaignId: string,
  sender: SenderConfig,
): CampaignContent {
  const files = loadTemplateFiles(dir, name, ['subject', 'preview', 'body'] as const);
  const data = { brand: sender.from.name };
  return {
    subject: files.subject(data),
    preview: files.preview(data),
    body: files.body(data),
    campaignId,
    sender: senderOf(sender),
    disableTrackingLinks: sender.disableTrackingLinks,
  };
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * Attribute values are merged by the vendor into the HTML body as they are, so a template
 * escapes them itself before they leave.
 */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}
