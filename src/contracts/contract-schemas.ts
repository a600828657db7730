import { EMAIL_CAMPAIGN_SENT_V1, EmailCampaignSentV1Data } from './email-campaign-sent.v1';
import {
  EMAIL_CONTACT_LIST_CREATED_V1,
  EmailContactListCreatedV1Data,
} from './email-contact-list-created.v1';
import { EMAIL_DISPATCH_FAILED_V1, EmailDispatchFailedV1Data } from './email-dispatch-failed.v1';
import { INBOUND_SCHEMAS, schemasOf, type JsonSchema } from './json-schema';
import { DEAD_LETTER_HEADERS, REQUIRED_DEAD_LETTER_HEADERS } from './kafka-headers';
import { StructuredResultEvent } from './result-cloud-event';

/**
 * Who writes what a schema describes. Other services write `inbound` events, so a new schema
 * must accept all the old one accepted; mailbridge writes `outbound` ones, so all a new schema
 * allows must pass the old one, which subscribers may validate against.
 */
export type SchemaDirection = 'inbound' | 'outbound';

/** One published JSON Schema: `schemas/<name>.json`. */
export interface ContractSchema {
  /** The message type it describes (`user.signed_up.v1`), or what else it is. */
  name: string;
  direction: SchemaDirection;
  schema: JsonSchema;
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
  const inbound = Object.entries(INBOUND_SCHEMAS).map(([type, schema]) =>
    published(type, 'inbound', schema),
  );
  const results = Object.entries(schemasOf(RESULT_DATA_CONTRACTS, { closed: false })).map(
    ([type, schema]) =>
      published(type, 'outbound', {
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
    published(RESULT_CLOUDEVENT_SCHEMA, 'outbound', {
      description: 'A result as a structured-mode CloudEvent 1.0 (RESULT_EVENT_MODE=structured).',
      ...envelope,
    }),
    published(DEAD_LETTER_HEADERS_SCHEMA, 'outbound', deadLetterHeadersSchema()),
  ];
}

function published(name: string, direction: SchemaDirection, schema: JsonSchema): ContractSchema {
  const { definitions, ...rest } = schema;
  delete rest.$schema;
  const ordered: JsonSchema = { $schema: DRAFT_07, $id: schemaId(name), title: name, ...rest };
  // A schema without nested classes has nothing to define.
  if (definitions && Object.keys(definitions).length > 0) ordered.definitions = definitions;
  return { name, direction, schema: ordered };
}

/**
 * A dead letter's headers: the original record's, which may be anything, and the ones mailbridge
 * adds. A header's value is bytes; the binary ones say their encoding in `x-encoding`.
 */
function deadLetterHeadersSchema(): JsonSchema {
  const properties = Object.fromEntries(
    Object.values(DEAD_LETTER_HEADERS).map((h) => [
      h.name,
      h.encoding === 'utf8'
        ? { type: 'string', description: h.description }
        : { description: `${h.description} Binary: ${h.encoding}.`, 'x-encoding': h.encoding },
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
