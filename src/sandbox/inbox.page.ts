import type {
  CampaignRecipient,
  CampaignRequest,
  ContactListRequest,
} from '../email-api/vendor.types';
import { RELAY_PATH, type RecordedRequest } from './sandbox-options';
import { esc, mergeMessage } from './vendor-merge';

/** Recipients shown per campaign; a benchmark campaign can carry thousands. */
const MAX_SHOWN = 200;
const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}
header{background:#1d2330;color:#fff;padding:12px 24px}header a{color:#9cc3ff}
main{padding:16px 24px;max-width:1100px}h1{font-size:20px;margin:0}h2{font-size:16px;margin:24px 0 8px}
table{border-collapse:collapse;width:100%;background:#fff}th,td{text-align:left;padding:6px 8px;border-bottom:1px solid #e3e6eb;vertical-align:top}
th{background:#eef0f4;font-weight:600}.empty{color:#6b7280;font-style:italic}
.message{background:#fff;border:1px solid #d9dde3;border-radius:6px;margin:12px 0;padding:12px}
dt{color:#6b7280}dd{margin:0;white-space:pre-wrap}
iframe{width:100%;height:180px;border:1px solid #e3e6eb;background:#fff}pre{white-space:pre-wrap;background:#f6f8fa;padding:8px}
.meta{display:grid;grid-template-columns:160px 1fr;gap:2px 8px;background:#fff;padding:12px;border-radius:6px}`;

/**
 * The stand-in's inbox, what Mailpit is for SMTP: received campaigns and contact lists, and for
 * each campaign its locale (`languageOf`) and every recipient's email with their attributes
 * merged into `{{KEY}}` placeholders, as `mergeMessage` does. Everything shown is escaped; the email body is shown in
 * a sandboxed iframe (no scripts, no same origin, and the page's CSP), so a value merged
 * unescaped cannot run anything there, and as escaped source.
 */
export class InboxPage {
  /** `escapesHtml`: how this stand-in merges, the mirror of `VENDOR_MERGE_ESCAPES_HTML`. */
  constructor(private readonly escapesHtml = true) {}

  list(entries: RecordedRequest[], received: number): string {
    const accepted = entries.filter((e) => e.status === 200);
    const campaigns = accepted.filter((e) => e.path === RELAY_PATH);
    const lists = accepted.filter((e) => e.path !== RELAY_PATH);
    const campaignRows = campaigns.map((e) => {
      const body = e.body as CampaignRequest;
      const language = languageOf(body.body);
      return row([
        link(e.seq),
        e.at,
        `<a href="/inbox/${e.seq}"${textAttributes(language)}>${esc(body.subject ?? '(no subject)')}</a>`,
        esc(localeText(language)),
        esc(body.campaignId ?? ''),
        String(body.recipients.to.length),
        esc(requestIdOf(e)),
      ]);
    });
    const listRows = lists.map((e) => {
      const body = e.body as ContactListRequest;
      return row([
        link(e.seq),
        e.at,
        `<a href="/inbox/${e.seq}">${esc(body.name)}</a>`,
        String(body.members?.length ?? 0),
        esc(idOf(e)),
      ]);
    });
    return page(
      'Sandbox inbox',
      `<p>${received} requests received, ${accepted.length} accepted and kept.
        <a href="/_sandbox/requests">JSON record</a> · <a href="/_sandbox/stats">stats</a></p>
      <h2>Campaigns (${campaigns.length})</h2>
      ${table(['#', 'Received', 'Subject', 'Locale', 'Campaign', 'Recipients', 'Request id'], campaignRows)}
      <h2>Contact lists (${lists.length})</h2>
      ${table(['#', 'Received', 'Name', 'Members', 'Id'], listRows)}`,
    );
  }

  detail(entry: RecordedRequest): string {
    return entry.path === RELAY_PATH ? this.campaign(entry) : this.contactList(entry);
  }

  private campaign(entry: RecordedRequest): string {
    const c = entry.body as CampaignRequest;
    const to = c.recipients.to;
    const headers = Object.entries(c.headers ?? {}).map(([k, v]) => `${k}: ${v ?? ''}`);
    const language = languageOf(c.body);
    const meta: Definition[] = [
      ['Request id', requestIdOf(entry)],
      ['Campaign id', c.campaignId ?? ''],
      ['Locale', localeText(language, 'long')],
      ['From', address(c.sender?.from)],
      ['Reply-To', address(c.sender?.replyTo)],
      ['Subject template', c.subject ?? '', language],
      ['Tracking links', c.disableTrackingLinks ? 'disabled' : 'tracked'],
      ['Merge', this.escapesHtml ? 'values HTML-escaped into the body' : 'values as they are'],
      ['Headers', headers.join('\n') || '(vendor defaults)'],
    ];
    const messages = to
      .slice(0, MAX_SHOWN)
      .map((r, i) => message(c, r, i, this.escapesHtml, language));
    const more =
      to.length > MAX_SHOWN ? `<p class="empty">and ${to.length - MAX_SHOWN} more</p>` : '';
    return page(
      `Campaign #${entry.seq}: ${c.subject ?? '(no subject)'}`,
      `<p><a href="/inbox">← inbox</a></p>${definitions(meta)}
      <h2>Recipients (${to.length})</h2>${messages.join('')}${more}`,
    );
  }

  private contactList(entry: RecordedRequest): string {
    const list = entry.body as ContactListRequest;
    const rows = (list.members ?? []).map((m) => {
      const { email, firstName, lastName, tags, ...rest } = m;
      const other = Object.entries(rest).map(([k, v]) => `${k}: ${String(v)}`);
      return row([
        esc(email),
        esc([firstName, lastName].filter(Boolean).join(' ')),
        esc((tags ?? []).join(', ')),
        `<pre>${esc(other.join('\n'))}</pre>`,
      ]);
    });
    return page(
      `Contact list #${entry.seq}: ${list.name}`,
      `<p><a href="/inbox">← inbox</a></p>${definitions([['Id', idOf(entry)]])}
      <h2>Members (${rows.length})</h2>${table(['Email', 'Name', 'Tags', 'Other fields'], rows)}`,
    );
  }
}

function message(
  c: CampaignRequest,
  r: CampaignRecipient,
  i: number,
  escapesHtml: boolean,
  language: BodyLanguage,
) {
  const attrs = r.attributes ?? {};
  const { subject, preview, body } = mergeMessage(c, attrs, escapesHtml);
  const attributes = Object.entries(attrs).map(([k, v]) => `${k} = ${v}`);
  return `<article class="message" data-recipient="${i}">
    ${definitions([
      ['To', address(r)],
      ['Subject', subject, language],
      ['Preview', preview, language],
    ])}
    <iframe sandbox="" referrerpolicy="no-referrer" title="Body for recipient ${i}" srcdoc="${esc(body)}"></iframe>
    <details><summary>Source</summary><pre>${esc(body)}</pre></details>
    <details><summary>Attributes</summary><pre>${esc(attributes.join('\n'))}</pre></details>
  </article>`;
}

function page(title: string, content: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title>
<style>${STYLE}</style></head><body><header><h1>${esc(title)}</h1>
<span>mailbridge vendor sandbox</span></header><main>${content}</main></body></html>`;
}

function table(headings: string[], rows: string[]): string {
  if (rows.length === 0) return '<p class="empty">none yet</p>';
  const head = headings.map((h) => `<th>${esc(h)}</th>`).join('');
  return `<table><thead><tr>${head}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** Cells are HTML already escaped by the caller. */
function row(cells: string[]): string {
  return `<tr>${cells.map((c) => `<td>${c}</td>`).join('')}</tr>`;
}

/** A value given a language is the campaign's own text (its subject, its preview). */
type Definition = [label: string, value: string, language?: BodyLanguage];

function definitions(pairs: Definition[]): string {
  const items = pairs
    .map(([k, v, language]) => {
      const text = language ? textAttributes(language) : '';
      return `<dt>${esc(k)}</dt><dd${text}>${esc(v)}</dd>`;
    })
    .join('');
  return `<dl class="meta">${items}</dl>`;
}

/** The language a campaign is written in, as its body's `<html lang dir>` says. */
export interface BodyLanguage {
  /** A BCP 47 tag, as written. */
  lang?: string;
  dir?: 'ltr' | 'rtl' | 'auto';
}

const HTML_START_TAG = /<html\b([^>]*)>/i;
const ATTRIBUTE = /(?:^|\s)(lang|dir)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/gi;
const LANGUAGE_TAG = /^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*$/;

/**
 * The campaign's locale: the vendor's request has no field for it, so the service's templates
 * write it where every mail client reads it, on the body's `<html>` element. A value that is
 * not a language tag (or a direction) is left out, since it is copied into the page's markup.
 */
export function languageOf(body: string | undefined): BodyLanguage {
  const start = HTML_START_TAG.exec(body ?? '');
  const language: BodyLanguage = {};
  for (const m of (start?.[1] ?? '').matchAll(ATTRIBUTE)) {
    const value = (m[2] ?? m[3] ?? m[4]).trim();
    if (m[1].toLowerCase() === 'lang' && LANGUAGE_TAG.test(value)) language.lang = value;
    const dir = value.toLowerCase();
    if (m[1].toLowerCase() === 'dir' && (dir === 'ltr' || dir === 'rtl' || dir === 'auto')) {
      language.dir = dir;
    }
  }
  return language;
}

/** `ar, right to left`, or `ar · rtl` in the list; a dash when the body names none. */
function localeText({ lang, dir }: BodyLanguage, form: 'short' | 'long' = 'short'): string {
  if (!lang) return form === 'long' ? "(none: the body's <html> has no lang)" : '—';
  if (dir !== 'rtl') return lang;
  return form === 'long' ? `${lang}, right to left` : `${lang} · rtl`;
}

/**
 * ` lang=".." dir=".."` for an element showing the campaign's text, so that the browser picks
 * the language's fonts (Japanese, not Chinese, forms of the same Han characters) and direction.
 */
function textAttributes({ lang, dir }: BodyLanguage): string {
  return (lang ? ` lang="${esc(lang)}"` : '') + (dir ? ` dir="${dir}"` : '');
}

function link(seq: number): string {
  return `<a href="/inbox/${seq}">${seq}</a>`;
}

function address(a: { name?: string; email: string } | undefined): string {
  if (!a) return '';
  return a.name ? `${a.name} <${a.email}>` : a.email;
}

function requestIdOf(entry: RecordedRequest): string {
  return (entry.response as { requestId?: string } | undefined)?.requestId ?? '';
}

function idOf(entry: RecordedRequest): string {
  return (entry.response as { id?: string } | undefined)?.id ?? '';
}
