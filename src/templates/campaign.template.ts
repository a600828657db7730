import type { AppConfig } from '../config/app-config';
import { resolveLocale, type LocaleFallback } from './locale.fallback';
import type { CampaignAction, CampaignContent } from './planner';
import {
  escapeHtml,
  loadTemplateCopies,
  PARTS,
  senderOf,
  type Part,
  type TemplateCopy,
} from './template.renderer';

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;
/** Ends the name of an attribute's plain-text twin (see `CampaignTemplate`). */
const TEXT = '_TEXT';

/** What a planner names to get its template's copies. */
export interface CampaignTemplateSource<K extends string> {
  /** The template's folder (the planner's `__dirname`). */
  dir: string;
  /** The files' common prefix: `<name>.<part>[.<locale>].eta`. Also the batch key's first part. */
  name: string;
  campaignId: string;
  /**
   * Every attribute the planner hands over, and so the only keys a `{{KEY}}` of any copy may
   * name. `attributes()` takes exactly these keys, which the compiler holds the planner to.
   */
  attributeKeys: readonly K[];
}

/** One locale's copy, as a campaign action carries it. */
export type LocalisedCopy = Pick<CampaignAction, 'batchKey' | 'content'> & {
  locale: string;
  localeFallback?: LocaleFallback;
};

/**
 * A template's campaign: its content in each locale, rendered once at startup from the folder's
 * `.eta` files, and each recipient's attributes for it.
 *
 * Copies: the default copy and every locale's variant (`loadTemplateCopies`). At startup every
 * copy must render, use only the declared attribute keys, and use in each part the same
 * placeholders as the default copy's part, or start-up stops naming the file. An event gets the
 * copy of its locale, falling back to shorter tags and then to the default (`copyFor`); the
 * locale is part of the batch key, since a vendor request carries one copy.
 *
 * Attributes: a planner hands over plain-text values, never HTML (the `.eta` files lay them out),
 * and this class makes them what the vendor's merge needs (`VENDOR_MERGE_ESCAPES_HTML`):
 *
 * - a vendor that escapes gets the values as they are: it escapes them into the HTML body and
 *   merges them into the plain-text subject and preview unchanged;
 * - a vendor that does not escape merges a value the same way wherever its `{{KEY}}` stands, and
 *   one value cannot be right in HTML and in plain text at once: `O'Brien` must be `O&#39;Brien`
 *   in the body and `O'Brien` in the subject. So the body's values are escaped here, and in the
 *   subject and preview each `{{KEY}}` becomes `{{KEY_TEXT}}`, a twin carrying the value as it is.
 */
export class CampaignTemplate<K extends string = string> {
  /** The canonical tags of every copy, the default's first. */
  readonly locales: readonly string[];
  private readonly name: string;
  private readonly contents = new Map<string, CampaignContent>();
  private readonly available: ReadonlySet<string>;
  private readonly vendorEscapes: boolean;
  /** Keys the subject or preview use: each gets a twin when the vendor does not escape. */
  private readonly textKeys: ReadonlySet<string>;

  constructor(source: CampaignTemplateSource<K>, config: Pick<AppConfig, 'sender' | 'vendor'>) {
    const copies = loadTemplateCopies(source.dir, source.name);
    const data = { brand: config.sender.from.name };
    const rendered = copies.map((copy) => ({ copy, parts: renderAll(copy, data) }));
    const declared = new Set<string>(source.attributeKeys);
    const [base] = rendered;
    for (const { copy, parts } of rendered) checkPlaceholders(copy, parts, declared, base.parts);

    this.name = source.name;
    this.vendorEscapes = config.vendor.mergeEscapesHtml;
    this.textKeys = new Set([...keysIn(base.parts.subject), ...keysIn(base.parts.preview)]);
    const plain = (part: string) => (this.vendorEscapes ? part : toTwins(part));
    for (const { copy, parts } of rendered) {
      this.contents.set(copy.locale, {
        subject: plain(parts.subject),
        preview: plain(parts.preview),
        body: parts.body,
        campaignId: source.campaignId,
        sender: senderOf(config.sender),
        disableTrackingLinks: config.sender.disableTrackingLinks,
      });
    }
    this.locales = copies.map((copy) => copy.locale);
    this.available = new Set(this.locales);
  }

  /**
   * The copy for a reader of `requested` (an event's locale, as sent, or none): the most
   * specific variant its tag or a shorter form of it has (`de-AT` → `de`), else the default,
   * with why when the event asked for a locale that has none. Requests of one copy share a batch.
   */
  copyFor(requested: string | undefined): LocalisedCopy {
    const { locale, fallback } = resolveLocale(requested, this.available);
    return {
      batchKey: `${this.name}:${locale}`,
      content: this.contents.get(locale)!,
      locale,
      ...(fallback ? { localeFallback: fallback } : {}),
    };
  }

  /** One recipient's attributes, from plain-text values keyed as the `.eta` files' `{{KEY}}`. */
  attributes(values: Record<K, string>): Record<string, string> {
    if (this.vendorEscapes) return values;
    const attributes: Record<string, string> = {};
    for (const [key, value] of Object.entries<string>(values)) {
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

function renderAll(copy: TemplateCopy, data: object): Record<Part, string> {
  const parts = {} as Record<Part, string>;
  for (const part of PARTS) {
    try {
      parts[part] = copy.render[part](data);
    } catch (error) {
      const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
      throw new Error(`template file ${copy.paths[part]} does not render: ${reason}`, {
        cause: error,
      });
    }
  }
  return parts;
}

/**
 * Every `{{…}}` of a copy is a placeholder of a declared attribute, and each part names the same
 * keys as the default copy's part, so that every reader's email is complete whatever its locale.
 */
function checkPlaceholders(
  copy: TemplateCopy,
  parts: Record<Part, string>,
  declared: ReadonlySet<string>,
  defaults: Record<Part, string>,
): void {
  for (const part of PARTS) {
    const where = `template file ${copy.paths[part]}`;
    if (/\{\{|\}\}/.test(parts[part].replace(PLACEHOLDER, ''))) {
      throw new Error(`${where} has a {{ or }} that is not a {{KEY}} placeholder`);
    }
    const keys = new Set(keysIn(parts[part]));
    const undeclared = [...keys].filter((key) => !declared.has(key));
    if (undeclared.length > 0) {
      throw new Error(
        `${where} uses {{${undeclared.join('}}, {{')}}}, which its planner does not provide (attributeKeys)`,
      );
    }
    const expected = new Set(keysIn(defaults[part]));
    if (keys.size !== expected.size || [...keys].some((key) => !expected.has(key))) {
      throw new Error(
        `${where} uses ${listed(keys)} where the default ${part} uses ${listed(expected)}`,
      );
    }
  }
}

function listed(keys: ReadonlySet<string>): string {
  return keys.size === 0
    ? 'no placeholder'
    : [...keys]
        .sort()
        .map((k) => `{{${k}}}`)
        .join(' ');
}

function keysIn(part: string): string[] {
  return [...part.matchAll(PLACEHOLDER)].map((m) => m[1]);
}

function toTwins(part: string): string {
  return part.replace(PLACEHOLDER, (_, key: string) => `{{${key}${TEXT}}}`);
}
