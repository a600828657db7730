import type { IHeaders } from 'kafkajs';
import { isWellFormed } from '../contracts/is-plain-text';
import { InvalidEventError } from './invalid-event.error';

/**
 * Fatal: a byte sequence that is not UTF-8 (invalid, overlong, an encoded surrogate) is refused
 * rather than replaced by U+FFFD, which would let two different ids read as one. `ignoreBOM`
 * keeps a byte-order mark in the text so that it can be refused rather than silently dropped.
 */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The bytes as text, or INVALID_ENCODING. A leading BOM is refused too: RFC 8259 forbids
 * producers to add one, and accepting it would make the same event two different byte strings.
 */
export function decodeUtf8(bytes: Buffer, what: string): string {
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch (cause) {
    throw new InvalidEventError('INVALID_ENCODING', `${what} is not valid UTF-8`, { cause });
  }
  if (text.startsWith('\uFEFF')) {
    throw new InvalidEventError('INVALID_ENCODING', `${what} starts with a byte-order mark`);
  }
  return text;
}

/**
 * A header's value as text, undefined when absent. A header sent twice is refused: which copy
 * counts would be up to whichever reader comes next.
 */
export function headerText(headers: IHeaders, name: string): string | undefined {
  const raw = headers[name];
  if (raw === undefined) return undefined;
  if (Array.isArray(raw)) {
    if (raw.length !== 1) {
      throw new InvalidEventError('INVALID_CLOUDEVENT', `header ${name} appears more than once`);
    }
    return one(raw[0], name);
  }
  return one(raw, name);
}

function one(value: Buffer | string, name: string): string {
  if (typeof value !== 'string') return decodeUtf8(value, `header ${name}`);
  if (!isWellFormed(value)) {
    throw new InvalidEventError('INVALID_ENCODING', `header ${name} is not valid Unicode`);
  }
  return value;
}
