import type { IHeaders } from 'kafkajs';
import { plainTextProblem } from '../contracts/is-plain-text';
import { isRfc3339 } from '../contracts/is-rfc3339';
import {
  CLOUDEVENTS_EXTENSION_NAME as EXTENSION_NAME,
  CLOUDEVENTS_HEADER_PREFIX,
  MAX_EXTENSION_LENGTH,
} from '../contracts/kafka-headers';
import { InvalidEventError } from './invalid-event.error';
import { headerText } from './record-encoding';

/**
 * How the record carries its event: a plain JSON envelope (`{id, type, time, data}`), a
 * CloudEvents 1.0 structured event (the same JSON with `specversion`), or CloudEvents binary mode
 * (`ce_` headers, the value being `data`), per the CloudEvents Kafka protocol binding.
 */
export type EventMode = 'plain' | 'structured' | 'binary';

const CONTEXT_ATTRIBUTES = new Set([
  'id',
  'source',
  'specversion',
  'type',
  'datacontenttype',
  'dataschema',
  'subject',
  'time',
]);
/** `application/json`, `application/cloudevents+json` and any `+json`, with optional parameters. */
const JSON_MEDIA_TYPE = /^application\/([a-z0-9.!#$&^_-]+\+)?json\s*(;.*)?$/i;
const STRUCTURED_MEDIA_TYPE = /^application\/cloudevents\+json\s*(;.*)?$/i;
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;
/** RFC 3986 characters, with every `%` starting a two-digit escape. */
const URI_REFERENCE = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})+$/;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/**
 * The record's mode, from its headers, as the Kafka protocol binding says: structured when
 * `content-type` is `application/cloudevents+json`, binary when `ce_` headers are present,
 * otherwise a JSON document (a plain envelope, or a structured event without that content type).
 * Data that is not JSON (`content-type`, or a binary-mode `ce_datacontenttype`) is refused here,
 * before the value is read: every template expects JSON data.
 */
export function eventMode(headers: IHeaders, contentType: string | undefined): EventMode | 'json' {
  if (contentType !== undefined) checkJsonMediaType(contentType, 'content-type');
  const ceHeaders = Object.keys(headers).filter((name) =>
    name.startsWith(CLOUDEVENTS_HEADER_PREFIX),
  );
  if (ceHeaders.length === 0) return 'json';
  if (isStructuredContentType(contentType)) {
    throw cloudEvent('a structured-mode record must not carry ce_ headers');
  }
  if (!ceHeaders.includes('ce_specversion')) {
    throw cloudEvent('ce_ headers without ce_specversion');
  }
  const dataContentType = headerText(headers, 'ce_datacontenttype');
  if (dataContentType !== undefined) checkJsonMediaType(dataContentType, 'ce_datacontenttype');
  return 'binary';
}

/** Whether `content-type` declares a structured-mode CloudEvent, which must then carry `specversion`. */
export function isStructuredContentType(contentType: string | undefined): boolean {
  return contentType !== undefined && STRUCTURED_MEDIA_TYPE.test(contentType);
}

/**
 * The event of a binary-mode record: every `ce_` header an attribute, the value its data, and
 * `content-type` its `datacontenttype` (the binding maps one to the other).
 */
export function fromBinaryMode(
  headers: IHeaders,
  data: unknown,
  contentType: string | undefined,
): Record<string, unknown> {
  const event: Record<string, unknown> = { data };
  if (contentType !== undefined) event.datacontenttype = contentType;
  for (const name of Object.keys(headers)) {
    if (!name.startsWith(CLOUDEVENTS_HEADER_PREFIX)) continue;
    const attribute = name.slice(CLOUDEVENTS_HEADER_PREFIX.length);
    if (attribute === 'data' || !EXTENSION_NAME.test(attribute)) {
      throw cloudEvent(`header ${safeName(name)} is not a CloudEvents attribute name`);
    }
    event[attribute] = headerText(headers, name);
  }
  return event;
}

/** A CloudEvent's extension attributes, by name: the types CloudEvents 1.0 allows them. */
export type Extensions = Record<string, string | number | boolean>;

/**
 * Checks a CloudEvent's attributes against CloudEvents 1.0. Returns the event without its
 * extension attributes, for the contract to validate, and the extensions apart (checked, kept
 * for the parsed event; undefined when there are none). Messages name attributes and rules,
 * never values.
 */
export function checkCloudEvent(event: Record<string, unknown>): {
  envelope: Record<string, unknown>;
  extensions?: Extensions;
} {
  if (event.specversion !== '1.0') throw cloudEvent('specversion must be the string "1.0"');
  if ('data_base64' in event) {
    throw new InvalidEventError(
      'UNSUPPORTED_CONTENT_TYPE',
      'data_base64 (binary data) is not accepted: every event type carries JSON data',
    );
  }
  requireText(event, 'id');
  requireText(event, 'type');
  requireText(event, 'source');
  if (!isUriReference(event.source as string)) throw cloudEvent('source must be a URI-reference');
  if (event.time !== undefined && !isRfc3339(event.time)) {
    throw cloudEvent('time must be an RFC 3339 timestamp');
  }
  if (event.subject !== undefined) requireText(event, 'subject');
  if (event.dataschema !== undefined) {
    const schema = event.dataschema;
    if (typeof schema !== 'string' || !SCHEME.test(schema) || !isUriReference(schema)) {
      throw cloudEvent('dataschema must be an absolute URI');
    }
  }
  if (event.datacontenttype !== undefined) {
    if (typeof event.datacontenttype !== 'string') {
      throw new InvalidEventError('UNSUPPORTED_CONTENT_TYPE', 'datacontenttype must be a string');
    }
    checkJsonMediaType(event.datacontenttype, 'datacontenttype');
  }
  const envelope: Record<string, unknown> = {};
  let extensions: Extensions | undefined;
  for (const [name, value] of Object.entries(event)) {
    if (name === 'data' || CONTEXT_ATTRIBUTES.has(name)) envelope[name] = value;
    else {
      checkExtension(name, value);
      extensions ??= {};
      extensions[name] = value;
    }
  }
  return { envelope, extensions };
}

function checkExtension(name: string, value: unknown): asserts value is string | number | boolean {
  if (!EXTENSION_NAME.test(name)) {
    throw cloudEvent(`attribute ${safeName(name)} is not a valid extension name`);
  }
  const ok =
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isSafeInteger(value)) ||
    (typeof value === 'string' &&
      value.length <= MAX_EXTENSION_LENGTH &&
      plainTextProblem(value) === undefined);
  if (!ok) {
    throw cloudEvent(
      `extension ${name} must be a boolean, an integer or plain text up to ${MAX_EXTENSION_LENGTH} characters`,
    );
  }
}

function requireText(event: Record<string, unknown>, name: string): void {
  const value = event[name];
  if (typeof value !== 'string' || value.length === 0) {
    throw cloudEvent(`${name} must be a non-empty string`);
  }
  const problem = plainTextProblem(value);
  if (problem) throw cloudEvent(`${name} contains ${problem}`);
}

function isUriReference(value: string): boolean {
  return URI_REFERENCE.test(value);
}

function checkJsonMediaType(value: string, what: string): void {
  const charset = CHARSET.exec(value)?.[1];
  const json = JSON_MEDIA_TYPE.test(value.trim()) && plainTextProblem(value) === undefined;
  if (!json || (charset !== undefined && charset.toLowerCase() !== 'utf-8')) {
    throw new InvalidEventError(
      'UNSUPPORTED_CONTENT_TYPE',
      `${what} must be JSON in UTF-8 (application/json or a +json type)`,
    );
  }
}

function cloudEvent(message: string): InvalidEventError {
  return new InvalidEventError('INVALID_CLOUDEVENT', `not a valid CloudEvent: ${message}`);
}

/** A name from the input, quoted only when it cannot carry anything but a name. */
export function safeName(name: string): string {
  return /^[A-Za-z0-9_.$-]{1,64}$/.test(name) ? `'${name}'` : '(unnamed)';
}
