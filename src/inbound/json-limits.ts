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
    const children: unknown[] = Array.isArray(value) ? value : checkedValues(value);
    entries += children.length;
    if (entries > MAX_JSON_ENTRIES) {
      throw new InvalidEventError(
        'TOO_COMPLEX',
        `more than ${MAX_JSON_ENTRIES} fields and elements`,
      );
    }
    for (const child of children) {
      pending.push(child);
      depths.push(depth + 1);
    }
  }
}

function checkedValues(object: object): unknown[] {
  const keys = Object.keys(object);
  for (const key of keys) {
    if (RESERVED_KEYS.has(key)) {
      throw new InvalidEventError('UNKNOWN_FIELD', `field name '${key}' is reserved`);
    }
    if (!isWellFormed(key)) throw malformed();
  }
  return keys.map((key) => (object as Record<string, unknown>)[key]);
}

function malformed(): InvalidEventError {
  return new InvalidEventError('INVALID_ENCODING', 'a string holds a lone surrogate (not Unicode)');
}
