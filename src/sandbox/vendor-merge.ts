/**
 * How the vendor is assumed to merge a recipient's attributes into a campaign: the one
 * implementation, used by the sandbox's inbox and by `npm run preview`, so that an author sees
 * what the inbox shows.
 */
import type { CampaignRequest } from '../email-api/vendor.types';

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

/** A campaign as one recipient receives it. */
export interface MergedMessage {
  subject: string;
  preview: string;
  body: string;
}

/**
 * One recipient's email, merged as the vendor is assumed to merge (`VENDOR_MERGE_ESCAPES_HTML`):
 * values go into the HTML body HTML-escaped when `escapesHtml`, as they are otherwise; into the
 * subject and preview, which are plain text, always as they are.
 */
export function mergeMessage(
  c: Partial<Pick<CampaignRequest, 'subject' | 'preview' | 'body'>>,
  attributes: Record<string, string>,
  escapesHtml: boolean,
): MergedMessage {
  return {
    subject: merge(c.subject ?? '', attributes),
    preview: merge(c.preview ?? '', attributes),
    body: merge(c.body ?? '', attributes, escapesHtml ? esc : undefined),
  };
}

/** Fills `{{KEY}}` from the attributes; unknown keys stay visible as they are. */
export function merge(
  template: string,
  attributes: Record<string, string>,
  encode: (value: string) => string = (v) => v,
): string {
  return template.replace(PLACEHOLDER, (whole, key: string) =>
    Object.hasOwn(attributes, key) ? encode(attributes[key]) : whole,
  );
}

/** The text as HTML shows it: `&`, `<`, `>`, `"` and `'` as character references. */
export function esc(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
