import type { AppConfig } from '../config/app-config';
import type { CampaignContent } from './planner';
import { escapeHtml, loadTemplateFiles, senderOf } from './template.renderer';

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;
/** Ends the name of an attribute's plain-text twin (see `CampaignTemplate`). */
const TEXT = '_TEXT';

/**
 * A template's campaign: its content, rendered once at startup from the folder's `.eta` files,
 * and each recipient's attributes for it. A planner hands over plain-text values, never HTML
 * (the `.eta` files lay them out), and this class makes them what the vendor's merge needs
 * (`VENDOR_MERGE_ESCAPES_HTML`):
 *
 * - a vendor that escapes gets the values as they are: it escapes them into the HTML body and
 *   merges them into the plain-text subject and preview unchanged;
 * - a vendor that does not escape merges a value the same way wherever its `{{KEY}}` stands, and
 *   one value cannot be right in HTML and in plain text at once: `O'Brien` must be `O&#39;Brien`
 *   in the body and `O'Brien` in the subject. So the body's values are escaped here, and in the
 *   subject and preview each `{{KEY}}` becomes `{{KEY_TEXT}}`, a twin carrying the value as it is.
 */
export class CampaignTemplate {
  readonly content: CampaignContent;
  private readonly vendorEscapes: boolean;
  /** Keys the subject or preview use: each gets a twin when the vendor does not escape. */
  private readonly textKeys: ReadonlySet<string>;

  constructor(
    dir: string,
    name: string,
    campaignId: string,
    config: Pick<AppConfig, 'sender' | 'vendor'>,
  ) {
    const files = loadTemplateFiles(dir, name);
    const data = { brand: config.sender.from.name };
    const subject = files.subject(data);
    const preview = files.preview(data);
    this.vendorEscapes = config.vendor.mergeEscapesHtml;
    this.textKeys = new Set([...keysIn(subject), ...keysIn(preview)]);
    const plain = (part: string) => (this.vendorEscapes ? part : toTwins(part));
    this.content = {
      subject: plain(subject),
      preview: plain(preview),
      body: files.body(data),
      campaignId,
      sender: senderOf(config.sender),
      disableTrackingLinks: config.sender.disableTrackingLinks,
    };
  }

  /** One recipient's attributes, from plain-text values keyed as the `.eta` files' `{{KEY}}`. */
  attributes(values: Record<string, string>): Record<string, string> {
    if (this.vendorEscapes) return values;
    const attributes: Record<string, string> = {};
    for (const [key, value] of Object.entries(values)) {
      attributes[key] = escapeHtml(value);
      if (!this.textKeys.has(key)) continue;
      if (Object.hasOwn(values, key + TEXT)) {
        throw new Error(`attribute ${key}${TEXT} is taken by the plain-text twin of ${key}`);
      }
      attributes[key + TEXT] = value;
    }
    return attributes;
  }
}

function keysIn(part: string): string[] {
  return [...part.matchAll(PLACEHOLDER)].map((m) => m[1]);
}

function toTwins(part: string): string {
  return part.replace(PLACEHOLDER, (_, key: string) => `{{${key}${TEXT}}}`);
}
