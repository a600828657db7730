import { EMAIL_CAMPAIGN_SENT_V1, EmailCampaignSentV1Data } from './email-campaign-sent.v1';
import {
  EMAIL_CONTACT_LIST_CREATED_V1,
  EmailContactListCreatedV1Data,
} from './email-contact-list-created.v1';
import { EMAIL_DISPATCH_FAILED_V1, EmailDispatchFailedV1Data } from './email-dispatch-failed.v1';
import { EMAIL_UNSUBSCRIBED_V1, EmailUnsubscribedV1Data } from './email-unsubscribed.v1';
import { INBOUND_READERS } from './inbound-contracts';
import { plainTextPattern } from './is-plain-text';
import { INBOUND_SCHEMAS, lenientPaths, schemasOf, type JsonSchema } from './json-schema';
import { BEYOND_STANDARD, STANDARD_FORMATS } from './json-schema-rules';
import {
  CLOUDEVENTS_EXTENSION_NAME,
  DEAD_LETTER_HEADERS,
  MAX_EXTENSION_LENGTH,
  REQUIRED_DEAD_LETTER_HEADERS,
} from './kafka-headers';
import { StructuredResultEvent } from './result-cloud-event';

/**
 * Who writes what a schema describes. Other services write `inbound` events, so a new schema
 * must accept all the old one accepted; mailbridge writes `outbound` ones, so all a new schema
 * allows must pass the old one, which subscribers may validate against.
 */
export type SchemaDirection = 'inbound' | 'outbound';

/**
 * What a published schema promises, and to whom; the evolution check holds each to its own.
 *
 * - `domain-event`: published by another team for many consumers, read tolerantly. Producers
 *   may add fields before mailbridge knows them, so a new release's schema accepts every event
 *   the published one accepted, and is open for unknown fields in `data` at any depth.
 * - `command`: addressed to mailbridge, read strictly. A new release's schema accepts every
 *   command the published one accepted, and refuses unknown fields in `data` at any depth (a
 *   misspelled option must not be silently dropped).
 * - `result`: written by mailbridge (results, dead letters). Subscribers can rely on every
 *   published field: all a new release may write passes the published schema, which leaves
 *   unknown fields open so that a subscriber validating with it keeps accepting later additions.
 *
 * Every inbound envelope is closed but for CloudEvents extension attributes, whose names the
 * spec reserves: a plain envelope (no `specversion`) carries none.
 */
export type SchemaPromise = 'domain-event' | 'command' | 'result';

/** One published JSON Schema: `schemas/<name>.json`. */
export interface ContractSchema {
  /** The message type it describes (`user.signed_up.v1`), or what else it is. */
  name: string;
  promise: SchemaPromise;
  schema: JsonSchema;
  /**
   * The paths of the properties the service reads leniently (`data.customer.timeZone`,
   * `@Lenient()`): the published schema says so only in their descriptions.
   */
  lenient: readonly string[];
}

/** Which way a change must stay compatible, by what the schema promises. */
export function directionOf(promise: SchemaPromise): SchemaDirection {
  return promise === 'result' ? 'outbound' : 'inbound';
}

/** The name of the schema of a structured-mode result's CloudEvent (its `data` aside). */
export const RESULT_CLOUDEVENT_SCHEMA = 'result-cloudevent.v1';
/** The name of the schema of a dead letter's headers. */
export const DEAD_LETTER_HEADERS_SCHEMA = 'dead-letter-headers.v1';

/** Every result type's `data`, by type. */
export const RESULT_DATA_CONTRACTS = {
  [EMAIL_CAMPAIGN_SENT_V1]: EmailCampaignSentV1Data,
  [EMAIL_CONTACT_LIST_CREATED_V1]: EmailContactListCreatedV1Data,
  [EMAIL_DISPATCH_FAILED_V1]: EmailDispatchFailedV1Data,
  [EMAIL_UNSUBSCRIBED_V1]: EmailUnsubscribedV1Data,
} as const;

const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

/** The `$id` of a published schema: a URN, as no address serves the files (the repo does). */
export function schemaId(name: string): string {
  return `urn:mailbridge:schema:${name}`;
}

/**
 * Every published JSON Schema, generated from the contract classes and header declarations:
 * the four inbound event types (the whole event, as a plain envelope or a structured CloudEvent;
 * in binary mode the value is its `data` definition), the three results' `data`, a structured
 * result's CloudEvent, and a dead letter's headers. `npm run contracts:generate` writes them.
 */
export function contractSchemas(): ContractSchema[] {
  const inbound = Object.entries(INBOUND_SCHEMAS).map(([type, schema]) => {
    const tolerant = INBOUND_READERS[type] === 'tolerant';
    return published(
      type,
      tolerant ? 'domain-event' : 'command',
      inboundSchema(schema, tolerant),
      lenientPaths(schema),
    );
  });
  const results = Object.entries(schemasOf(RESULT_DATA_CONTRACTS, { closed: false })).map(
    ([type, schema]) =>
      published(type, 'result', {
        description: `The data of the result ${type}: the record value in binary mode, \`data\` in structured mode.`,
        ...schema,
      }),
  );
  const [envelope] = Object.values(
    schemasOf({ [RESULT_CLOUDEVENT_SCHEMA]: StructuredResultEvent }, { closed: false }),
  );
  return [
    ...inbound,
    ...results,
    published(RESULT_CLOUDEVENT_SCHEMA, 'result', {
      description: 'A result as a structured-mode CloudEvent 1.0 (RESULT_EVENT_MODE=structured).',
      ...envelope,
    }),
    published(DEAD_LETTER_HEADERS_SCHEMA, 'result', deadLetterHeadersSchema()),
  ];
}

function published(
  name: string,
  promise: SchemaPromise,
  schema: JsonSchema,
  lenient: readonly string[] = [],
): ContractSchema {
  const { definitions, ...rest } = standardSchema(schema);
  delete rest.$schema;
  const ordered: JsonSchema = { $schema: DRAFT_07, $id: schemaId(name), title: name, ...rest };
  // A schema without nested classes has nothing to define.
  if (definitions && Object.keys(definitions).length > 0) ordered.definitions = definitions;
  return { name, promise, schema: ordered, lenient };
}

const STANDARD = new Set<string>(STANDARD_FORMATS);

/**
 * `schema` in standard JSON Schema (draft-07) only, as a foreign validator reads it: each keyword
 * or format beyond it (`BEYOND_STANDARD`) left out, and what it checked added to the
 * `description` of the schema that had it. One that `BEYOND_STANDARD` does not describe stops
 * generation: no rule is published that a foreign validator cannot see.
 */
export function standardSchema(schema: JsonSchema): JsonSchema {
  return standardNode(structuredClone(schema), '#') as JsonSchema;
}

function standardNode(node: unknown, at: string): unknown {
  if (typeof node !== 'object' || node === null) return node;
  if (Array.isArray(node)) return node.map((item, i) => standardNode(item, `${at}/${i}`));
  const s = node as JsonSchema;
  const notes: string[] = [];
  const beyond = (key: string) => {
    const note = BEYOND_STANDARD[key];
    if (!note) throw new Error(`${at}: '${key}' is not standard JSON Schema (BEYOND_STANDARD)`);
    notes.push(note);
  };
  if (typeof s.format === 'string' && !STANDARD.has(s.format)) {
    beyond(`format:${s.format}`);
    delete s.format;
  }
  for (const key of Object.keys(s)) {
    if (key.startsWith('x-')) {
      beyond(key);
      delete s[key];
    }
  }
  for (const [key, child] of Object.entries(s)) {
    // Under these, the keys are names the schema chose, not keywords.
    if (key === 'properties' || key === 'definitions' || key === 'patternProperties') {
      s[key] = Object.fromEntries(
        Object.entries(child as JsonSchema).map(([n, c]) => [
          n,
          standardNode(c, `${at}/${key}/${n}`),
        ]),
      );
    } else if (typeof child === 'object') {
      s[key] = standardNode(child, `${at}/${key}`);
    }
  }
  if (notes.length > 0) {
    s.description = [s.description, ...notes].filter((d) => typeof d === 'string').join(' ');
  }
  return s;
}

/**
 * What an extension attribute's value may be (`inbound/cloud-event.ts` checks the same): a
 * boolean, a safe integer, or plain text up to {@link MAX_EXTENSION_LENGTH} characters.
 */
const EXTENSION_VALUE: JsonSchema = {
  description: 'A CloudEvents extension attribute (structured mode); not part of the contract.',
  type: ['boolean', 'integer', 'string'],
  minimum: -Number.MAX_SAFE_INTEGER,
  maximum: Number.MAX_SAFE_INTEGER,
  maxLength: MAX_EXTENSION_LENGTH,
  pattern: plainTextPattern(),
};

/**
 * An inbound type's published schema: the validator's closed one (`INBOUND_SCHEMAS`), with
 * `data` open at every depth where the reader is tolerant, and the envelope open for extension
 * attributes: any name CloudEvents allows one (1–20 lower-case letters and digits) that is not
 * a declared attribute, when the event is a CloudEvent (has `specversion`). A plain envelope
 * keeps to the declared names.
 */
export function inboundSchema(closed: JsonSchema, tolerant: boolean): JsonSchema {
  const schema = structuredClone(closed);
  // The envelope is the root; every definition is a class of `data`.
  if (tolerant) {
    for (const definition of Object.values(
      (schema.definitions ?? {}) as Record<string, JsonSchema>,
    )) {
      if (definition.additionalProperties === false) delete definition.additionalProperties;
    }
  }
  const declared = Object.keys(schema.properties as JsonSchema);
  schema.patternProperties = { [extensionNamePattern(declared)]: EXTENSION_VALUE };
  // `properties` beside `required`: ajv's strict mode wants each required name declared.
  schema.if = { properties: { specversion: true }, required: ['specversion'] };
  schema.else = { propertyNames: { enum: declared } };
  return schema;
}

/** An extension attribute's name: CloudEvents' rule, the declared attributes excepted. */
export function extensionNamePattern(declared: readonly string[]): string {
  const name = CLOUDEVENTS_EXTENSION_NAME.source;
  if (!name.startsWith('^')) throw new Error('CLOUDEVENTS_EXTENSION_NAME must be anchored');
  return `^(?!(?:${declared.join('|')})$)${name.slice(1)}`;
}

/**
 * A dead letter's headers: the original record's, which may be anything, and the ones mailbridge
 * adds. A header's value is bytes; the binary ones say their encoding in their description
 * (JSON Schema has no keyword for it).
 */
function deadLetterHeadersSchema(): JsonSchema {
  const properties = Object.fromEntries(
    Object.values(DEAD_LETTER_HEADERS).map((h) => [
      h.name,
      h.encoding === 'utf8'
        ? { type: 'string', description: h.description }
        : { description: `${h.description} Binary: ${h.encoding}.` },
    ]),
  );
  return {
    description:
      'The headers of a dead letter: the original record’s, kept, and these, added. The key ' +
      'and value are the original’s (see mailbridge_dlt-* for the cases where one was left out).',
    type: 'object',
    properties,
    required: REQUIRED_DEAD_LETTER_HEADERS.map((h) => DEAD_LETTER_HEADERS[h].name),
  };
}
