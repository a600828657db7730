import { HOSTILE_CORPUS, CORPUS_MAX_EVENT_BYTES } from '../../test/hostile/corpus';
import { interleavedValidEvents } from '../../test/hostile/valid-events';
import type { TopicsConfig } from '../config/app-config';
import { parseEvent, type ParseOptions } from './event.parser';
import type { ConsumedRecord } from '../kafka/consumed-record';
import { InvalidEventError } from './invalid-event.error';
import { typesByTopic } from './topic-types';

// The corpus names topics by role; here the role is the topic name.
const topics = {
  userSignedUp: 'signup',
  orderPlaced: 'order',
  campaignRequested: 'campaign',
  contactListRequested: 'contactList',
} as TopicsConfig;
const options: ParseOptions = {
  maxBytes: CORPUS_MAX_EVENT_BYTES,
  typesByTopic: typesByTopic(topics),
};

function message(c: {
  topic: string;
  value: Buffer | null;
  headers?: Record<string, Buffer | string>;
}): ConsumedRecord {
  return {
    topic: c.topic,
    partition: 0,
    offset: '0',
    timestamp: '0',
    key: null,
    value: c.value,
    headers: c.headers ?? {},
  };
}

/** What parseEvent made of a record: 'valid', or the code it was refused with, and why. */
async function outcome(m: ConsumedRecord): Promise<{ code: string; message?: string }> {
  try {
    await parseEvent(m, options);
    return { code: 'valid' };
  } catch (error) {
    if (error instanceof InvalidEventError) return { code: error.code, message: error.message };
    return { code: `threw ${String(error)}` };
  }
}

/** Values the corpus puts in events (ids, addresses, injected headers): never in a message. */
const VALUES = /hostile-|@example|evil|Lovelace|Injected|polluted/i;

describe('the hostile-input corpus', () => {
  it('has at least 110 kinds, each named once', () => {
    const kinds = HOSTILE_CORPUS.map((c) => c.kind);
    expect(kinds.length).toBeGreaterThanOrEqual(110);
  });

  it.each(HOSTILE_CORPUS.map((c) => [c.kind, c] as const))('%s', async (_kind, c) => {
    const expected = 'valid' in c.expect ? 'valid' : c.expect.deadLetter;
    const { code, message: why } = await outcome(message(c));
    expect(code).toBe(expected);
    expect(why ?? '').not.toMatch(VALUES);
  });

  it('accepts interleaved valid events of every topic', async () => {
    const records = interleavedValidEvents(3, 'run-1');
    const results = await Promise.all(records.map(async (r) => (await outcome(message(r))).code));
    expect(results).toEqual(records.map(() => 'valid'));
  });
});
