import type { INestApplication } from '@nestjs/common';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { KafkaMessage } from 'kafkajs';
import { readDeadLetterHeaders } from '../../src/contracts/dead-letter-headers';
import { runRedrive } from '../../src/tools/redrive';
import type { RedriveSummary } from '../../src/tools/redrive/redriver';
import { readToEnd } from '../../src/tools/redrive/topic-reader';
import { signUp, order } from '../support/events';
import { produce, uniqueName, waitFor } from '../support/kafka-helpers';
import { decodeResult } from '../support/result-events';
import { PipelineFixture } from '../support/service-harness';

jest.setTimeout(240_000);

/** The source event id a result answers, as a subscriber using the CloudEvents SDK reads it. */
function sourceEventIdOf(result: KafkaMessage): string | undefined {
  return decodeResult<{ sourceeventid?: string }>(result).sourceeventid;
}

/** A valid event padded with JSON whitespace past a small MAX_EVENT_BYTES: OVERSIZED there. */
function padded(event: object): string {
  return JSON.stringify(event) + ' '.repeat(2_000);
}

describe('npm run redrive (real broker)', () => {
  const fixture = new PipelineFixture();
  const run = uniqueName('redrive');
  const bigA = signUp(1, run);
  const bigB = signUp(2, run);
  const bigOrder = order(3, run);
  /** Events of a type no template handles: dead-lettered UNKNOWN_TYPE, before and after. */
  const unknown = [4, 5, 6, 7, 8].map((i) => ({ ...signUp(i, run), type: 'user.deleted.v1' }));
  let service: INestApplication;
  let betweenAandB: number;
  /** When the unknown types were redriven (and so dead-lettered again, later). */
  let rateRunStart: number;
  const logTopic = () => `${fixture.topics.TOPIC_DEAD_LETTER}.redrive-log`;

  const redrive = async (...args: string[]) => {
    const lines: string[] = [];
    const summary = (await runRedrive(args, fixture.env(), (line) => lines.push(line)))!;
    return { summary, output: lines.join('\n') };
  };
  const sentFor = (id: string) =>
    fixture.collector.messages.filter(
      (m) => m.topic === fixture.topics.TOPIC_CAMPAIGN_SENT && sourceEventIdOf(m) === id,
    );
  const deadLetters = () =>
    fixture.collector.messages.filter((m) => m.topic === fixture.topics.TOPIC_DEAD_LETTER);
  /**
   * Records a read-committed consumer gets (offsets would count transaction markers too), up to
   * the partitions' last stable offsets. A run's commit returns once the broker has decided it,
   * a moment before the commit markers are written that make its records visible; count after
   * {@link settled} when a run has just committed.
   */
  const recordsOn = async (topic: string) => {
    let count = 0;
    await readToEnd(fixture.kafka, [topic], () => count++, { groupPrefix: uniqueName('count') });
    return count;
  };
  /**
   * A run begins by fencing the redrive transactional id, which the broker grants only once every
   * earlier transaction of that id is complete, its markers written: after a run that selects
   * nothing (no dead letter is older than 1970), what every earlier run committed is visible.
   */
  const settled = async () => {
    const { summary } = await redrive('--code', 'UNKNOWN_TYPE', '--until', '1');
    expect(summary).toMatchObject({ selected: 0, redriven: 0 });
  };
  const row = (summary: RedriveSummary, code: string, topic: string) =>
    summary.rows.find((r) => r.code === code && r.topic === topic);

  beforeAll(async () => {
    // The broker stamps the orders topic's records itself: the dead letter must say so. The
    // topic is created so (before the fixture creates the others): a config altered later
    // reaches the partitions' logs some time after the broker acknowledged it.
    const admin = fixture.kafka.admin();
    await admin.connect();
    await admin.createTopics({
      waitForLeaders: false,
      topics: [
        {
          topic: fixture.topics.TOPIC_ORDER_PLACED,
          numPartitions: 3,
          configEntries: [{ name: 'message.timestamp.type', value: 'LogAppendTime' }],
        },
      ],
    });
    await admin.disconnect();
    await fixture.start();
    // The cause: a limit too small for these events. An operator fixes it by raising it.
    service = await fixture.startService({ MAX_EVENT_BYTES: '1024' });
    const t = fixture.topics;
    await produce(fixture.kafka, t.TOPIC_USER_SIGNED_UP, [
      { key: bigA.data.userId, value: padded(bigA), headers: { 'x-origin': 'redrive-test' } },
    ]);
    await waitFor(() => (deadLetters().length === 1 ? true : undefined), {
      what: 'the first dead letter',
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    betweenAandB = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await produce(fixture.kafka, t.TOPIC_USER_SIGNED_UP, [
      { key: bigB.data.userId, value: padded(bigB) },
      { key: 'broken', value: 'not json at all' },
    ]);
    await produce(fixture.kafka, t.TOPIC_ORDER_PLACED, [
      { key: bigOrder.data.orderId, value: padded(bigOrder) },
    ]);
    await produce(
      fixture.kafka,
      t.TOPIC_USER_SIGNED_UP,
      unknown.map((e) => ({ key: e.data.userId, value: JSON.stringify(e) })),
    );
    await waitFor(() => (deadLetters().length === 9 ? true : undefined), {
      what: 'nine dead letters',
    });
    // The fix: the service runs again with the default limit.
    await fixture.stopService(service);
    service = await fixture.startService();
  });

  afterAll(() => fixture.stop());

  it('dry run: counts per code and topic, lists what would go, sends nothing', async () => {
    const t = fixture.topics;
    const before = await recordsOn(t.TOPIC_USER_SIGNED_UP);
    const { summary, output } = await redrive('--dry-run');
    expect(summary).toMatchObject({ dryRun: true, read: 9, selected: 9, redriven: 0 });
    expect(row(summary, 'OVERSIZED', t.TOPIC_USER_SIGNED_UP)).toMatchObject({
      total: 2,
      selected: 2,
    });
    expect(row(summary, 'OVERSIZED', t.TOPIC_ORDER_PLACED)).toMatchObject({
      total: 1,
      selected: 1,
    });
    expect(row(summary, 'UNPARSEABLE', t.TOPIC_USER_SIGNED_UP)).toMatchObject({ total: 1 });
    expect(output).toContain(`OVERSIZED / ${t.TOPIC_USER_SIGNED_UP}: 2, 2, 0`);
    expect(output.match(/would redrive /g)).toHaveLength(9);
    const shown = await redrive('--dry-run', '--show', '3');
    expect(shown.output.match(/would redrive /g)).toHaveLength(3);
    expect(shown.output).toContain('… and 6 more');
    expect(output).toContain('nothing was sent');
    expect(output).not.toContain(bigA.data.email); // lists positions and causes, never values
    expect(await recordsOn(t.TOPIC_USER_SIGNED_UP)).toBe(before);
    const admin = fixture.kafka.admin();
    await admin.connect();
    expect(await admin.listTopics()).not.toContain(logTopic());
    await admin.disconnect();
  });

  it('says how each original record was stamped, and npm run results decodes the headers', async () => {
    const t = fixture.topics;
    const types = new Map(
      deadLetters().map((m) => {
        const info = readDeadLetterHeaders(m.headers)!;
        return [info.originalTopic, info.originalTimestampType];
      }),
    );
    expect(types.get(t.TOPIC_ORDER_PLACED)).toBe('LogAppendTime');
    expect(types.get(t.TOPIC_USER_SIGNED_UP)).toBe('CreateTime');

    const results = spawn(
      process.execPath,
      [
        join(__dirname, '../../dist/tools/results.js'),
        ...['--brokers', fixture.env().KAFKA_BROKERS, '--topics', t.TOPIC_DEAD_LETTER],
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let stdout = '';
    results.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    try {
      await waitFor(() => stdout.includes(`dead letter of ${t.TOPIC_ORDER_PLACED}/`) || undefined, {
        what: 'npm run results to print the dead letter of the order',
      });
      expect(stdout).toMatch(
        new RegExp(
          `dead letter of ${t.TOPIC_ORDER_PLACED.replace(/\./g, '\\.')}/\\d+@0: OVERSIZED`,
        ),
      );
    } finally {
      results.kill('SIGTERM');
    }
  });

  it('filters select by code, original topic and time range', async () => {
    const t = fixture.topics;
    const signUps = ['--topic', t.TOPIC_USER_SIGNED_UP];
    const oversized = await redrive('--dry-run', '--code', 'OVERSIZED', ...signUps);
    expect(oversized.summary.selected).toBe(2);
    expect(row(oversized.summary, 'OVERSIZED', t.TOPIC_ORDER_PLACED)?.selected).toBe(0);
    expect(row(oversized.summary, 'UNPARSEABLE', t.TOPIC_USER_SIGNED_UP)?.selected).toBe(0);
    const orders = await redrive('--dry-run', '--topic', t.TOPIC_ORDER_PLACED);
    expect(orders.summary.selected).toBe(1);
    const until = await redrive('--dry-run', ...signUps, '--until', String(betweenAandB));
    expect(until.summary.selected).toBe(1);
    const since = await redrive(
      '--dry-run',
      ...signUps,
      '--since',
      new Date(betweenAandB).toISOString(),
    );
    expect(since.summary.selected).toBe(7); // bigB, the unparseable one, the unknown types
    const both = await redrive('--dry-run', '--code', 'OVERSIZED,UNPARSEABLE', ...signUps);
    expect(both.summary.selected).toBe(3);
  });

  it('redrives a fixed dead letter to its topic, where it gets its result; never twice', async () => {
    const t = fixture.topics;
    const before = await recordsOn(t.TOPIC_USER_SIGNED_UP);
    const signUps = ['--topic', t.TOPIC_USER_SIGNED_UP, '--code', 'OVERSIZED'];

    const first = await redrive(...signUps, '--until', String(betweenAandB));
    expect(first.summary).toMatchObject({ dryRun: false, selected: 1, redriven: 1 });
    const result = await waitFor(() => sentFor(bigA.id)[0], { what: 'the result of bigA' });
    expect(result).toBeDefined();
    expect(await recordsOn(t.TOPIC_USER_SIGNED_UP)).toBe(before + 1);

    // The record went back as it was: key, value and its own headers, no dead-letter headers.
    const redriven = await readLast(fixture, t.TOPIC_USER_SIGNED_UP, bigA.data.userId);
    expect(redriven.value?.toString()).toBe(padded(bigA));
    expect(redriven.headers?.['x-origin']?.toString()).toBe('redrive-test');
    expect(readDeadLetterHeaders(redriven.headers)).toBeUndefined();
    expect(Object.keys(redriven.headers ?? {}).filter((h) => /dlt|dlq/.test(h))).toEqual([]);

    const second = await redrive(...signUps);
    expect(second.summary).toMatchObject({ selected: 1, redriven: 1, alreadyRedriven: 1 });
    await waitFor(() => sentFor(bigB.id)[0], { what: 'the result of bigB' });

    const third = await redrive(...signUps);
    expect(third.summary).toMatchObject({ selected: 0, redriven: 0, alreadyRedriven: 2 });
    expect(third.output).toContain('skipped 2: redriven before');
    expect(await recordsOn(t.TOPIC_USER_SIGNED_UP)).toBe(before + 2);
    expect(await recordsOn(logTopic())).toBe(2);
    expect(sentFor(bigA.id)).toHaveLength(1);
  });

  it('keeps to the rate it is given', async () => {
    const started = (rateRunStart = Date.now());
    const { summary, output } = await redrive('--code', 'UNKNOWN_TYPE', '--rate', '2');
    const elapsed = Date.now() - started;
    expect(summary.redriven).toBe(5);
    // Two at once, two after a second, the last after two seconds.
    expect(output).toMatch(/sent 2\/5\n.*sent 4\/5\n.*sent 5\/5/s);
    expect(elapsed).toBeGreaterThanOrEqual(2_000);
  });

  it('as a command: exit 2 on a bad argument, 78 on a bad setting, 1 on a failure, 0 done', () => {
    const command = (args: string[], env: Record<string, string>) =>
      spawnSync(process.execPath, [join(__dirname, '../../dist/tools/redrive.js'), ...args], {
        env: { PATH: process.env.PATH ?? '', ...env },
        encoding: 'utf8',
        timeout: 60_000,
      });
    const badArgument = command(['--code', 'OVERSIZED', '--rate', '0'], fixture.env());
    expect(badArgument.status).toBe(2);
    expect(badArgument.stderr).toContain('--rate must be a number above 0');
    expect(badArgument.stderr).toContain('npm run redrive -- --code CODE');

    const { KAFKA_BROKERS: _brokers, ...withoutBrokers } = fixture.env();
    void _brokers;
    const badSetting = command(['--dry-run'], withoutBrokers);
    expect(badSetting.status).toBe(78);
    expect(badSetting.stderr).toContain('KAFKA_BROKERS is required');

    const failure = command(['--code', 'X', '--log-topic', 'no spaces allowed'], fixture.env());
    expect(failure.status).toBe(1);
    expect(failure.stderr).toContain('redrive failed: the redrive log topic no spaces allowed');

    // Only the broker's and the topics' settings: no vendor key, no sender, no Redis.
    const kafkaOnly = Object.fromEntries(
      Object.entries(fixture.env()).filter(([name]) =>
        /^(KAFKA_|TOPIC_|MAILBRIDGE_MODE)/.test(name),
      ),
    );
    expect(kafkaOnly).not.toHaveProperty('VENDOR_API_KEY');
    const done = command(['--dry-run', '--code', 'OVERSIZED'], kafkaOnly);
    expect(done.status).toBe(0);
    expect(done.stdout).toContain('dry run: 1 would be redriven; nothing was sent');
  });

  it('a run that starts fences one still running, and sends only what that one did not', async () => {
    const t = fixture.topics;
    // The unknown types, redriven above, are dead letters again: five new ones.
    const code = (m: KafkaMessage) => readDeadLetterHeaders(m.headers)?.errorCode;
    await waitFor(
      () => deadLetters().filter((m) => code(m) === 'UNKNOWN_TYPE').length === 10 || undefined,
      { what: 'the unknown types dead-lettered again' },
    );
    const before = await recordsOn(t.TOPIC_USER_SIGNED_UP);
    // Until now: what the runs below redrive is dead-lettered yet again, later.
    const window = ['--since', String(rateRunStart), '--until', String(Date.now())];
    const args = ['--code', 'UNKNOWN_TYPE', ...window];
    let firstSent!: () => void;
    const oneSent = new Promise<void>((resolve) => (firstSent = resolve));
    const slow = runRedrive([...args, '--rate', '1'], fixture.env(), (line) => {
      if (line.includes('sent 1/5')) firstSent();
    });
    const slowOutcome = slow.then(
      () => 'finished',
      (error: Error) => error.message,
    );
    await oneSent;
    const { summary } = await redrive(...args);
    expect(summary).toMatchObject({ selected: 4, redriven: 4, alreadyRedriven: 1 });
    expect(await slowOutcome).toContain('redrive stopped after 1 of 5 records');
    await settled();
    expect(await recordsOn(t.TOPIC_USER_SIGNED_UP)).toBe(before + 5);
  });

  it('two runs at once redrive a dead letter once between them', async () => {
    const t = fixture.topics;
    const before = await recordsOn(t.TOPIC_USER_SIGNED_UP);
    // Until now: a redriven record, still unparseable, is dead-lettered again, later.
    const startedAt = Date.now();
    const args = ['--code', 'UNPARSEABLE', '--topic', t.TOPIC_USER_SIGNED_UP];
    args.push('--until', String(startedAt));
    const outcomes = await Promise.allSettled([redrive(...args), redrive(...args)]);
    const redriven = outcomes
      .filter((o) => o.status === 'fulfilled')
      .map((o) => o.value.summary.redriven);
    // A run fenced by the other stops before it committed anything, and says so.
    const failures = outcomes.filter((o) => o.status === 'rejected').map((o) => String(o.reason));
    const unexplained = failures.filter((f) => !f.includes('redrive stopped after 0 of 1 records'));
    expect(unexplained).toEqual([]);
    expect(redriven.reduce((a, b) => a + b, 0)).toBe(1);
    // A third run, which fences both first, finds it done, and the topic has it once.
    const again = await redrive(...args);
    expect(again.summary).toMatchObject({ redriven: 0, alreadyRedriven: 1 });
    expect(await recordsOn(t.TOPIC_USER_SIGNED_UP)).toBe(before + 1);
  });
});

/** The last record of `topic` with `key`, read from the beginning. */
async function readLast(fixture: PipelineFixture, topic: string, key: string) {
  const found: KafkaMessage[] = [];
  const consumer = fixture.kafka.consumer({ groupId: uniqueName('test-read') });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachMessage: ({ message }) => {
      if (message.key?.toString() === key) found.push(message);
      return Promise.resolve();
    },
  });
  try {
    return await waitFor(() => (found.length >= 2 ? found[found.length - 1] : undefined), {
      what: `the redriven record of ${key}`,
    });
  } finally {
    await consumer.disconnect();
  }
}
