import 'reflect-metadata';
import { cpus, loadavg } from 'node:os';
import type { TopicsConfig } from '../src/config/app-config';
import { parseEvent, readEvent, type ParseOptions } from '../src/inbound/event.parser';
import { typesByTopic } from '../src/inbound/topic-types';
import type { ConsumedRecord } from '../src/kafka/consumed-record';
import { encode, orderEvent, signupEvent, type CorpusEvent } from '../test/hostile/valid-events';
import { classValidatorEvent } from '../test/support/class-validator-reference';
import { numberFlag } from './config/number-flag';
import { alternatingRounds } from './measure/alternating-rounds';

/**
 * `npm run bench:parse`: µs per `parseEvent` of one `user.signed_up.v1` and one
 * `order.placed.v1`, as the service parses them (ajv validators compiled from the contracts'
 * JSON Schemas) and as it did before (class-transformer + class-validator, kept as a reference in
 * test/support/). Both run the same checks before the contract (`readEvent`), timed alone too,
 * so that the rest is validation. Rounds alternate in order, so that drift on a shared machine
 * favours none; the median round of each is reported.
 * Options: `--rounds N` (default 7), `--seconds S` per round (default 1). See docs/benchmark.md.
 */

type Parse = (record: ConsumedRecord) => Promise<unknown>;

const options: ParseOptions = {
  maxBytes: 262_144,
  typesByTopic: typesByTopic({
    userSignedUp: 'signups',
    orderPlaced: 'orders',
    campaignRequested: 'commands',
    contactListRequested: 'commands',
  } as TopicsConfig),
};

const after: Parse = (record) => parseEvent(record, options);
/** What both share: bytes, JSON, limits, envelope; the rest of each is validation. */
const shared: Parse = (record) => Promise.resolve(readEvent(record, options));
const before: Parse = (record) => {
  const { type, plain } = readEvent(record, options);
  return classValidatorEvent(type, plain);
};

function record(topic: string, event: CorpusEvent): ConsumedRecord {
  const { value, headers = {} } = encode(event, 'plain');
  return { topic, partition: 0, offset: '0', timestamp: '0', key: null, value, headers };
}

async function main(): Promise<void> {
  const rounds = numberFlag('rounds', 7);
  const seconds = numberFlag('seconds', 1);
  const cases: Array<[string, ConsumedRecord]> = [
    ['user.signed_up.v1', record('signups', signupEvent('bench-1'))],
    ['order.placed.v1', record('orders', orderEvent('bench-1'))],
  ];
  const load = loadavg()[0];
  console.log(
    '| event | before: class-validator (µs) | after: compiled (µs) | speed-up | of each, before the contract (µs) |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const [type, input] of cases) {
    // Both must accept the event, or the figures would time a refusal.
    await before(input);
    await after(input);
    const {
      before: b,
      after: a,
      shared: s,
    } = await alternatingRounds(
      { before: () => before(input), after: () => after(input), shared: () => shared(input) },
      rounds,
      seconds,
    );
    const cells = [b.toFixed(1), a.toFixed(1), `${(b / a).toFixed(1)}×`, s.toFixed(1)];
    console.log(`| ${type} | ${cells.join(' | ')} |`);
  }
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  console.log(
    `\nMedian of ${rounds} rounds of ${seconds} s each; Node ${process.version}, ` +
      `${cpus().length} × ${cpu}, load average ${load.toFixed(2)} at the start.`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
