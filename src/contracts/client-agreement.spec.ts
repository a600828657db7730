import type * as Client from '@mailbridge/contracts';
import { SchemaValidator, schemas } from '@mailbridge/contracts';
import { FULL_EVENTS } from '../../test/hostile/full-events';
import { validateEvent } from '../inbound/event.validator';
import type { EmailCampaignRequestedV1 } from './email-campaign-requested.v1';
import { EMAIL_CAMPAIGN_SENT_V1, type EmailCampaignSentV1 } from './email-campaign-sent.v1';
import {
  EMAIL_CONTACT_LIST_CREATED_V1,
  type EmailContactListCreatedV1,
} from './email-contact-list-created.v1';
import type { EmailContactListRequestedV1 } from './email-contact-list-requested.v1';
import type { EmailSuppressionRequestedV1 } from './email-suppression-requested.v1';
import {
  DISPATCH_FAILURE_RETRIABLE,
  EMAIL_DISPATCH_FAILED_V1,
  type EmailDispatchFailedV1,
} from './email-dispatch-failed.v1';
import { inboundSchema, standardSchema } from './contract-schemas';
import { INBOUND_READERS } from './inbound-contracts';
import { INBOUND_SCHEMAS, lenientPaths, type JsonSchema } from './json-schema';
import { BEYOND_STANDARD, LENIENT_KEYWORD, UNIQUE_EMAILS_KEYWORD } from './json-schema-rules';
import type { OrderPlacedV1 } from './order-placed.v1';
import { EMAIL_UNSUBSCRIBED_V1, type EmailUnsubscribedV1 } from './email-unsubscribed.v1';
import type { UserSignedUpV1 } from './user-signed-up.v1';

/**
 * The @mailbridge/contracts package (packages/contracts) declares mailbridge's events and results
 * as plain types for other services; the classes here are the one definition. This file does not
 * compile (`npm run check`, which CI runs) when the two differ in any field, its type or its
 * optionality, at any depth, in either direction: `Same<A, B>` is TypeScript's own identity of
 * types, stricter than assignability both ways (which an extra optional field would pass).
 */
type Same<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** Both ways assignable, as values: a class instance is a package event, and back. */
type Agree<Class, Package> = [Class] extends [Package]
  ? [Package] extends [Class]
    ? Same<Class, Package>
    : false
  : false;

/** Only the properties, as an instance of the class has them (no class identity). */
type Plain<T> = { [K in keyof T]: T[K] extends object ? Plain<T[K]> : T[K] };

const inboundAgree: [
  Agree<Plain<UserSignedUpV1>, Plain<Client.UserSignedUpV1>>,
  Agree<Plain<OrderPlacedV1>, Plain<Client.OrderPlacedV1>>,
  Agree<Plain<EmailCampaignRequestedV1>, Plain<Client.EmailCampaignRequestedV1>>,
  Agree<Plain<EmailContactListRequestedV1>, Plain<Client.EmailContactListRequestedV1>>,
  Agree<Plain<EmailSuppressionRequestedV1>, Plain<Client.EmailSuppressionRequestedV1>>,
] = [true, true, true, true, true];

const resultDataAgree: [
  Agree<EmailCampaignSentV1['data'], Client.EmailCampaignSentV1Data>,
  Agree<EmailContactListCreatedV1['data'], Client.EmailContactListCreatedV1Data>,
  Agree<EmailDispatchFailedV1['data'], Client.EmailDispatchFailedV1Data>,
  Same<EmailCampaignSentV1['type'], Client.EmailCampaignSentV1['type']>,
  Same<EmailContactListCreatedV1['type'], Client.EmailContactListCreatedV1['type']>,
  Same<EmailDispatchFailedV1['type'], Client.EmailDispatchFailedV1['type']>,
  Agree<EmailUnsubscribedV1['data'], Client.EmailUnsubscribedV1Data>,
  Same<EmailUnsubscribedV1['type'], Client.EmailUnsubscribedV1['type']>,
] = [true, true, true, true, true, true, true, true];

describe('@mailbridge/contracts agrees with src/contracts', () => {
  it('has the same event and result types, both ways (checked by the compiler)', () => {
    expect([...inboundAgree, ...resultDataAgree].every(Boolean)).toBe(true);
  });

  it('has the same type names and failure codes', async () => {
    const client = await import('@mailbridge/contracts');
    expect([...client.INBOUND_TYPES].sort()).toEqual(Object.keys(INBOUND_SCHEMAS).sort());
    expect(client.RESULT_TYPES).toEqual([
      EMAIL_CAMPAIGN_SENT_V1,
      EMAIL_CONTACT_LIST_CREATED_V1,
      EMAIL_DISPATCH_FAILED_V1,
      EMAIL_UNSUBSCRIBED_V1,
    ]);
    expect(client.DISPATCH_FAILURE_RETRIABLE).toEqual(DISPATCH_FAILURE_RETRIABLE);
  });

  it('ships the JSON Schema the service validates each inbound type with, open where it reads tolerantly', () => {
    for (const [type, schema] of Object.entries(INBOUND_SCHEMAS)) {
      // Metadata a published schema may add (its `$id`, a description) is not a rule.
      const shipped = { ...schemas()[type] };
      for (const metadata of ['$id', 'title', 'description']) delete shipped[metadata];
      expect(shipped).toEqual(
        standardSchema(inboundSchema(schema, INBOUND_READERS[type] === 'tolerant')),
      );
    }
  });

  /** Every leaf of `value` with its path, and a copy of `value` with that leaf replaced. */
  function* leaves(value: unknown, path: string[] = []): Generator<string[]> {
    if (typeof value !== 'object' || value === null) {
      yield path;
      return;
    }
    for (const [key, child] of Object.entries(value)) yield* leaves(child, [...path, key]);
  }

  function replaced(value: unknown, path: string[], by: (old: unknown) => unknown): unknown {
    if (path.length === 0) return by(value);
    const copy: Record<string, unknown> = Array.isArray(value)
      ? { ...(value as unknown[]) }
      : { ...(value as object) };
    copy[path[0]] = replaced(copy[path[0]], path.slice(1), by);
    return Array.isArray(value) ? Object.assign([], copy) : copy;
  }

  const serviceAccepts = (event: Record<string, unknown>) => {
    try {
      // A copy: the service removes from the event what it ignores.
      validateEvent(event.type as string, structuredClone(event));
      return true;
    } catch {
      return false;
    }
  };

  it.each(Object.entries(FULL_EVENTS))(
    'validates %s events as the service does, field by field',
    (_topic, event) => {
      const client = new SchemaValidator();
      const type = event.type as string;
      const verdicts: Array<[string, boolean, boolean]> = [];
      const check = (what: string, candidate: unknown) =>
        verdicts.push([
          what,
          serviceAccepts(candidate as Record<string, unknown>),
          client.validate(type, candidate).valid,
        ]);
      check('the full event', event);
      for (const path of leaves(event)) {
        const at = path.join('.');
        check(
          `${at} as an object`,
          replaced(event, path, () => ({ wrong: true })),
        );
        check(
          `${at} as a long string`,
          replaced(event, path, () => 'x'.repeat(300_000)),
        );
        check(
          `${at} with a line break`,
          replaced(event, path, (old) => `${String(old)}\n`),
        );
        check(
          `${at} beside an unknown field`,
          replaced(event, path.slice(0, -1), (o) => ({
            ...(o as object),
            unknownField: 'x',
          })),
        );
      }
      // Deliberately: a producer's check refuses a lenient value that does not fit, which the
      // service ignores (strict with what you send, tolerant of what others publish).
      const lenient = lenientPaths(INBOUND_SCHEMAS[type]);
      const unfitLenient = ([what, service, client]: [string, boolean, boolean]) =>
        service &&
        !client &&
        lenient.some((p) => what.startsWith(`${p} as `) || what.startsWith(`${p} with `));
      expect(verdicts.filter((v) => v[1] !== v[2] && !unfitLenient(v))).toEqual([]);
      expect(verdicts.filter(unfitLenient).length).toBe(lenient.length * 3);
      expect(verdicts[0]).toEqual(['the full event', true, true]);
      expect(verdicts.filter(([, service]) => !service).length).toBeGreaterThan(
        verdicts.length / 2,
      );
    },
  );

  it('reads a timestamp’s calendar as the service does, edge days included', () => {
    const client = new SchemaValidator();
    const edges = [
      '0000-02-29T00:00:00Z',
      '1900-02-29T00:00:00Z',
      '2000-02-29T00:00:00Z',
      '2023-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-12-31T23:59:60+23:59',
    ];
    for (const event of Object.values(FULL_EVENTS)) {
      for (const time of edges) {
        const candidate = { ...event, time };
        expect([time, client.validate(event.type as string, candidate).valid]).toEqual([
          time,
          serviceAccepts(candidate),
        ]);
      }
    }
  });

  /** Where a shipped schema describes a rule beyond the standard: its path and the rule. */
  function* described(
    root: JsonSchema,
    node: JsonSchema = root,
    path: string[] = [],
  ): Generator<[string[], string]> {
    const rule = Object.keys(BEYOND_STANDARD).find((k) => BEYOND_STANDARD[k] === node.description);
    if (rule) yield [path, rule];
    if (typeof node.$ref === 'string') {
      const name = node.$ref.replace('#/definitions/', '');
      yield* described(root, (root.definitions as Record<string, JsonSchema>)[name], path);
    }
    for (const [key, child] of Object.entries(
      (node.properties ?? {}) as Record<string, JsonSchema>,
    ))
      yield* described(root, child, [...path, key]);
  }

  it('refuses, as the service does, what the shipped schemas can only describe; a lenient value that does not fit, the service ignores', () => {
    const client = new SchemaValidator();
    const breaking: Readonly<Record<string, (old: unknown) => unknown>> = {
      [LENIENT_KEYWORD]: () => 42,
      'format:iso8601': () => '2026-02-30',
      [UNIQUE_EMAILS_KEYWORD]: (old) => {
        const [first, ...rest] = old as Array<{ email: string }>;
        return [first, ...rest, { ...first, email: first.email.toUpperCase() }];
      },
    };
    const verdicts: Array<[string, boolean, boolean]> = [];
    for (const event of Object.values(FULL_EVENTS)) {
      const type = event.type as string;
      for (const [path, rule] of described(schemas()[type])) {
        const candidate = replaced(event, path, breaking[rule]) as Record<string, unknown>;
        verdicts.push([
          `${type} ${path.join('.')}`,
          serviceAccepts(candidate),
          client.validate(type, candidate).valid,
        ]);
      }
    }
    expect(verdicts).toEqual([
      ['user.signed_up.v1 data.locale', true, false],
      ['user.signed_up.v1 data.timeZone', true, false],
      ['order.placed.v1 data.customer.locale', true, false],
      ['order.placed.v1 data.customer.timeZone', true, false],
      ['order.placed.v1 data.placedAt', false, false],
      ['email.campaign.requested.v1 data.recipients.to', false, false],
      ['email.contact_list.requested.v1 data.members', false, false],
    ]);
  });
});
