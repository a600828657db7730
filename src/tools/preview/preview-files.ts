import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { languageOf } from '../../sandbox/inbox.page';
import { esc } from '../../sandbox/vendor-merge';
import { canonicalLocale } from '../../templates/locale.fallback';
import type { TemplatePreview } from './template-preview';

/** The two files a preview writes. */
export interface PreviewFiles {
  html: string;
  text: string;
}

/**
 * Writes `<out>/<template>.<locale>.html` and `.txt` and returns their paths. The locale in the
 * names is the one asked for (so that a preview of `pt` does not overwrite the default's), or
 * the copy's when none was asked or the tag cannot be part of a file name.
 */
export function writePreview(preview: TemplatePreview, outDir: string): PreviewFiles {
  const asked = preview.requestedLocale;
  const locale = asked && /^[A-Za-z0-9_-]{1,35}$/.test(asked) ? asked : preview.locale;
  const base = join(outDir, `${preview.template}.${locale}`);
  mkdirSync(outDir, { recursive: true });
  const files = { html: `${base}.html`, text: `${base}.txt` };
  writeFileSync(files.html, previewPage(preview));
  writeFileSync(files.text, summaryText(preview));
  return files;
}

/** The text summary: what was rendered, from what, in which copy and why, and the email. */
export function summaryText(p: TemplatePreview): string {
  const { subject, preview, body } = p.message;
  const attributes = Object.entries(p.recipient.attributes ?? {});
  const width = Math.max(0, ...attributes.map(([key]) => key.length));
  const lines = [
    `Template:        ${p.template} (${p.eventType}, ${p.eventFrom})`,
    `Locale asked:    ${p.requestedLocale ?? '(none)'}`,
    `Copy used:       ${p.locale} (${whyThisCopy(p)})`,
    `Merge:           ${p.escapesHtml ? 'values HTML-escaped into the body' : 'values as they are'} (VENDOR_MERGE_ESCAPES_HTML=${p.escapesHtml})`,
    `From:            ${address(p.sender?.from)}`,
    `To:              ${address(p.recipient)}`,
    `Subject:         ${subject}`,
    `Preview:         ${preview}`,
    '',
    'Attributes merged:',
    ...attributes.map(([key, value]) => `  ${key.padEnd(width)}  ${indented(value, width + 4)}`),
    '',
    'Body (as text):',
    ...bodyText(body)
      .split('\n')
      .map((line) => (line ? `  ${line}` : '')),
  ];
  return `${lines.join('\n')}\n`;
}

function whyThisCopy(p: TemplatePreview): string {
  if (p.localeIgnored) {
    return `the contract ignores '${p.requestedLocale}', not a usable locale tag, so the default copy`;
  }
  if (p.requestedLocale === undefined) return 'the event names no locale: the default copy';
  if (p.localeFallback === 'malformed') {
    return `'${p.requestedLocale}' is not a BCP 47 tag: the default copy`;
  }
  if (p.localeFallback === 'unknown') {
    return `no copy for ${p.requestedLocale} or a shorter form of it: the default copy`;
  }
  return canonicalLocale(p.requestedLocale) === p.locale
    ? 'the copy of the locale asked'
    : `the closest copy to ${p.requestedLocale}`;
}

/**
 * The page written beside the summary: the subject, preview and addresses above the email,
 * which is shown as the inbox shows it, in a sandboxed iframe of its own document (its `<html
 * lang dir>` kept). Self-contained: it loads nothing.
 */
export function previewPage(p: TemplatePreview): string {
  const { subject, preview, body } = p.message;
  const { lang, dir } = languageOf(body);
  const text = (lang ? ` lang="${esc(lang)}"` : '') + (dir ? ` dir="${dir}"` : '');
  const rows = [
    ['Template', `${p.template}, copy ${p.locale} (asked: ${p.requestedLocale ?? 'none'})`, ''],
    ['From', address(p.sender?.from), ''],
    ['To', address(p.recipient), ''],
    ['Subject', subject, text],
    ['Preview', preview, text],
  ];
  const items = rows.map(([k, v, a]) => `<dt>${esc(k)}</dt><dd${a}>${esc(v)}</dd>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(subject)}</title>
<style>body{font:14px/1.45 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}
dl{display:grid;grid-template-columns:120px 1fr;gap:2px 8px;margin:0;padding:12px 24px;background:#fff;border-bottom:1px solid #d9dde3}
dt{color:#6b7280}dd{margin:0;white-space:pre-wrap}
iframe{display:block;width:calc(100% - 48px);height:75vh;margin:16px 24px;border:1px solid #d9dde3;background:#fff}</style>
</head><body><dl>${items}</dl>
<iframe sandbox="" title="Body" srcdoc="${esc(body)}"></iframe>
</body></html>
`;
}

const BLOCK = new Set([
  'address',
  'article',
  'blockquote',
  'div',
  'footer',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'tr',
  'ul',
]);
/** Elements whose content is not text a reader sees. */
const HIDDEN = new Set(['head', 'script', 'style', 'template', 'title']);
const VOID = new Set(['br', 'hr', 'img', 'meta', 'link', 'input', 'col', 'wbr']);
const TOKEN = /<!--[\s\S]*?-->|<!doctype[^>]*>|<(\/?)([A-Za-z][A-Za-z0-9-]*)([^>]*)>|([^<]+|<)/gi;

/**
 * The body as plain text, as a reader would copy it out of the email: blocks on lines of their
 * own, a blank line between paragraphs, white space collapsed as HTML collapses it except where
 * the body keeps it (`<pre>`, `white-space: pre…`, as the order confirmation's item lines),
 * character references decoded.
 */
export function bodyText(html: string): string {
  const out: string[] = [];
  // One entry per open element: whether it keeps white space, and whether it is hidden.
  const open: Array<{ name: string; keeps: boolean; hidden: boolean }> = [];
  const keeping = () => open.some((e) => e.keeps);
  const hidden = () => open.some((e) => e.hidden);
  for (const [, closing, rawName, attributes, text] of html.matchAll(TOKEN)) {
    if (text !== undefined) {
      if (hidden()) continue;
      const decoded = decodeEntities(text);
      out.push(keeping() ? decoded.replace(/[ \t]+/g, ' ') : decoded.replace(/\s+/g, ' '));
      continue;
    }
    if (rawName === undefined) continue;
    const name = rawName.toLowerCase();
    if (name === 'br') out.push('\n');
    if (BLOCK.has(name)) out.push('\n\n');
    if (closing) {
      const at = open.map((e) => e.name).lastIndexOf(name);
      if (at >= 0) open.length = at;
    } else if (!VOID.has(name) && !attributes.trimEnd().endsWith('/')) {
      const keeps = name === 'pre' || /white-space\s*:\s*pre/i.test(attributes);
      open.push({ name, keeps, hidden: HIDDEN.has(name) });
    }
  }
  return out
    .join('')
    .split('\n')
    .map((line) => line.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  copy: '©',
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] !== '#') return NAMED[ref.toLowerCase()] ?? whole;
    const code =
      ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : Number(ref.slice(1));
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

function address(a: { name?: string; email: string } | undefined): string {
  if (!a) return '(none)';
  return a.name ? `${a.name} <${a.email}>` : a.email;
}

/** A value of several lines, its later lines lined up under its first. */
function indented(value: string, by: number): string {
  return value.split('\n').join(`\n${' '.repeat(by)}`);
}
