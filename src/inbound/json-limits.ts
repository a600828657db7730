import { isWellFormed } from '../contracts/is-plain-text';
import { InvalidEventError } from './invalid-event.error';

/**
 * Deepest nesting accepted, counting the envelope as 1. The deepest contract (an order's
 * customer address) is at 4; whatever walks an event recursively must not meet 10,000 levels
 * (50 KB), which overflowed class-transformer's stack when validation still used it.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * Object members plus array elements, over the whole record. Admits a campaign command with
 * 10,000 recipients (the contract's maximum) each with a name, an email and six attributes:
 * 10,000 × (1 + 3 + 6) = 100,000. At the default MAX_EVENT_BYTES (256 KiB) a record can hold
 * about 131,000 entries at most (`0,` per entry), so this bound bites there too.
 */
export const MAX_JSON_ENTRIES = 100_000;

/** Names that reach the prototype chain when code copies a key onto an object (a spread would). */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Walks parsed JSON once, iteratively (a recursive walk would overflow on the very input it
 * guards against), before anything recursive sees it: depth, size, reserved names, and strings
 * that are not well-formed Unicode (a lone surrogate escaped as `\ud800` decodes fine as JSON
 * but cannot be encoded as UTF-8 for the vendor).
 */
export function checkJsonLimits(root: unknown): void {
  // Values and their depths on two stacks, not a pair per value: every event is walked.
  const pending: unknown[] = [root];
  const depths: number[] = [1];
  let entries = 0;
  while (pending.length > 0) {
    const value = pending.pop();
    const depth = depths.pop()!;
    if (typeof value === 'string') {
      if (!isWellFormed(value)) throw malformed();
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_JSON_DEPTH) {
      throw new InvalidEventError('TOO_COMPLEX', `nesting deeper than ${MAX_JSON_DEPTH} levels`);
    }
    if (Array.isArray(value)) {
      entries += value.length;
      if (entries > MAX_JSON_ENTRIES) throw tooMany();
      for (const child of value) {
        pending.push(child);
        depths.push(depth + 1);
      }
      continue;
    }
    // Names first (as before: a reserved or malformed name is named even in an object that is
    // also too large), then the values straight onto the stacks, with no array of them.
    const object = value as Record<string, unknown>;
    let members = 0;
    for (const key in object) {
      if (!Object.hasOwn(object, key)) continue;
      if (RESERVED_KEYS.has(key)) {
        throw new InvalidEventError('UNKNOWN_FIELD', `field name '${key}' is reserved`);
      }
      if (!isWellFormed(key)) throw malformed();
      members += 1;
    }
    entries += members;
    if (entries > MAX_JSON_ENTRIES) throw tooMany();
    for (const key in object) {
      if (!Object.hasOwn(object, key)) continue;
      pending.push(object[key]);
      depths.push(depth + 1);
    }
  }
}

function tooMany(): InvalidEventError {
  return new InvalidEventError('TOO_COMPLEX', `more than ${MAX_JSON_ENTRIES} fields and elements`);
}

function malformed(): InvalidEventError {
  return new InvalidEventError('INVALID_ENCODING', 'a string holds a lone surrogate (not Unicode)');
}
