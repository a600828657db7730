import { HOSTILE_CORPUS } from '../../test/hostile/corpus';
import { CORPUS_PARSE_OPTIONS, corpusRecord } from '../../test/hostile/corpus-parsing';
import { interleavedValidEvents } from '../../test/hostile/valid-events';
import { parseEvent } from './event.parser';
import type { ConsumedRecord } from '../kafka/consumed-record';
import { InvalidEventError } from './invalid-event.error';

/** What parseEvent made of a record: 'valid', or the code it was refused with, and why. */
async function outcome(m: ConsumedRecord): Promise<{ code: string; message?: string }> {
  try {
    await parseEvent(m, CORPUS_PARSE_OPTIONS);
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
    const { code, message: why } = await outcome(corpusRecord(c));
    expect(code).toBe(expected);
    expect(why ?? '').not.toMatch(VALUES);
  });

  it('accepts interleaved valid events of every topic', async () => {
    const records = interleavedValidEvents(3, 'run-1');
    const results = await Promise.all(
      records.map(async (r) => (await outcome(corpusRecord(r))).code),
    );
    expect(results).toEqual(records.map(() => 'valid'));
  });
});
