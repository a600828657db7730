import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Eta } from 'eta';
import type { SenderConfig } from '../config/app-config';
import { canonicalLocale, DEFAULT_LOCALE } from './locale.fallback';
import type { CampaignContent } from './planner';

/** The body is HTML: every `<%= %>` is HTML-escaped. */
const html = new Eta({ autoEscape: true, useWith: false, autoTrim: false });
/** Subject and preview are plain text, where an escaped `&` would show as `&amp;`. */
const text = new Eta({ autoEscape: false, useWith: false, autoTrim: false });
const ENGINES = { subject: text, preview: text, body: html } as const;

/** The parts of a campaign's copy, each one `.eta` file. */
export const PARTS = ['subject', 'preview', 'body'] as const;
export type Part = (typeof PARTS)[number];

/** A compiled template part. */
export type RenderFn = (data: object) => string;

/** One locale's copy of a template: its parts compiled, and the file each came from. */
export interface TemplateCopy {
  /** A canonical BCP 47 tag; `DEFAULT_LOCALE` for the files without one in their name. */
  locale: string;
  /** Each part's file as errors name it: `<parent folder>/<template folder>/<file>`. */
  paths: Record<Part, string>;
  render: Record<Part, RenderFn>;
}

/**
 * Loads and compiles every copy of template `name` in `dir` once, at startup (the only file I/O
 * of a template), so that rendering afterwards is pure: the default copy
 * `<name>.<part>.eta` and each locale's `<name>.<part>.<locale>.eta`, for the parts subject,
 * preview and body. A locale's copy has all three parts; its tag is written in its canonical
 * form (`zh-Hant`, not `zh-hant`). Any other file named `<name>.….eta`, a missing part or a
 * file that does not compile stops start-up naming the file. `<%= it.x %>` is HTML-escaped in
 * the body only; `{{KEY}}` is left for the vendor to merge with each recipient's attributes.
 * The default copy comes first, then the locales in tag order.
 */
export function loadTemplateCopies(dir: string, name: string): TemplateCopy[] {
  const folder = `${basename(dirname(dir))}/${basename(dir)}`;
  const found = new Map<string, Partial<Record<Part, string>>>();
  for (const file of readdirSync(dir).sort()) {
    if (!file.startsWith(`${name}.`) || !file.endsWith('.eta')) continue;
    const { part, locale } = partOf(file, name, `${folder}/${file}`);
    const files = found.get(locale) ?? {};
    files[part] = file;
    found.set(locale, files);
  }
  const locales = [...found.keys()].filter((l) => l !== DEFAULT_LOCALE).sort();
  return [DEFAULT_LOCALE, ...locales].map((locale) => {
    const files = found.get(locale) ?? {};
    const missing = PARTS.filter((part) => files[part] === undefined);
    if (missing.length > 0) {
      const suffix = locale === DEFAULT_LOCALE ? '' : `.${locale}`;
      const wanted = missing.map((part) => `${folder}/${name}.${part}${suffix}.eta`);
      throw new Error(
        `template ${folder}/ lacks ${wanted.join(', ')}: a copy has all of ${PARTS.join(', ')}`,
      );
    }
    const paths = {} as Record<Part, string>;
    const render = {} as Record<Part, RenderFn>;
    for (const part of PARTS) {
      paths[part] = `${folder}/${files[part]}`;
      render[part] = compile(part, join(dir, files[part]!), paths[part]);
    }
    return { locale, paths, render };
  });
}

/** Which part and locale a file `<name>.<part>[.<locale>].eta` holds. */
function partOf(file: string, name: string, path: string): { part: Part; locale: string } {
  const [part, tag, ...rest] = file.slice(name.length + 1, -'.eta'.length).split('.');
  if (!PARTS.includes(part as Part) || rest.length > 0 || tag === '') {
    throw new Error(
      `template file ${path} is not named <template>.<${PARTS.join('|')}>[.<locale>].eta`,
    );
  }
  if (tag === undefined) return { part: part as Part, locale: DEFAULT_LOCALE };
  const canonical = canonicalLocale(tag);
  if (canonical === undefined) {
    throw new Error(`template file ${path}: '${tag}' is not a BCP 47 language tag`);
  }
  const base = new Intl.Locale(canonical).baseName;
  if (canonical !== tag || base !== canonical) {
    // Lookup compares canonical tags without extensions: any other spelling would never match.
    throw new Error(`template file ${path}: write its locale as ${base}`);
  }
  if (canonical === DEFAULT_LOCALE) {
    throw new Error(
      `template file ${path}: the default copy is ${DEFAULT_LOCALE}; its files carry no locale`,
    );
  }
  return { part: part as Part, locale: canonical };
}

function compile(part: Part, file: string, path: string): RenderFn {
  const eta = ENGINES[part];
  let fn: ReturnType<Eta['compile']>;
  try {
    fn = eta.compile(readFileSync(file, 'utf8'));
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new Error(`template file ${path} does not compile: ${reason}`, { cause: error });
  }
  return (data) => eta.render(fn, data).trim();
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
