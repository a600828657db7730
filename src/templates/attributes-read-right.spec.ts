import { join } from 'node:path';
import { Test } from '@nestjs/testing';
import { plainToInstance } from 'class-transformer';
import { ConfigModule } from '../config/config.module';
import { loadConfig } from '../config/config.loader';
import { INBOUND_CONTRACTS, INBOUND_READERS } from '../contracts/inbound-contracts';
import type { InboundEvent } from '../contracts/inbound-contracts';
import { ORDER_PLACED_V1 } from '../contracts/order-placed.v1';
import { USER_SIGNED_UP_V1 } from '../contracts/user-signed-up.v1';
import { mergeMessage } from '../sandbox/vendor-merge';
import type { Planner } from './planner';
import { loadTemplateCopies } from './template.renderer';
import { PlannerRegistry } from './planner.registry';
import { TemplatesModule } from './templates.module';

/**
 * Every template in every locale, as its recipients read it: each shipped planner (found by the
 * same folder scan as the service) plans hostile sample events in each locale its folder has a
 * copy for, the sandbox merges the attributes as the vendor
 * is configured to (escaping or not), and what a recipient sees must show no tag and no entity
 * the event's own values do not hold, and the body must carry no markup that came from a value. No `{{…}}` may be left unmerged.
 *
 * A command's content and attributes are its sender's, sent as asked, so only templates on
 * domain events are checked; a domain event type without samples here fails the spec.
 */

const BRAND = "Bread & <Butter>'s";
/** Languages written right to left: their copies' bodies say so. */
const RIGHT_TO_LEFT = new Set(['ar', 'fa', 'he', 'ur']);

/** Hostile but valid events per domain event type: quotes, ampersands and angle brackets. */
const SAMPLES: Record<string, object[]> = {
  [USER_SIGNED_UP_V1]: [
    { userId: 'u-1', email: 'ob@example.com', name: "O'Brien & <Sons>" },
    { userId: 'u-<2>', email: 'ada@example.com', name: '<b>Ada</b> "Al" Lovelace', plan: 'pro' },
  ],
  [ORDER_PLACED_V1]: [
    {
      orderId: 'A&B<1>',
      customer: { email: 'ob@example.com', firstName: "O'Brien & <Sons>", lastName: '<i>x</i>' },
      total: '23.25',
      currency: 'EUR',
      placedAt: '2026-11-21T10:00:42Z',
      items: [
        { sku: 'T-1', name: 'Green <b>tea</b>', quantity: 2, unitPrice: '8.75' },
        { sku: 'M-1', name: 'Mug & "Saucer"', quantity: 1, unitPrice: '5.75' },
      ],
    },
  ],
};

/** How a sample event of each domain event type asks for a locale. */
const WITH_LOCALE: Record<string, (data: object, locale: string) => object> = {
  [USER_SIGNED_UP_V1]: (data, locale) => ({ ...data, locale }),
  [ORDER_PLACED_V1]: (data, locale) => {
    const { customer } = data as { customer: object };
    return { ...data, customer: { ...customer, locale } };
  },
};

/** The locales a template folder has copies for (named like its planner), the default first. */
function localesOf(planner: Planner): string[] {
  return loadTemplateCopies(join(__dirname, planner.name), planner.name).map((c) => c.locale);
}

async function plannersWith(escapes: boolean): Promise<readonly Planner[]> {
  const config = loadConfig({
    MAILBRIDGE_MODE: 'local',
    SENDER_FROM_NAME: BRAND,
    SENDER_FROM_EMAIL: 'hello@shop.example',
    VENDOR_MERGE_ESCAPES_HTML: String(escapes),
  });
  const moduleRef = await Test.createTestingModule({
    imports: [ConfigModule.forRoot(config), TemplatesModule],
  }).compile();
  await moduleRef.init();
  return moduleRef.get(PlannerRegistry).planners();
}

function eventOf(type: string, data: object, i: number): InboundEvent {
  const event = { id: `evt-${i}`, type, time: '2026-11-21T10:00:42Z', data };
  return plainToInstance(INBOUND_CONTRACTS[type], event) as InboundEvent;
}

/** Every string of the sample (and the brand): the text a recipient may rightly see. */
function ownValues(data: unknown): string[] {
  if (typeof data === 'string') return [data];
  if (data && typeof data === 'object') return Object.values(data).flatMap(ownValues);
  return [];
}

/** A tag, a comment or a doctype, attributes quoted or not. */
const TAG =
  /<!--[\s\S]*?-->|<![^>]*>|<\/?[A-Za-z][^\s/>]*(?:\s+[^\s=/>]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*\s*\/?>/g;
/** What a reader would take for a tag or an entity, written in text. */
const VISIBLE_TAG = /<\/?[A-Za-z][^<>]*>/g;
const VISIBLE_ENTITY = /&(?:#[0-9]+|#[xX][0-9A-Fa-f]+|[A-Za-z][A-Za-z0-9]*);/g;
const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  mdash: '—',
  ndash: '–',
  hellip: '…',
  times: '×',
  copy: '©',
};

/** The element names of an HTML document, in order: `p`, `/p`, `!doctype`… */
function tagNames(html: string): string[] {
  return [...html.matchAll(TAG)].map((m) => /^<(\/?!?[A-Za-z-]*)/.exec(m[0])![1].toLowerCase());
}

/** An HTML document's text as a browser shows it: tags dropped, entities decoded once. */
function visibleText(html: string): string {
  return html.replace(TAG, ' ').replace(VISIBLE_ENTITY, (entity) => {
    const name = entity.slice(1, -1);
    if (name.startsWith('#')) {
      const code = /^#[xX]/.test(name) ? parseInt(name.slice(2), 16) : Number(name.slice(1));
      return String.fromCodePoint(code);
    }
    return NAMED[name] ?? entity;
  });
}

/** Tags and entities in `text` that none of the event's own values holds. */
function strangers(text: string, values: string[], entities = true): string[] {
  const found = [...text.matchAll(VISIBLE_TAG), ...(entities ? text.matchAll(VISIBLE_ENTITY) : [])];
  const tokens = new Set(found.map((m) => m[0]));
  return [...tokens].filter((token) => !values.some((v) => v.includes(token)));
}

/** The sample events of the planner's type, each in every locale of its copies. */
function samplesOf(planner: Planner): Array<{ data: object; locale?: string }> {
  const samples = SAMPLES[planner.eventType] ?? [];
  const setLocale = WITH_LOCALE[planner.eventType];
  const first =
    samples.length > 0 ? planner.plan(eventOf(planner.eventType, samples[0], 0)) : undefined;
  if (!setLocale || first?.kind !== 'campaign') return samples.map((data) => ({ data }));
  return localesOf(planner).flatMap((locale) =>
    samples.map((data) => ({ data: setLocale(data, locale), locale })),
  );
}

function problemsOf(planner: Planner, escapes: boolean): string[] {
  if (!SAMPLES[planner.eventType]) {
    return [`${planner.name}: no sample ${planner.eventType} events in this spec`];
  }
  const problems: string[] = [];
  samplesOf(planner).forEach(({ data, locale }, i) => {
    const action = planner.plan(eventOf(planner.eventType, data, i));
    if (action.kind !== 'campaign') return; // a contact list: nothing is merged
    const values = [...ownValues(data), BRAND];
    const where = `${planner.name}, sample ${i + 1}${locale ? ` (${locale})` : ''}`;
    if (locale && action.locale !== locale) {
      problems.push(`${where}: planned the copy of ${action.locale}`);
    }
    // The template's own markup: its body with every value free of markup.
    const skeleton = tagNames(action.content.body?.replace(/\{\{[^}]*\}\}/g, 'x') ?? '');
    let shown = '';
    for (const recipient of action.recipients) {
      const attributes = recipient.attributes ?? {};
      for (const [key, value] of Object.entries(attributes)) {
        for (const token of strangers(value, values, escapes)) {
          problems.push(`${where}: attribute ${key} carries ${token}`);
        }
      }
      const mail = mergeMessage(action.content, attributes, escapes);
      const body = visibleText(mail.body);
      const parts = { subject: mail.subject, preview: mail.preview, 'body text': body };
      for (const [part, text] of Object.entries(parts)) {
        for (const token of strangers(text, values))
          problems.push(`${where}: ${part} shows ${token}`);
        if (/\{\{/.test(text)) problems.push(`${where}: ${part} keeps a placeholder: ${text}`);
      }
      const tags = tagNames(mail.body);
      if (tags.join(' ') !== skeleton.join(' ')) {
        const extra = tags.filter((t) => !skeleton.includes(t));
        problems.push(`${where}: body has markup from a value (${extra.join(', ') || 'moved'})`);
      }
      shown += `${mail.subject}\n${mail.preview}\n${body}\n`;
    }
    // Not a vacuous pass: some hostile value does reach the reader, as written.
    if (!values.some((v) => /[&<>'"]/.test(v) && shown.includes(v))) {
      problems.push(`${where}: no value with & < > ' or " shows as written`);
    }
  });
  return problems;
}

describe.each([true, false])('attributes at a vendor whose merge escapes: %s', (escapes) => {
  let planners: readonly Planner[];

  beforeAll(async () => {
    planners = await plannersWith(escapes);
  });

  it('checks every template on a domain event', () => {
    const checked = planners.filter((p) => INBOUND_READERS[p.eventType] === 'tolerant');
    expect(checked.map((p) => p.name)).toEqual(
      expect.arrayContaining(['welcome', 'order-confirmation']),
    );
  });

  it('shows no tag or entity that the event did not hold, and no markup from a value', () => {
    const problems = planners
      .filter((p) => INBOUND_READERS[p.eventType] === 'tolerant')
      .flatMap((p) => problemsOf(p, escapes));
    expect(problems).toEqual([]);
  });

  it("sets each copy's language, and its direction when that is right to left", () => {
    const problems = planners
      .filter((p) => INBOUND_READERS[p.eventType] === 'tolerant')
      .flatMap((planner) =>
        samplesOf(planner).flatMap(({ data }, i) => {
          const action = planner.plan(eventOf(planner.eventType, data, i));
          if (action.kind !== 'campaign' || !action.locale) return [];
          const html = /<html\b[^>]*>/.exec(action.content.body ?? '')?.[0] ?? '(no <html>)';
          const rtl = RIGHT_TO_LEFT.has(new Intl.Locale(action.locale).language);
          const wanted = `<html lang="${action.locale}"${rtl ? ' dir="rtl"' : ''}>`;
          return html === wanted
            ? []
            : [`${planner.name} (${action.locale}): ${html}, not ${wanted}`];
        }),
      );
    expect(problems).toEqual([]);
  });

  it.each(['welcome', 'order-confirmation'])('plans every locale of the %s copy', (name) => {
    const planner = planners.find((p) => p.name === name)!;
    const planned = samplesOf(planner).map(({ data }, i) => {
      const action = planner.plan(eventOf(planner.eventType, data, i));
      return action.kind === 'campaign' ? action.locale : action.kind;
    });
    expect(new Set(planned)).toEqual(new Set(['en', 'ar', 'de', 'es', 'fr', 'ja']));
  });
});
